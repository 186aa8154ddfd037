import { describe, expect, it } from "vitest";
import { createRng } from "../../src/core/rng.js";

const draws = (seed: string, n: number) => {
  const rng = createRng(seed);
  return Array.from({ length: n }, () => rng.next());
};

describe("createRng", () => {
  it("replays the same sequence for the same seed", () => {
    expect(draws("run:7", 50)).toEqual(draws("run:7", 50));
  });

  it("gives different sequences for neighbouring seeds", () => {
    expect(draws("run:7", 5)).not.toEqual(draws("run:8", 5));
    expect(draws("run:1", 5)).not.toEqual(draws("run:10", 5));
  });

  it("draws in [0, 1), roughly uniformly", () => {
    const xs = draws("uniform", 20_000);
    expect(Math.min(...xs)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...xs)).toBeLessThan(1);
    const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
    expect(mean).toBeCloseTo(0.5, 1);
    const belowHalf = xs.filter((x) => x < 0.5).length / xs.length;
    expect(belowHalf).toBeGreaterThan(0.48);
    expect(belowHalf).toBeLessThan(0.52);
  });

  it("is pinned: a changed generator would silently change every replayed run", () => {
    expect(draws("pin", 3).map((x) => x.toFixed(8))).toMatchInlineSnapshot(`
      [
        "0.09815266",
        "0.29353989",
        "0.58568087",
      ]
    `);
  });
});
