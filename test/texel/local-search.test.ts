import { describe, expect, it } from "vitest";
import type { Param } from "../../src/config/params.js";
import { coordinateSearch, type TexelMethod } from "../../src/texel/local-search.js";

const param = (name: string, value: number, step: number): Param => ({
  name, value, min: -1000, max: 1000, step, type: "int", constant: name, index: [], rustType: undefined, option: undefined, frozen: false,
});
const PARAMS = [param("A", 0, 10), param("B", 300, 10)];
const OPTIMUM: Record<string, number> = { A: 73, B: 241 };
const bowl = async (values: Readonly<Record<string, number>>) => (values.A! - OPTIMUM.A!) ** 2 + 2 * (values.B! - OPTIMUM.B!) ** 2;

async function search(method: TexelMethod, signal?: AbortSignal, error = bowl) {
  const start = { A: 0, B: 300 };
  return coordinateSearch({ params: PARAMS, start, startError: await bowl(start), method, maxPasses: 1000, error, signal });
}

describe("coordinate search on the error", () => {
  it("local (the seed's ±1) and adaptive both end at the optimum; adaptive needs far fewer evaluations", async () => {
    const local = await search("local");
    const adaptive = await search("adaptive");
    expect(local.values).toEqual(OPTIMUM);
    expect(adaptive.values).toEqual(OPTIMUM);
    expect(local.error).toBe(0);
    expect(adaptive.evaluations * 3).toBeLessThan(local.evaluations);
  });

  it("a stop during an evaluation keeps the best values found so far", async () => {
    const controller = new AbortController();
    let calls = 0;
    const failing = async (values: Readonly<Record<string, number>>) => {
      if (++calls === 20) {
        controller.abort();
        throw new Error("engine killed by the same Ctrl-C");
      }
      return bowl(values);
    };
    const result = await search("local", controller.signal, failing);
    expect(result.evaluations).toBe(19);
    expect(result.error).toBe(await bowl(result.values));
    expect(result.error).toBeLessThan(await bowl({ A: 0, B: 300 }));
  });
});
