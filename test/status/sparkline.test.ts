import { describe, expect, it } from "vitest";
import { samplePositions } from "../../src/status/sampling.js";
import { sparkline } from "../../src/status/sparkline.js";

describe("sparkline", () => {
  it("scales between the lowest and highest value", () => {
    expect(sparkline([0, 1, 2, 3, 4, 5, 6, 7])).toBe("▁▂▃▄▅▆▇█");
    expect(sparkline([10, 0, 5])).toBe("█▁▅");
  });
  it("draws a flat history as a middle line, and nothing for no values", () => {
    expect(sparkline([3, 3, 3])).toBe("▄▄▄");
    expect(sparkline([])).toBe("");
  });
});

describe("samplePositions", () => {
  it("keeps every position of a short history", () => {
    expect(samplePositions(4, 10)).toEqual([0, 1, 2, 3]);
    expect(samplePositions(0, 10)).toEqual([]);
  });
  it("spreads the samples evenly over a long one, both ends included", () => {
    expect(samplePositions(10_001, 5)).toEqual([0, 2500, 5000, 7500, 10_000]);
    expect(samplePositions(31, 24)).toHaveLength(24);
  });
});
