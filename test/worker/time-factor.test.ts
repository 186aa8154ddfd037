import { describe, expect, it } from "vitest";
import { MAX_TIME_FACTOR, MIN_TIME_FACTOR, scaledMovetime, timeFactor } from "../../src/worker/time-factor.js";

describe("the time factor of speed normalisation", () => {
  it("is reference / measured: a slower engine gets more time, a faster one less", () => {
    expect(timeFactor(1_000_000, 500_000)).toEqual({ factor: 2, clamped: false });
    expect(timeFactor(1_000_000, 1_250_000)).toEqual({ factor: 0.8, clamped: false });
    expect(timeFactor(800_000, 800_000)).toEqual({ factor: 1, clamped: false });
  });

  it("is kept within its range, and says so", () => {
    expect([MIN_TIME_FACTOR, MAX_TIME_FACTOR]).toEqual([0.25, 4]);
    expect(timeFactor(1_000_000, 100_000)).toEqual({ factor: 4, clamped: true });
    expect(timeFactor(1_000_000, 10_000_000)).toEqual({ factor: 0.25, clamped: true });
    // The bounds themselves are not clamping.
    expect(timeFactor(1_000_000, 250_000)).toEqual({ factor: 4, clamped: false });
  });

  it("refuses speeds that are no speeds", () => {
    expect(() => timeFactor(1_000_000, 0)).toThrow(/speeds must be positive/);
    expect(() => timeFactor(Number.NaN, 1)).toThrow(/speeds must be positive/);
  });

  it("scales a time per move to whole milliseconds, never below 1", () => {
    expect(scaledMovetime(50, 1)).toBe(50);
    expect(scaledMovetime(123.4, 1)).toBe(123);
    expect(scaledMovetime(50, 1.5)).toBe(75);
    expect(scaledMovetime(3, 0.25)).toBe(1);
    expect(scaledMovetime(1, 0.25)).toBe(1);
  });
});
