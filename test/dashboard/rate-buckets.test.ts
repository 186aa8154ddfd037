import { describe, expect, it } from "vitest";
import { rateBucketSeconds } from "../../src/dashboard/run-detail.js";

describe("the games-rate chart's buckets", () => {
  it("suit the run's age: at most 60 bars, a minute for a young run up to a day, and two iterations wide in build mode", () => {
    expect(rateBucketSeconds(40, 0)).toBe(60);
    expect(rateBucketSeconds(30 * 60, 0)).toBe(60);
    expect(rateBucketSeconds(2 * 3600, 0)).toBe(300);
    expect(rateBucketSeconds(6 * 3600, 0)).toBe(900);
    // 30 iterations in six hours: a bar of 15 minutes would hold one iteration's games or none.
    expect(rateBucketSeconds(6 * 3600, 30)).toBe(3600);
    expect(rateBucketSeconds(30 * 86_400, 0)).toBe(86_400);
  });
});
