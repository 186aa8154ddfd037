import { describe, expect, it } from "vitest";
import {
  PILOT_MAX_FACTOR,
  PILOT_SAFE_CURVATURE,
  pilotMeasure,
  pilotScale,
  pilotScales,
  spreadSquared,
} from "../../src/spsa/pilot.js";
import { measuredElo } from "../../src/spsa/math.js";
import type { PilotIteration, IterationResult } from "../../src/types/spsa.js";

/** `games` games at `score` for the tuned side, no draws (wins rounded). */
const scored = (score: number, games: number): IterationResult => {
  const wins = Math.round(score * games);
  return { plusWins: wins, minusWins: games - wins, draws: 0 };
};
/** A pilot iteration whose sides each scored `score` against θ₀, with perturbations of d steps. */
const pilot = (score: number, games: number, d: number): PilotIteration => ({
  outcome: { plus: scored(score, games), minus: scored(score, games) },
  spreadSquared: d * d,
});

describe("the curvature pilot", () => {
  it("reads the perturbation's cost as total curvature: −(E₊ + E₋) / (2 d²)", () => {
    const measure = pilotMeasure([pilot(0.4, 400, 4)]);
    const elo = measuredElo(scored(0.4, 400)).elo;
    expect(measure.curvature).toBeCloseTo(-elo / 16, 10);
    expect(measure.saturated).toBe(false);
    expect(measure.error).toBeGreaterThan(0);
  });

  it("speeds up a run whose perturbation costs little, at most PILOT_MAX_FACTOR times", () => {
    // Each side loses about 7 Elo at 4 steps: T about 0.4, far below the safe curvature.
    expect(pilotMeasure([pilot(0.49, 2000, 4)]).factor).toBe(PILOT_MAX_FACTOR);
    // A side that gains against θ₀ (noise) reads as no curvature: the cap.
    expect(pilotMeasure([pilot(0.55, 64, 4)]).factor).toBe(PILOT_MAX_FACTOR);
  });

  it("keeps the default for a sharp engine, and between uses the safe curvature over T's upper bound", () => {
    // 147 Elo lost per side at 3 steps: T ≈ 16, a factor of about 3.
    const middle = pilotMeasure([pilot(0.3, 4000, 3)]);
    expect(middle.factor).toBeCloseTo(PILOT_SAFE_CURVATURE / (middle.curvature + 2 * middle.error), 10);
    expect(middle.factor).toBeGreaterThan(1);
    expect(middle.factor).toBeLessThan(PILOT_MAX_FACTOR);
    // 200 Elo per side at 1 step: T ≈ 200, far above it.
    expect(pilotMeasure([pilot(0.24, 400, 1)]).factor).toBe(1);
  });

  it("takes a side beyond the saturation as too sharp to measure", () => {
    const swept = pilotMeasure([pilot(0.02, 64, 6)]);
    expect(swept.saturated).toBe(true);
    expect(swept.factor).toBe(1);
  });

  it("pools pilot iterations by inverse variance and ignores one with no perturbation", () => {
    const one = pilotMeasure([pilot(0.45, 200, 3)]);
    const two = pilotMeasure([pilot(0.45, 200, 3), pilot(0.45, 200, 3), { ...pilot(0.1, 200, 3), spreadSquared: 0 }]);
    expect(two.curvature).toBeCloseTo(one.curvature, 10);
    expect(two.error).toBeCloseTo(one.error / Math.SQRT2, 10);
    expect(pilotMeasure([]).factor).toBe(1);
  });

  it("measures the spread of the parameters that were perturbed, in steps", () => {
    // A: 10 ± 3 with step 2 (1.5 steps); B: 4 ± 2 with step 1 (2 steps); C frozen.
    expect(spreadSquared({ A: 2, B: 1, C: 5 }, { A: 13, B: 6, C: 7 }, { A: 7, B: 2, C: 7 })).toBeCloseTo(
      (1.5 ** 2 + 2 ** 2) / 2,
      12,
    );
    expect(spreadSquared({ C: 5 }, { C: 7 }, { C: 7 })).toBe(0);
  });

  it("raises the scale's full-signal end, and without a lift leaves the floor: floor + (factor − floor)·ρ", () => {
    const unlifted = { floor: 0.25 };
    expect(pilotScale(0.25, unlifted, 4)).toBe(0.25);
    expect(pilotScale(1, unlifted, 4)).toBe(4);
    expect(pilotScale(0.625, unlifted, 4)).toBeCloseTo(0.25 + 3.75 * 0.5, 12);
    expect(pilotScale(0.625, unlifted, 1)).toBeCloseTo(0.625, 12);
    // With a floor of 1 there is no ρ: the factor itself.
    expect(pilotScale(1, { floor: 1, lift: 1.5 }, 3)).toBe(3);
  });

  it("lifts the floor to floor·factor^lift, at most the factor: L + (factor − L)·ρ", () => {
    const lifted = { floor: 0.25, lift: 1.5 };
    // 0.25 · 4^1.5 = 2: the floor, and half way to the factor at ρ = 0.5.
    expect(pilotScale(0.25, lifted, 4)).toBeCloseTo(2, 12);
    expect(pilotScale(0.625, lifted, 4)).toBeCloseTo(2 + 2 * 0.5, 12);
    expect(pilotScale(1, lifted, 4)).toBe(4);
    // A lift that would put the floor above the factor stops at it.
    expect(pilotScale(0.25, { floor: 0.25, lift: 2 }, 4)).toBe(4);
    // A factor of 1 lifts nothing.
    expect(pilotScale(0.25, lifted, 1)).toBe(0.25);
  });

  it("scales every parameter's step scale alike, and none with a factor of 1", () => {
    expect(pilotScales({ A: 0.25, B: 1 }, { floor: 0.25 }, 4)).toEqual({ A: 0.25, B: 4 });
    const scales = { A: 0.5 };
    expect(pilotScales(scales, { floor: 0.25, lift: 1.5 }, 1)).toBe(scales);
  });
});
