import { update } from "./math.js";
import { applyBatch, batchStepScales, batchWindow, paramsAt } from "./option-batches.js";
import { previousMove } from "./trajectory.js";
import type { IterationSettings } from "../types/config.js";
import type { IterationOutcome, IterationResult, OptionParams, ReportedBatch, SpsaMathConfig, Values } from "../types/spsa.js";

/**
 * θ recomputed from a run's recorded rows (spsa undo, docs/bad-workers.md), pure. The master's
 * steps depend only on what the rows hold (src/spsa/in-flight.ts, src/master/apply-reports.ts),
 * so taking some batches' results out and replaying the same steps in the same order gives the
 * θ the run would have without them.
 */

/** A completed build-mode iteration as its step reads it. */
export interface RecordedIteration {
  number: number;
  ak: number;
  /** θ it was drawn from: a parameter that joined the run with it starts there. */
  base: Values;
  plus: Values;
  minus: Values;
  /** What of the config and parameters it was played with its step reads (its step scales too). */
  settings: StepSettings;
  /** Its games' counts (without the batches taken out); null when no game is left: no step. */
  outcome: IterationOutcome | null;
}

/** The recorded settings an iteration's step reads (IterationSettings has them). */
export type StepSettings = Pick<IterationSettings, "parameters" | "stepScale"> & { spsa: Pick<SpsaMathConfig, "eloCap" | "maxStep" | "momentum"> };

/** One replayed step: θ after it, and the Elo and gradient it measured (null: no game left, θ unchanged). */
export interface ReplayedStep {
  theta: Values;
  measured: { elo: number; gradient: Values } | null;
}

/**
 * Build mode: each completed iteration's step in iteration order, as the master's finishIteration
 * takes it (the step measured around the iteration's recorded plus and minus, with its recorded
 * a_k and settings, moving the θ the step before left), from θ₀. Momentum's previous move is the
 * replayed one, as the master's would have been without the removed results.
 */
export function replayIterations(start: Values, iterations: readonly RecordedIteration[]): ReplayedStep[] {
  const thetas: Values[] = [start];
  const steps: ReplayedStep[] = [];
  for (const [i, it] of iterations.entries()) {
    const theta = { ...it.base, ...(thetas[i] ?? start) };
    const games = it.outcome === null ? 0 : gamesOf(it.outcome);
    if (it.outcome === null || games === 0) {
      steps.push({ theta, measured: null });
      thetas.push(theta);
      continue;
    }
    const { settings } = it;
    const played = { ak: it.ak, plus: it.plus, minus: it.minus, ...(settings.stepScale && { scale: settings.stepScale }) };
    const previous = (settings.spsa.momentum ?? 0) > 0 ? previousMove(thetas, i + 1) : undefined;
    const updated = update(paramsAt(settings.parameters, theta), played, it.outcome, settings.spsa, previous);
    const after = { ...theta, ...updated.newValues };
    steps.push({ theta: after, measured: { elo: updated.elo, gradient: updated.gradient } });
    thetas.push(after);
  }
  return steps;
}

/** An applied UCI-option batch as its step reads it: its draw and its result. */
export interface RecordedBatch {
  games: number;
  ak: number;
  plus: Values;
  minus: Values;
  result: IterationResult;
}

/** The run's settings every UCI-option step reads. */
export interface OptionChainSettings {
  parameters: OptionParams;
  gains: SpsaMathConfig;
  gamesPerIteration: number;
}

/**
 * UCI-option mode: the batches in the order the master applied them, each moving the θ the one
 * before left, with the adaptive scales of the batches applied before it in this chain (as
 * src/master/apply-reports.ts applies them). Returns θ after each batch and before the first.
 */
export function replayBatches(run: OptionChainSettings, start: Values, batches: readonly RecordedBatch[]): { before: Values[]; after: Values[] } {
  const before: Values[] = [];
  const after: Values[] = [];
  const reported: ReportedBatch[] = [];
  let theta = start;
  for (const batch of batches) {
    const window = reported.slice(Math.max(0, reported.length - batchWindow(run.gains, run.gamesPerIteration, batch.games)));
    const scale = batchStepScales(run.parameters, window, run.gains, run.gamesPerIteration);
    const result = applyBatch(paramsAt(run.parameters, theta), batch, batch.result, run.gains, run.gamesPerIteration, scale);
    before.push(theta);
    theta = { ...theta, ...result.newValues };
    after.push(theta);
    reported.push(batch.result);
  }
  return { before, after };
}

function gamesOf(outcome: IterationOutcome): number {
  const count = (r: IterationResult) => r.plusWins + r.minusWins + r.draws;
  return "plus" in outcome ? count(outcome.plus) + count(outcome.minus) : count(outcome);
}
