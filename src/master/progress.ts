import { outcomeOf, type OutcomeColumns } from "../db/iterations.js";
import { delayRemedy, engineFaultWords } from "../play/faults.js";
import { plural } from "../core/plural.js";
import { outcomeText } from "../spsa/outcome-text.js";
import { progressBar } from "../core/progress-bar.js";
import { formatDuration } from "../core/duration.js";

/** The iteration counters the progress line shows: its results are plus-vs-minus or (reference mode) both sides' against the reference. */
export interface IterationCounts extends OutcomeColumns {
  iterationNumber: number;
  targetGames: number;
  gamesPlayed: number;
  /** Played, plus those of the batches in flight: 0 while no worker has claimed any. */
  gamesClaimed: number;
  faults: number;
  /** Time losses scored for delays outside the engines (a busy machine), plus and minus. */
  delayLosses: number;
  /** Games replayed for such delays, and pairs that ran out of replays. */
  replays: number;
  replayLimitPairs: number;
}

/** The window of reports the master's rate is measured over. */
export const RATE_WINDOW_MS = 10 * 60_000;

/**
 * Games per minute as a master sees them, kept across its iterations: measured from its first
 * look (or the oldest report in the last RATE_WINDOW_MS) to its latest report, not to now, so the
 * rate holds still between reports; the ETA from it counts down between them instead of growing.
 */
export class GameRate {
  /** Games seen so far, at the moment they were seen: the first look, then each report that added games. */
  private samples: { ms: number; games: number }[] = [];

  /** `played` games newly seen at `nowMs` (0: none); the first call only starts the clock. */
  add(played: number, nowMs: number): void {
    const last = this.samples.at(-1);
    if (last && played <= 0) return;
    this.samples.push({ ms: nowMs, games: (last?.games ?? 0) + Math.max(0, played) });
    while (this.samples.length > 2 && this.samples[1]!.ms < nowMs - RATE_WINDOW_MS) this.samples.shift();
  }

  /** null before a second look with games. */
  perMinute(): number | null {
    const first = this.samples[0];
    const last = this.samples.at(-1);
    if (!first || !last || last.ms <= first.ms) return null;
    return ((last.games - first.games) * 60_000) / (last.ms - first.ms);
  }

  /** Seconds to play `games` more: at the rate of the latest report, less the time since it (not below 0); null without a rate. */
  etaSeconds(games: number, nowMs: number): number | null {
    const rate = this.perMinute();
    if (rate === null || rate <= 0) return null;
    const sinceReport = (nowMs - this.samples.at(-1)!.ms) / 1000;
    return Math.max(0, (games / rate) * 60 - sinceReport);
  }
}

/**
 * `iteration 3/100 [#######.......] 24/64 games  +9 -8 =7  31.2 games/min  iteration ETA 1m17s  run ETA 2h05m`
 * (outcomeText's results); the run's ETA counts the iterations after this one at its target.
 * Before any worker claimed its games: `… waiting for a worker to claim its games (start one: compete --spsa)`.
 */
export function formatProgress(counts: IterationCounts, maxIterations: number, rate: GameRate, nowMs: number): string {
  const remaining = counts.targetGames - counts.gamesPlayed;
  const later = Math.max(0, maxIterations - counts.iterationNumber) * counts.targetGames;
  const speed = speedText(counts, rate, nowMs, { iteration: remaining, run: remaining + later });
  const faults = (counts.faults > 0 ? `  faults ${counts.faults}` : "") + (counts.delayLosses + counts.replays > 0 ? `  delays ${counts.delayLosses} lost, ${counts.replays} replayed` : "");
  return (
    `iteration ${counts.iterationNumber}/${maxIterations} ${progressBar(counts.gamesPlayed, counts.targetGames)} ${counts.gamesPlayed}/${counts.targetGames} games  ` +
    `${outcomeText(outcomeOf(counts))}  ${speed}${faults}`
  );
}

/**
 * A UCI-option run's line, whose one iteration carries the run's games:
 * `run tune: 120/800 games, +9 -8 =7 (plus vs minus)  16.8 games/min  run ETA 40s`.
 */
export function formatOptionProgress(runName: string, counts: Pick<IterationCounts, "targetGames" | "gamesPlayed" | "gamesClaimed" | "plusWins" | "minusWins" | "draws">, rate: GameRate, nowMs: number): string {
  const speed = speedText(counts, rate, nowMs, { run: counts.targetGames - counts.gamesPlayed });
  return `run ${runName}: ${counts.gamesPlayed}/${counts.targetGames} games, +${counts.plusWins} -${counts.minusWins} =${counts.draws} (plus vs minus)  ${speed}`;
}

/** "16.8 games/min  iteration ETA 1m17s  run ETA 2h05m" for the games left of each, or that no worker has claimed any yet. */
function speedText(counts: Pick<IterationCounts, "gamesPlayed" | "gamesClaimed">, rate: GameRate, nowMs: number, left: { iteration?: number; run: number }): string {
  if (counts.gamesClaimed === 0 && counts.gamesPlayed === 0) return "waiting for a worker to claim its games (start one: compete --spsa)";
  const eta = (games: number) => {
    const seconds = rate.etaSeconds(games, nowMs);
    return seconds === null ? "?" : formatDuration(seconds);
  };
  const perMinute = rate.perMinute();
  const iteration = left.iteration === undefined ? "" : `  iteration ETA ${eta(left.iteration)}`;
  return `${perMinute === null ? "?" : perMinute.toFixed(1)} games/min${iteration}  run ETA ${eta(left.run)}`;
}

/**
 * The master's warning once more than a quarter of an iteration's games were lost to engine
 * faults or to delays outside the engines; both kinds are named, since the remedies differ
 * (fix the engine, or give the workers' games more CPU).
 */
export function faultWarning(counts: IterationCounts): string | undefined {
  const { gamesPlayed: games, faults, delayLosses, replays, replayLimitPairs } = counts;
  if (games < 4 || faults + delayLosses <= games / 4) return undefined;
  const parts: string[] = [];
  if (faults > 0) parts.push(`${plural(faults, "engine fault")} in ${plural(games, "game")} (${engineFaultWords()})`);
  if (delayLosses + replays > 0) {
    const limit = replayLimitPairs > 0 ? `, ${plural(replayLimitPairs, "pair")} out of replays` : "";
    parts.push(
      `delays outside the engines${faults > 0 ? "" : ` in ${plural(games, "game")}`}: ${plural(delayLosses, "time loss", "time losses")} scored, ` +
        `${plural(replays, "game")} replayed${limit} (a busy machine: ${delayRemedy(undefined)})`,
    );
  }
  return `warning: iteration ${counts.iterationNumber}: ${parts.join("; ")}; see spsa status`;
}
