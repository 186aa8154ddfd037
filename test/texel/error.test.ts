import { describe, expect, it } from "vitest";
import { fitK, meanSquaredError } from "../../src/texel/error.js";

describe("Texel error", () => {
  it("is the mean squared distance of the seed's sigmoid from the results", () => {
    // score 0 predicts 0.5; score 400 with K 1 predicts 10/11.
    const scores = Int32Array.from([0, 400]);
    const results = Float64Array.from([1, 1]);
    expect(meanSquaredError(scores, results, 1)).toBeCloseTo((0.25 + (1 / 11) ** 2) / 2, 12);
  });

  it("fits the K the results were drawn with", () => {
    const scores = Int32Array.from({ length: 401 }, (_, i) => (i - 200) * 5);
    // Results that are the sigmoid itself make the error zero at K = 1.7 exactly.
    const results = Float64Array.from(scores, (s) => 1 / (1 + 10 ** ((-1.7 * s) / 400)));
    const { k, error } = fitK(scores, results);
    expect(k).toBeCloseTo(1.7, 6);
    expect(error).toBeLessThan(1e-12);
  });
});
