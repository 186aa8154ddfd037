import { describe, expect, it } from "vitest";
import type { Param } from "../../src/params/params.js";
import { coordinateSearch, type SearchPosition, type TexelMethod } from "../../src/texel/local-search.js";
import { formatImprovement, formatSearchPosition } from "../../src/texel/progress.js";

const param = (name: string, value: number, step: number): Param => ({
  name,
  value,
  min: -1000,
  max: 1000,
  step,
  type: "int",
  constant: name,
  index: [],
  rustType: undefined,
  option: undefined,
  frozen: false,
});
const PARAMS = [param("A", 0, 10), param("B", 300, 10)];
const OPTIMUM: Record<string, number> = { A: 73, B: 241 };
const bowl = async (values: Readonly<Record<string, number>>) =>
  (values.A! - OPTIMUM.A!) ** 2 + 2 * (values.B! - OPTIMUM.B!) ** 2;

async function search(
  method: TexelMethod,
  signal?: AbortSignal,
  error = bowl,
  onEvaluation?: (position: SearchPosition) => void,
) {
  const start = { A: 0, B: 300 };
  return coordinateSearch({
    params: PARAMS,
    start,
    startError: await bowl(start),
    method,
    maxPasses: 1000,
    error,
    signal,
    onEvaluation,
  });
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

  it("reports every evaluation for the progress bar: where in the pass, and the best error so far", async () => {
    const seen: SearchPosition[] = [];
    const result = await search("adaptive", undefined, bowl, (position) => seen.push(position));
    expect(seen.map((p) => p.evaluations)).toEqual(Array.from({ length: result.evaluations }, (_, i) => i + 1));
    expect(seen.every((p) => p.params === 2 && p.tried >= 1 && p.tried <= 2)).toBe(true);
    expect(seen.at(-1)).toMatchObject({ pass: result.passes, tried: 2, error: result.error });
    for (const [i, p] of seen.entries()) if (i > 0) expect(p.error).toBeLessThanOrEqual(seen[i - 1]!.error);
  });
});

describe("the progress lines of spsa texel", () => {
  it("a live bar over the pass's parameters, and one line per improvement", () => {
    expect(
      formatSearchPosition({
        pass: 3,
        tried: 27,
        params: 55,
        evaluations: 412,
        error: 0.0831024,
        positionsPerSecond: 2031000.4,
      }),
    ).toBe(
      `pass 3 [${"#".repeat(10)}${".".repeat(10)}] 27/55 parameters · 412 evaluations · error 0.083102 · 2031000 positions/s`,
    );
    expect(
      formatImprovement({
        pass: 2,
        evaluations: 41,
        param: "ROOK_VALUE_MG",
        value: 470,
        error: 0.1325141,
        positionsPerSecond: 175458.2,
      }),
    ).toBe("pass 2 · 41 evaluations · ROOK_VALUE_MG = 470 · error 0.132514 · 175458 positions/s");
  });
});
