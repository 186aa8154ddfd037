import { describe, expect, it } from "vitest";
import {
  eloFromPentanomial,
  eloFromScore,
  eloFromTrinomial,
  erf,
  los,
  scoreFromElo,
  sprt,
} from "../../src/stats/elo.js";

describe("stats", () => {
  it("converts scores to Elo and back", () => {
    expect(eloFromScore(0.5)).toBe(0);
    expect(eloFromScore(0.75)).toBeCloseTo(190.85, 2);
    expect(eloFromScore(0.25)).toBeCloseTo(-190.85, 2);
    expect(eloFromScore(1)).toBe(Number.POSITIVE_INFINITY);
    expect(eloFromScore(0)).toBe(Number.NEGATIVE_INFINITY);
    expect(scoreFromElo(eloFromScore(0.63))).toBeCloseTo(0.63, 12);
  });

  it("computes the 95 % error from pentanomial pairs", () => {
    // mean 0.5, pair variance 0.05, 100 pairs: ±1.96·sqrt(0.05/100) in score
    const estimate = eloFromPentanomial([5, 20, 50, 20, 5]);
    expect(estimate.elo).toBeCloseTo(0, 9);
    const delta = 1.959963984540054 * Math.sqrt(0.05 / 100);
    expect(estimate.error).toBeCloseTo(eloFromScore(0.5 + delta), 6);
    expect(estimate.error).toBeCloseTo(30.53, 2);
    expect(eloFromPentanomial([0, 0, 0, 0, 0])).toEqual({ elo: 0, error: Number.POSITIVE_INFINITY, score: 0.5 });
    // one pair has no spread: the error is unknown, not zero
    expect(eloFromPentanomial([0, 0, 0, 1, 0])).toMatchObject({ score: 0.75, error: Number.POSITIVE_INFINITY });
    expect(eloFromTrinomial(1, 0, 0).error).toBe(Number.POSITIVE_INFINITY);
  });

  it("pairs that correlate give a smaller error than the same games counted one by one", () => {
    // 100 pairs of one win and one loss each: 100 W, 100 L, all in the middle bucket
    const paired = eloFromPentanomial([0, 0, 100, 0, 0]);
    const games = eloFromTrinomial(100, 0, 100);
    expect(paired.error).toBe(0);
    expect(games.error).toBeGreaterThan(40);
    expect(eloFromTrinomial(60, 20, 20).score).toBeCloseTo(0.7, 12);
  });

  it("computes the likelihood of superiority", () => {
    expect(los(10, 10)).toBeCloseTo(0.5, 8);
    expect(los(0, 0)).toBe(0.5);
    expect(los(20, 10)).toBeCloseTo(0.5 * (1 + erf(10 / Math.sqrt(60))), 12);
    expect(los(20, 10)).toBeCloseTo(0.966, 3);
    expect(los(10, 20)).toBeCloseTo(1 - los(20, 10), 12);
    expect(erf(1)).toBeCloseTo(0.8427007929, 6);
  });

  it("SPRT accepts H1 for a clearly stronger engine, H0 for a weaker one, and waits otherwise", () => {
    const bounds = { elo0: 0, elo1: 5, alpha: 0.05, beta: 0.05 };
    const strong = sprt([0, 5, 20, 40, 35], bounds);
    expect(strong.decision).toBe("H1");
    expect(strong.upper).toBeCloseTo(Math.log(19), 12);
    expect(strong.lower).toBeCloseTo(-Math.log(19), 12);
    expect(sprt([35, 40, 20, 5, 0], bounds).decision).toBe("H0");
    const even = sprt([2, 5, 10, 5, 2], bounds);
    expect(even.decision).toBeUndefined();
    expect(even.llr).toBeLessThan(0); // a 50 % score is closer to elo0 than to elo1
    // identical pairs have no variance; regularised, they still decide
    expect(sprt([0, 0, 0, 0, 10], bounds).decision).toBe("H1");
    expect(sprt([0, 0, 30, 0, 0], bounds).decision).toBe("H0");
    expect(sprt([0, 0, 0, 0, 0], bounds).decision).toBeUndefined();
  });
});
