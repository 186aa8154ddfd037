import { describe, expect, it } from "vitest";
import { moveHistogram } from "../../src/status/move-histogram.js";

describe("the histogram of moves in steps", () => {
  it("counts each move once, by size on either side, each bin holding its edge nearer zero's side as printed, the unmoved apart", () => {
    const bins = moveHistogram([-3, -2, -1.5, -1, -0.7, -0.2, -0.05, 0, 0, 0.05, 0.1, 0.3, 0.5, 1, 1.9, 2, 5]);
    expect(bins.map((b) => [b.from, b.to, b.count])).toEqual([
      [null, -2, 2],
      [-2, -1, 2],
      [-1, -0.5, 1],
      [-0.5, -0.1, 1],
      [-0.1, 0, 1],
      [0, 0, 2],
      [0, 0.1, 1],
      [0.1, 0.5, 2],
      [0.5, 1, 1],
      [1, 2, 2],
      [2, null, 2],
    ]);
    expect(moveHistogram([]).every((b) => b.count === 0)).toBe(true);
  });
});
