/**
 * The per-batch step of UCI-option mode, pure, in one place: the live fold
 * (src/master/apply-reports.ts), the chain check (option-chain.ts), the undo's replay
 * (undo-replay.ts) and both simulators (src/simulate/) move θ through `BatchSteps`, so they
 * cannot drift apart. A batch's step: the adaptive window (the batches applied before it) →
 * the adaptive scale (batchStepFactor) → the curvature pilot's factor on it (pilotBatchScale)
 * → the update, a_k scaled by the batch's share of an iteration (applyBatch).
 */
import { measuredElo, update } from "./math.js";
import { stepFactor } from "./adaptive.js";
import { pilotBatchScale } from "./option-pilot.js";
import type { DrawnResult, IterationResult, SpsaMathConfig, SpsaParam, UpdateResult, Values } from "../types/spsa.js";

/**
 * A reported batch's step from the θ of now (`paramsNow`), which other batches may have
 * moved since this one was drawn: the gradient is the batch's own, a_k is scaled by its
 * share of an iteration's games, so the step per game does not depend on the batch size.
 */
export function applyBatch(
  paramsNow: readonly SpsaParam[],
  drawn: { ak: number; plus: Values; minus: Values; games: number },
  result: IterationResult,
  gains: SpsaMathConfig,
  gamesPerIteration: number,
  scale?: number,
): UpdateResult {
  return update(
    paramsNow,
    { ak: (drawn.ak * drawn.games) / gamesPerIteration, plus: drawn.plus, minus: drawn.minus, ...(scale && { scale }) },
    result,
    gains,
  );
}

/**
 * The adaptive gains of a batch about to be applied, from the batches reported before it
 * (oldest first; see batchWindow). The batches of one shared draw are pooled into one sample
 * (pooledByDraw); each sample counts as the share of an iteration its games are (signalShare):
 * pooling the counts of batches drawn with different signs would add
 * signals of opposite signs and read them as noise, an 8-game batch's iteration then
 * measuring an eighth of the signal an iteration of build mode measures. The factor is the
 * same for every parameter (src/spsa/adaptive.ts); undefined when the run has no adaptive
 * gains.
 */
export function batchStepFactor(
  reported: readonly DrawnResult[],
  gains: SpsaMathConfig,
  gamesPerIteration: number,
): number | undefined {
  if (!gains.adaptive || gains.adaptive.mode === "off") return undefined;
  // The batches of one shared draw are one sample.
  const measured = pooledByDraw(reported)
    .filter((r) => r.plusWins + r.minusWins + r.draws > 0)
    .map((result) => ({ elo: measuredElo(result, gains.eloCap).elo, result }));
  return stepFactor(measured, { ...gains.adaptive, window: measured.length }, gamesPerIteration);
}

/**
 * Results of batches that played one draw (the same drawNumber) summed, in the order of each
 * draw's first batch: the adaptive scale reads a shared draw as one sample, as build mode reads
 * an iteration; pooling batches of different draws would cancel their signals (docs/uci-options.md).
 */
export function pooledByDraw(results: readonly DrawnResult[]): IterationResult[] {
  const pooled = new Map<number, IterationResult>();
  for (const r of results) {
    const p = pooled.get(r.drawNumber) ?? { plusWins: 0, minusWins: 0, draws: 0 };
    pooled.set(r.drawNumber, {
      plusWins: p.plusWins + r.plusWins,
      minusWins: p.minusWins + r.minusWins,
      draws: p.draws + r.draws,
    });
  }
  return [...pooled.values()];
}

/**
 * How many reported batches make the adaptive window: `window` iterations' worth of games of this
 * batch's size, as in build mode.
 */
export function batchWindow(gains: SpsaMathConfig, gamesPerIteration: number, batchGames: number): number {
  return Math.max(1, Math.ceil(((gains.adaptive?.window ?? 1) * gamesPerIteration) / Math.max(1, batchGames)));
}

/** A batch as its step reads it: the draw it played, its games and result. */
export interface SteppedBatch {
  ak: number;
  plus: Values;
  minus: Values;
  games: number;
  result: IterationResult;
  /** The draw it played: the adaptive window reads one draw's batches as one sample. */
  drawNumber: number;
}

/** One batch's step: θ after it (every parameter), its Elo, and the step scale it took (undefined: none). */
export interface BatchStep {
  update: UpdateResult;
  scale: number | undefined;
}

/**
 * The steps of a chain of batches, in the order they are applied: each reads the adaptive window
 * of the batches stepped before it (those of `recent` first), so callers keep no window of their own.
 * `pilotFactor` is the curvature pilot's factor on every adaptive scale; a caller without one
 * (a run without a pilot, or rows that predate it) passes undefined and says why.
 */
export class BatchSteps {
  private readonly recent: DrawnResult[];
  /** The longest window any batch reads: that of a 1-game batch. */
  private readonly longest: number;

  constructor(
    private readonly run: { gains: SpsaMathConfig; gamesPerIteration: number },
    private readonly pilotFactor: number | undefined,
    recent: readonly DrawnResult[] = [],
  ) {
    this.longest = batchWindow(run.gains, run.gamesPerIteration, 1);
    this.recent = recent.slice(-this.longest);
  }

  /** The step scale a batch of `games` applied next takes: the adaptive scale of its window, raised by the pilot. */
  scaleFor(games: number): number | undefined {
    const { gains, gamesPerIteration } = this.run;
    const window = this.recent.slice(Math.max(0, this.recent.length - batchWindow(gains, gamesPerIteration, games)));
    return pilotBatchScale(batchStepFactor(window, gains, gamesPerIteration), gains, this.pilotFactor);
  }

  /**
   * Applies `batch` to θ (`paramsNow`) and adds it to the window. `recorded`: the scale its row
   * holds, taken instead of the computed one (a replay of stored rows).
   */
  step(paramsNow: readonly SpsaParam[], batch: SteppedBatch, recorded?: number | null): BatchStep {
    const scale = recorded ?? this.scaleFor(batch.games);
    const { gains, gamesPerIteration } = this.run;
    const update = applyBatch(paramsNow, batch, batch.result, gains, gamesPerIteration, scale);
    this.recent.push({ ...batch.result, drawNumber: batch.drawNumber });
    if (this.recent.length > this.longest) this.recent.shift();
    return { update, scale };
  }
}
