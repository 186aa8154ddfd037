import { outcomeOf, type OutcomeColumns } from "../db/iterations.js";
import { engineFaultWords } from "../play/faults.js";
import { outcomeText } from "../spsa/outcome-text.js";
import { progressBar } from "../core/progress-bar.js";
import { formatDuration } from "../core/duration.js";

/** The iteration counters the progress line shows: its results are plus-vs-minus or (reference mode) both sides' against the reference. */
export interface IterationCounts extends OutcomeColumns {
  iterationNumber: number;
  targetGames: number;
  gamesPlayed: number;
  faults: number;
  /** Time losses scored for delays outside the engines (a busy machine), plus and minus. */
  delayLosses: number;
  /** Games replayed for such delays, and pairs that ran out of replays. */
  replays: number;
  replayLimitPairs: number;
}

/**
 * `iteration 3/100 [#######.......] 24/64 games  +9 -8 =7  31.2 games/min  ETA 1m17s` (outcomeText's results).
 * Speed is measured from `sinceMs` (when this process started watching) and `baseGames`.
 */
export function formatProgress(counts: IterationCounts, maxIterations: number, rate: { sinceMs: number; baseGames: number; nowMs: number }): string {
  const minutes = (rate.nowMs - rate.sinceMs) / 60_000;
  const perMinute = minutes > 0 ? (counts.gamesPlayed - rate.baseGames) / minutes : 0;
  const remaining = counts.targetGames - counts.gamesPlayed;
  const eta = perMinute > 0 ? formatDuration((remaining / perMinute) * 60) : "?";
  const faults = (counts.faults > 0 ? `  faults ${counts.faults}` : "") + (counts.delayLosses + counts.replays > 0 ? `  delays ${counts.delayLosses} lost, ${counts.replays} replayed` : "");
  return (
    `iteration ${counts.iterationNumber}/${maxIterations} ${progressBar(counts.gamesPlayed, counts.targetGames)} ${counts.gamesPlayed}/${counts.targetGames} games  ` +
    `${outcomeText(outcomeOf(counts))}  ${perMinute.toFixed(1)} games/min  ETA ${eta}${faults}`
  );
}

/**
 * The master's warning once more than a quarter of an iteration's games were lost to engine
 * faults or to delays outside the engines; both kinds are named, since the remedies differ
 * (fix the engine, or give the workers' games more CPU).
 */
export function faultWarning(counts: IterationCounts): string | undefined {
  const { gamesPlayed: games, faults, delayLosses, replays, replayLimitPairs } = counts;
  if (games < 4 || faults + delayLosses <= games / 4) return undefined;
  const limit = replayLimitPairs > 0 ? `, ${replayLimitPairs} pairs out of replays` : "";
  const delays =
    delayLosses + replays > 0
      ? `; delays outside the engines: ${delayLosses} time losses scored, ${replays} games replayed${limit} (a busy machine: lower the workers' -c or their other load)`
      : "";
  return `warning: iteration ${counts.iterationNumber} has ${faults} engine faults in ${games} games (${engineFaultWords()})${delays}; see spsa status`;
}
