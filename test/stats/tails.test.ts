import { describe, expect, it } from "vitest";
import { logUpperTail, upperQuantile, upperQuantileOfLog } from "../../src/stats/tails.js";

describe("normal tails in log space", () => {
  it("gives the familiar quantiles", () => {
    expect(upperQuantile(0.025)).toBeCloseTo(1.959964, 5);
    expect(upperQuantile(0.5)).toBeCloseTo(0, 6);
    expect(upperQuantile(0.975)).toBeCloseTo(-1.959964, 5);
    // scipy.stats.norm.isf(1e-7) = 5.199337582
    expect(upperQuantile(1e-7)).toBeCloseTo(5.199337582, 5);
    expect(Math.exp(logUpperTail(3))).toBeCloseTo(0.001349898, 8);
  });

  it("stays finite and exact far beyond what a double holds as a probability", () => {
    // P(Z > 40) ≈ 3.7e-350 underflows a double; its log does not.
    const z = upperQuantileOfLog(-800);
    expect(Number.isFinite(z)).toBe(true);
    expect(logUpperTail(z)).toBeCloseTo(-800, 6);
    expect(upperQuantileOfLog(-2000)).toBeGreaterThan(z);
  });

  it("gives a finite z for tails a hair below 1 (a chi² of 10⁻³⁰ once gave NaN and flagged an honest worker)", () => {
    expect(upperQuantileOfLog(-1e-30)).toBeLessThan(-10);
    expect(Number.isFinite(upperQuantileOfLog(-1e-30))).toBe(true);
    expect(upperQuantileOfLog(-0)).toBe(Number.NEGATIVE_INFINITY);
    expect(upperQuantileOfLog(Math.log(0.9))).toBeCloseTo(-1.281552, 5);
  });

  it("is the inverse of the tail everywhere it is asked", () => {
    for (const z of [-6, -1.5, 0, 0.3, 2, 7, 15, 30]) expect(upperQuantileOfLog(logUpperTail(z))).toBeCloseTo(z, 6);
  });
});
