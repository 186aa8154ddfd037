import type postgres from "postgres";
import { appliedShape, appliedWindows } from "../db/option-progress.js";
import { optionRunSchedule } from "../db/option-run.js";
import { eloFromPentanomial, shownError } from "../stats/elo.js";
import { measuredElo } from "../spsa/math.js";

/**
 * A UCI-option run has no iterations to chart Elo by: its batches, in the order they moved
 * θ, are pooled into windows of about an iteration's games (more on runs of over
 * MAX_WINDOWS iterations), each measured as an iteration of those games would be. One batch
 * of a few games is mostly noise and often a sweep, whose Elo only the cap bounds; a window
 * has the error bar of an iteration.
 */

/** At most this many windows in a run, whatever its length: the dashboard charts them all. */
const MAX_WINDOWS = 400;

/** A point of an Elo chart: iterations (build mode) or applied batches (UCI-option mode) `first` to `last`. */
export interface EloPoint {
  first: number;
  last: number;
  /**
   * Build mode: mean of the iterations' Elo as the updates used it; UCI-option mode: the window's
   * pooled results, measured as an update measures them.
   */
  elo: number;
  /**
   * Half width of the 95 % interval from the pentanomial counts (reference mode: from both sides'
   * results); null below MIN_ERROR_PAIRS pairs.
   */
  error: number | null;
  games: number;
}

export interface BatchElo {
  /**
   * Games per window: batches per window × the batch size, about games_per_iteration ×
   * ⌈max_iterations / MAX_WINDOWS⌉.
   */
  windowGames: number;
  /** Oldest first; the last window may be short of windowGames. */
  windows: EloPoint[];
}

/** Finite, or null: the chart draws no bar for an error it cannot measure. */
export function finiteOrNull(x: number): number | null {
  return Number.isFinite(x) ? x : null;
}

/**
 * Elo over windows of a UCI-option run's applied batches: all of them, the `latest` windows
 * only, or those from the window holding batch `since` + 1 on (a few rows, whatever the run's
 * length); undefined for another run.
 */
export async function batchElo(
  sql: postgres.Sql,
  runId: number,
  only: { latest?: number; since?: number | undefined } = {},
): Promise<BatchElo | undefined> {
  const run = await optionRunSchedule(sql, runId);
  if (!run) return undefined;
  const { batchSize, applied } = await appliedShape(sql, runId);
  const wanted = run.gamesPerIteration * Math.max(1, Math.ceil(run.gains.maxIterations / MAX_WINDOWS));
  // Whole batches, so that a window is a range of applied numbers.
  const per = Math.max(1, Math.round(wanted / batchSize));
  const { latest, since } = only;
  const after =
    latest !== undefined
      ? Math.max(0, (Math.floor((applied - 1) / per) - latest + 1) * per)
      : since !== undefined
        ? Math.floor(since / per) * per
        : 0;
  const windows = applied === 0 ? [] : await appliedWindows(sql, runId, per, after);
  return {
    windowGames: per * batchSize,
    windows: windows.map((w) => ({
      first: w.first,
      last: w.last,
      elo: measuredElo(w, run.gains.eloCap).elo,
      error: shownError(eloFromPentanomial(w.pairs).error, w.pairs),
      games: w.games,
    })),
  };
}
