import { describe, expect, it } from "vitest";
import { pilotBatchScale, pilotIterationsOf, type PilotBatch } from "../../src/spsa/option-pilot.js";
import { pilotMeasure } from "../../src/spsa/pilot.js";
import type { IterationResult, SpsaMathConfig } from "../../src/types/spsa.js";

const result = (plusWins: number, draws: number, minusWins: number): IterationResult => ({
  plusWins,
  minusWins,
  draws,
});
const batch = (plus: IterationResult, minus: IterationResult, spreadSquared = 16, games = 8): PilotBatch => ({
  games,
  outcome: { plus, minus },
  spreadSquared,
});

describe("the curvature pilot of UCI-option mode", () => {
  it("pools its batches into iterations' worth of games: results summed, spreads averaged by games", () => {
    const batches = [
      batch(result(1, 2, 1), result(0, 2, 2), 16),
      batch(result(2, 1, 1), result(1, 1, 2), 9),
      batch(result(0, 4, 0), result(0, 3, 1), 16, 8),
      batch(result(1, 0, 1), result(0, 1, 1), 25, 4),
    ];
    expect(pilotIterationsOf(batches, 16)).toEqual([
      { outcome: { plus: result(3, 3, 2), minus: result(1, 3, 4) }, spreadSquared: 12.5 },
      // The last group is smaller: 12 games.
      { outcome: { plus: result(1, 4, 1), minus: result(0, 4, 2) }, spreadSquared: (16 * 8 + 25 * 4) / 12 },
    ]);
    expect(pilotIterationsOf(batches, Number.POSITIVE_INFINITY)).toHaveLength(1);
    expect(pilotIterationsOf([], 64)).toEqual([]);
  });

  it("measures what build mode's pilot iteration of the same games measures", () => {
    // Eight batches of 8 games, each side 4 games against θ₀, at the same spread: one iteration of 64.
    const sides = [
      result(1, 2, 1),
      result(0, 3, 1),
      result(1, 1, 2),
      result(0, 2, 2),
      result(2, 1, 1),
      result(1, 2, 1),
      result(0, 1, 3),
      result(1, 3, 0),
    ];
    const batches = sides.map((side, i) => batch(side, sides[(i + 3) % sides.length]!, 18.49));
    const pooled = pilotMeasure(pilotIterationsOf(batches, 64));
    const plus = result(6, 15, 11);
    const asBuildMode = pilotMeasure([{ outcome: { plus, minus: plus }, spreadSquared: 18.49 }]);
    expect(pooled).toEqual(asBuildMode);
    // Measured one by one (4 games a side), the batches would read another curvature.
    expect(pilotMeasure(pilotIterationsOf(batches, 8)).curvature).not.toBeCloseTo(pooled.curvature, 3);
  });

  it("raises the full-signal end of a batch's adaptive scale by the factor, its floor by the lift, and nothing without one", () => {
    const gains = { adaptive: { mode: "signal", window: 256, floor: 0.25 } } as SpsaMathConfig;
    // ρ = 0.5 of the way from the floor: floor + (factor − floor)·ρ.
    expect(pilotBatchScale(0.625, gains, 3)).toBeCloseTo(0.25 + (3 - 0.25) * 0.5, 12);
    // At the floor (noise only) the scale stays the floor, in gains stored without a lift…
    expect(pilotBatchScale(0.25, gains, 4)).toBeCloseTo(0.25, 12);
    // … and rises to floor·factor^lift with one: 0.25 · 4^1.5 = 2.
    const lifted = { adaptive: { ...gains.adaptive!, lift: 1.5 } } as SpsaMathConfig;
    expect(pilotBatchScale(0.25, lifted, 4)).toBeCloseTo(2, 12);
    expect(pilotBatchScale(0.625, gains, 1)).toBe(0.625);
    expect(pilotBatchScale(0.625, gains, undefined)).toBe(0.625);
    expect(pilotBatchScale(undefined, gains, 3)).toBeUndefined();
    expect(pilotBatchScale(0.625, {} as SpsaMathConfig, 3)).toBe(0.625);
  });
});
