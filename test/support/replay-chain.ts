import { applyBatch, batchStepFactor, batchWindow } from "../../src/spsa/batch-step.js";
import { paramsAt } from "../../src/spsa/option-batches.js";
import type { IterationOutcome, OptionList, SpsaMathConfig, Values } from "../../src/types/spsa.js";
import type { IterationSettings } from "../../src/types/config.js";
import { recordedParams } from "../../src/config/iteration-settings.js";
import { update } from "../../src/spsa/math.js";

type Expect = (value: unknown, message?: string) => { toEqual(v: unknown): void };

/**
 * Replays a run's steps in iteration order from θ₀ (src/spsa/in-flight.ts): row i (0-based) was
 * drawn from θ after `applied` = i − its staleness steps, which its base θ must equal, and its
 * step, `step(row, applied, θ)`, moves θ after the i steps before it. Returns θ after every step.
 */
export function replayChain<R extends { iteration_number: number; base_parameters: Values }>(
  rows: readonly R[],
  start: Values,
  stalenessOf: (row: R) => number,
  step: (row: R, applied: number, theta: Values) => Values,
  expect: Expect,
): Values {
  const thetas = [start];
  for (const [i, row] of rows.entries()) {
    const applied = i - stalenessOf(row);
    expect(row.base_parameters, `θ of iteration ${row.iteration_number}`).toEqual(thetas[applied]);
    thetas.push({ ...thetas[i], ...step(row, applied, thetas[i] ?? {}) });
  }
  return thetas.at(-1) ?? start;
}

/** A batch of a UCI-option chain as an independent replay reads it from its rows. */
export interface ChainRow {
  draw_number: number;
  games: number;
  a_k: number;
  plus_wins: number;
  minus_wins: number;
  draws: number;
}

/**
 * θ after every batch of a UCI-option chain taken in the order given (θ₀ first), each batch with
 * the values `played` gives, its result and the adaptive scale of the batches before it
 * (src/spsa/batch-step.ts, as the master applies them), computed from the rows alone.
 */
export function replayOptionChain<R extends ChainRow>(
  rows: readonly R[],
  start: Values,
  run: { list: OptionList; gains: SpsaMathConfig; gamesPerIteration: number },
  played: (row: R, thetas: readonly Values[]) => { plus: Values; minus: Values },
): Values[] {
  const { list, gains, gamesPerIteration } = run;
  const results = (x: R) => ({ plusWins: x.plus_wins, minusWins: x.minus_wins, draws: x.draws });
  const thetas: Values[] = [start];
  for (const [i, b] of rows.entries()) {
    const done = rows.slice(0, i).map((x) => ({ ...results(x), drawNumber: x.draw_number }));
    // The batches of one shared draw read as one sample.
    const scale = batchStepFactor(
      done.slice(Math.max(0, done.length - batchWindow(gains, gamesPerIteration, b.games))),
      gains,
      gamesPerIteration,
    );
    const step = applyBatch(
      paramsAt(list, thetas[i]!),
      { ak: b.a_k, ...played(b, thetas), games: b.games },
      results(b),
      gains,
      gamesPerIteration,
      scale,
    );
    thetas.push({ ...thetas[i], ...step.newValues });
  }
  return thetas;
}

/** A completed build-mode iteration as its row records it (select the `ref` array as the tests do). */
export interface RecordedIteration {
  a_k: number;
  plus_parameters: Values;
  minus_parameters: Values;
  settings: IterationSettings;
  plus_wins: number;
  minus_wins: number;
  draws: number;
  /** Reference mode's counts: plus's W/L/D, then minus's, against the reference; null otherwise. */
  ref: number[] | null;
}

/** A recorded iteration's game counts as its step reads them. */
export function recordedOutcome(row: RecordedIteration): IterationOutcome {
  return row.ref
    ? {
        plus: { plusWins: row.ref[0]!, minusWins: row.ref[1]!, draws: row.ref[2]! },
        minus: { plusWins: row.ref[3]!, minusWins: row.ref[4]!, draws: row.ref[5]! },
      }
    : { plusWins: row.plus_wins, minusWins: row.minus_wins, draws: row.draws };
}

/** θ's new values after `row`'s step from `start`, recomputed from the row alone (update). */
export function recordedStep(row: RecordedIteration, start: Values): Values {
  const outcome = recordedOutcome(row);
  return update(
    recordedParams(row.settings, start),
    {
      ak: row.a_k,
      plus: row.plus_parameters,
      minus: row.minus_parameters,
      ...(row.settings.stepScale && { scale: row.settings.stepScale }),
    },
    outcome,
    row.settings.spsa,
  ).newValues;
}
