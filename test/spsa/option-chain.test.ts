import { describe, expect, it } from "vitest";
import { drawBatch, paramsAt, signBits, signsOfBits } from "../../src/spsa/option-batches.js";
import { applyBatch, batchStepFactor, batchWindow } from "../../src/spsa/batch-step.js";
import { ChainMismatch, replayAppliedChain } from "../../src/spsa/option-chain.js";
import type { AppliedBatch, ChainRun, IterationResult, Values } from "../../src/types/spsa.js";

const run: ChainRun = {
  parameters: {
    A: { min: 0, max: 100, step: 5, type: "int", frozen: false, option: "A", optionScale: undefined },
    B: { min: 0, max: 2, step: 0.1, type: "float", frozen: false, option: "B", optionScale: undefined },
    C: { min: -10, max: 10, step: 1, type: "int", frozen: true, option: "C", optionScale: undefined },
  },
  names: ["B", "A", "C"],
  gains: {
    a: 2,
    c: 2,
    A: 4,
    alpha: 0.602,
    gamma: 0.101,
    maxIterations: 10,
    adaptive: { mode: "signal", window: 2, floor: 0.2 },
  },
  gamesPerIteration: 16,
  seed: "chain",
};
const start: Values = { A: 50, B: 1, C: 3 };
const results: IterationResult[] = [
  { plusWins: 4, minusWins: 0, draws: 0 },
  { plusWins: 1, minusWins: 2, draws: 1 },
  { plusWins: 0, minusWins: 4, draws: 0 },
  { plusWins: 3, minusWins: 1, draws: 0 },
  { plusWins: 2, minusWins: 0, draws: 2 },
  { plusWins: 0, minusWins: 1, draws: 3 },
];

/**
 * The chain a master leaves: batch i drawn from θ after `drawnFrom[i]` applied batches (a pool
 * drawing ahead), applied in order with the step factor of the batches before it, every
 * second θ stored. Returns the rows (as readAppliedChain gives them) and θ after each.
 */
function masterChain(drawnFrom: number[]): { batches: AppliedBatch[]; thetas: Values[] } {
  const thetas = [start];
  const batches: AppliedBatch[] = [];
  drawnFrom.forEach((from, i) => {
    const draw = drawBatch(paramsAt(run, thetas[from]!), run.gains, {
      seed: run.seed,
      drawNumber: 100 + i,
      gamesBefore: 4 * i,
      gamesPerIteration: 16,
    });
    const before = results.slice(0, i);
    const scale = batchStepFactor(
      before.map((r, n) => ({ ...r, drawNumber: 100 + n })).slice(-batchWindow(run.gains, 16, 4)),
      run.gains,
      16,
    );
    const step = applyBatch(
      paramsAt(run, thetas[i]!),
      { ak: draw.ak, plus: draw.plus, minus: draw.minus, games: 4 },
      results[i]!,
      run.gains,
      16,
      scale,
    );
    thetas.push(step.newValues);
    batches.push({
      appliedNumber: i + 1,
      batchNumber: 100 + i,
      drawNumber: 100 + i,
      workerName: "w",
      games: 4,
      gamesBefore: 4 * i,
      drawnFrom: from,
      k: draw.k,
      ck: draw.ck,
      ak: draw.ak,
      signs: signBits(run.names, draw.signs),
      stepScale: scale ?? 1,
      result: results[i]!,
      elo: step.elo,
      played: null,
      thetaAfter: (i + 1) % 2 === 0 ? step.newValues : null,
    });
  });
  return { batches, thetas };
}

describe("the applied chain of a UCI-option run, replayed from its compact rows", () => {
  const { batches, thetas } = masterChain([0, 0, 1, 2, 4, 4]);

  it("draws every batch again from the θ it was drawn from and gives the master's θ after each, to the bit", () => {
    const seen: Values[] = [];
    const final = replayAppliedChain(run, { applied: 0, theta: start, recent: [] }, batches, (_, theta) =>
      seen.push(theta),
    );
    expect(seen).toEqual(thetas.slice(1));
    expect(final).toEqual(thetas.at(-1));
    expect(final.C).toBe(3);
  });

  it("starts from a stored θ, with the batches after it", () => {
    expect(
      replayAppliedChain(
        run,
        { applied: 4, theta: thetas[4]!, recent: results.slice(0, 4).map((r, i) => ({ ...r, drawNumber: 100 + i })) },
        batches.slice(4),
      ),
    ).toEqual(thetas.at(-1));
  });

  it("computes the step factor of rows without one (earlier versions) from the batches before them", () => {
    const older = batches.map((b) => ({ ...b, stepScale: null }));
    expect(replayAppliedChain(run, { applied: 0, theta: start, recent: [] }, older)).toEqual(thetas.at(-1));
  });

  it("uses the values a row still holds instead of drawing again (rows of earlier versions)", () => {
    const draw = drawBatch(paramsAt(run, start), run.gains, {
      seed: run.seed,
      drawNumber: 100,
      gamesBefore: 0,
      gamesPerIteration: 16,
    });
    const withValues = [
      { ...batches[0]!, drawnFrom: null, played: { plus: draw.plus, minus: draw.minus } },
      ...batches.slice(1),
    ];
    expect(replayAppliedChain(run, { applied: 0, theta: start, recent: [] }, withValues)).toEqual(thetas.at(-1));
  });

  it("refuses rows that do not replay: other signs, another θ stored, a gap, a θ drawn from before its start", () => {
    const replay =
      (rows: AppliedBatch[], from = 0) =>
      () =>
        replayAppliedChain(run, { applied: from, theta: thetas[from]!, recent: [] }, rows);
    const flipped = batches[2]!.signs.replace(/^./, (bit) => (bit === "1" ? "0" : "1"));
    expect(replay(batches.map((b, i) => (i === 2 ? { ...b, signs: flipped } : b)))).toThrow(ChainMismatch);
    expect(
      replay(
        batches.map((b, i) =>
          i === 3 ? { ...b, thetaAfter: { ...b.thetaAfter!, A: (b.thetaAfter?.A ?? 0) + 1e-9 } } : b,
        ),
      ),
    ).toThrow(/replay gives A/);
    expect(replay(batches.filter((_, i) => i !== 1))).toThrow(/expected 2th/);
    expect(replay(batches.slice(2), 2)).toThrow(/drawn from \(after 1 batches\) is not in the replay/);
  });

  it("stores signs as one bit per parameter in the run's order, none for a frozen one", () => {
    const signs = { B: -1, A: 1 };
    expect(signBits(run.names, signs)).toBe("010");
    expect(signsOfBits(run, "010")).toEqual(signs);
  });
});
