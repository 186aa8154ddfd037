import { describe, expect, it } from "vitest";
import { DelayGuard } from "../../src/worker/delay-guard.js";

describe("lowering a worker's concurrency under outside delays", () => {
  const options = { windowGames: 20, threshold: 0.1 };

  it("waits for a full window before judging", () => {
    const guard = new DelayGuard(4, options);
    expect(guard.observe(8, 8)).toBeUndefined();
    expect(guard.observe(8, 0)).toBeUndefined();
    expect(guard.observe(8, 0)).toEqual({ from: 4, to: 3, reason: "8 of 24 games hit by delays outside the engines" });
  });

  it("keeps the concurrency below the threshold, and starts a new window after each judgement", () => {
    const guard = new DelayGuard(4, options);
    expect(guard.observe(20, 1)).toBeUndefined();
    expect(guard.observe(20, 2)?.to).toBe(3);
    expect(guard.observe(20, 2)?.to).toBe(2);
    expect(guard.observe(20, 2)?.to).toBe(1);
  });

  it("never goes below one game at a time", () => {
    const guard = new DelayGuard(1, options);
    expect(guard.observe(20, 20)).toBeUndefined();
  });
});
