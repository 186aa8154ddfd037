import { describe, expect, it } from "vitest";
import { eloNoiseVariance, iterationNoise, signalShare, stepScales } from "../../src/spsa/adaptive.js";
import { iterationElo, measuredElo, update } from "../../src/spsa/math.js";
import type { MeasuredIteration, SpsaParam } from "../../src/types/spsa.js";

const result = (plusWins: number, minusWins: number, draws: number) => ({ plusWins, minusWins, draws });
/** An iteration of 64 games whose Elo is what its counts give. */
const iteration = (plusWins: number, minusWins: number): MeasuredIteration => {
  const counts = result(plusWins, minusWins, 64 - plusWins - minusWins);
  return { elo: measuredElo(counts).elo, result: counts };
};

describe("the noise of an iteration's Elo", () => {
  it("is the delta-method variance of the score: 64 games at equal strength without draws give about 43² Elo²", () => {
    // Per-game variance ¼, score 0.5: (0.25 / 64) · (400 / (ln 10 · ¼))² = 47.8 Elo² · … ≈ 1877.
    expect(Math.sqrt(eloNoiseVariance(result(32, 32, 0)))).toBeCloseTo(Math.sqrt(0.25 / 64) * (1600 / Math.LN10), 9);
  });

  it("falls with draws (less spread per game) and is finite for a sweep", () => {
    expect(eloNoiseVariance(result(16, 16, 32))).toBeLessThan(eloNoiseVariance(result(32, 32, 0)));
    expect(Number.isFinite(eloNoiseVariance(result(64, 0, 0)))).toBe(true);
    expect(() => eloNoiseVariance(result(0, 0, 0))).toThrow(/zero games/);
  });
});

describe("the run's signal share ρ", () => {
  it("is near 0 when the measured Elo is the size of the noise and near 1 when it is far above", () => {
    const noise = [iteration(34, 30), iteration(29, 35), iteration(33, 31), iteration(30, 34)];
    expect(signalShare(noise)).toBe(0);
    const signal = [iteration(50, 8), iteration(8, 50), iteration(52, 6)];
    expect(signalShare(signal)).toBeGreaterThan(0.8);
    expect(signalShare(signal)).toBeLessThanOrEqual(1);
    expect(signalShare([])).toBe(0);
    // A UCI-mode batch whose games were all voided measured nothing (and must not throw in the report's transaction).
    const voided = { elo: 0, result: result(0, 0, 0) };
    expect(signalShare([...signal, voided])).toBe(signalShare(signal));
    expect(signalShare([voided])).toBe(0);
  });

  it("counts an iteration of fewer games as its share of one: its noise scaled to an iteration's games", () => {
    const batch = (plusWins: number, minusWins: number): MeasuredIteration => {
      const counts = result(plusWins, minusWins, 8 - plusWins - minusWins);
      return { elo: measuredElo(counts).elo, result: counts };
    };
    const signal = [iteration(50, 8), iteration(8, 50), iteration(52, 6)];
    // Whole iterations: the same ρ with or without the iteration's size.
    expect(signalShare(signal, 64)).toBe(signalShare(signal));
    // 64 batches of 8 at 7–1 and 1–7: as shares of 64-game iterations, the signal a whole
    // iteration would see stands further above its noise than it does in 8 games.
    const batches = Array.from({ length: 64 }, (_, i) => (i % 2 === 0 ? batch(7, 1) : batch(1, 7)));
    expect(signalShare(batches, 64)).toBeGreaterThan(0.7);
    expect(signalShare(batches, 64)).toBeGreaterThan(signalShare(batches) + 0.1);
    // Noise stays noise at any size.
    const noise = [
      batch(4, 4),
      batch(5, 3),
      batch(3, 5),
      batch(4, 3),
      batch(3, 4),
      batch(5, 4),
      batch(4, 5),
      batch(4, 4),
    ];
    expect(signalShare(noise, 64)).toBe(0);
  });
});

describe("step scales", () => {
  const options = { mode: "signal" as const, window: 4, floor: 0.1 };

  it("are 1 with mode off, and the floor before anything was measured", () => {
    expect(stepScales([], ["X"], { ...options, mode: "off" })).toEqual({ X: 1 });
    expect(stepScales([], ["X", "Y"], options)).toEqual({ X: 0.1, Y: 0.1 });
  });

  it("are the same for every parameter: near 1 while the Elo stands far above the noise, the floor when it is noise, looking back only `window` iterations", () => {
    const noise = [iteration(34, 30), iteration(29, 35), iteration(33, 31), iteration(30, 34)];
    const signal = [iteration(50, 8), iteration(8, 50), iteration(52, 6), iteration(6, 52)];
    const far = stepScales([...noise, ...signal], ["X", "Y"], options);
    expect(far.X).toBeGreaterThan(0.8);
    expect(far.Y).toBe(far.X);
    expect(stepScales([...signal, ...noise], ["X"], options)).toEqual({ X: 0.1 });
    // A window of 8 sees both: a scale in between.
    const both = stepScales([...noise, ...signal], ["X"], { ...options, window: 8 }).X ?? 0;
    expect(both).toBeGreaterThan(0.1);
    expect(both).toBeLessThan(far.X ?? 0);
  });

  it("multiply a_k per parameter in the update", () => {
    const params: SpsaParam[] = ["X", "Y"].map((name) => ({ name, value: 5, min: 0, max: 10, step: 1, type: "float" }));
    const played = { ak: 0.01, plus: { X: 6, Y: 6 }, minus: { X: 4, Y: 4 }, scale: { X: 1, Y: 0.25 } };
    const { newValues } = update(params, played, result(40, 20, 4), {});
    expect((newValues.Y ?? 0) - 5).toBeCloseTo(0.25 * ((newValues.X ?? 0) - 5), 12);
    expect(newValues.X).toBeGreaterThan(5);
  });
});

describe("reference mode's noise", () => {
  /** 32 games of θ+ and 32 of θ− against the reference, each side's wins and losses given. */
  const referenceIteration = (plus: [number, number], minus: [number, number]): MeasuredIteration => {
    const outcome = {
      plus: result(plus[0], plus[1], 32 - plus[0] - plus[1]),
      minus: result(minus[0], minus[1], 32 - minus[0] - minus[1]),
    };
    return { elo: iterationElo(outcome).elo, result: outcome };
  };

  it("is the sum of both sides' noise, and a plus-vs-minus iteration's is eloNoiseVariance's to the bit", () => {
    const plus = result(14, 10, 8);
    const minus = result(9, 15, 8);
    expect(iterationNoise({ plus, minus })).toBe(eloNoiseVariance(plus) + eloNoiseVariance(minus));
    for (const counts of [result(32, 32, 0), result(20, 30, 14), result(64, 0, 0)])
      expect(iterationNoise(counts)).toBe(eloNoiseVariance(counts));
    // At equal games about four times plus-vs-minus's: each side has half the games, and there are two.
    const ratio =
      iterationNoise({ plus: result(16, 16, 0), minus: result(16, 16, 0) }) / eloNoiseVariance(result(32, 32, 0));
    expect(ratio).toBeCloseTo(4, 9);
  });

  it("reads differences near their noise as noise and far above it as signal", () => {
    const noise = [
      referenceIteration([13, 11], [11, 13]),
      referenceIteration([11, 13], [12, 12]),
      referenceIteration([12, 12], [13, 11]),
      referenceIteration([12, 12], [11, 13]),
    ];
    expect(signalShare(noise)).toBe(0);
    const signal = [
      referenceIteration([20, 4], [4, 20]),
      referenceIteration([4, 20], [20, 4]),
      referenceIteration([21, 4], [4, 21]),
    ];
    expect(signalShare(signal)).toBeGreaterThan(0.8);
    // A reference-mode iteration with no games on a side measured nothing.
    expect(signalShare([...signal, { elo: 0, result: { plus: result(0, 0, 0), minus: result(0, 0, 0) } }])).toBe(
      signalShare(signal),
    );
  });
});
