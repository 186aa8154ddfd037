import { outcomeOf, type OutcomeColumns } from "../db/iterations.js";
import { delayRemedy, describeFaultKinds } from "../play/faults.js";
import type { EngineFaultCounter } from "../types/faults.js";
import { plural } from "../core/plural.js";
import { outcomeText } from "../spsa/outcome-text.js";
import { progressBar } from "../core/progress-bar.js";
import { rateAndEtas } from "../core/duration.js";
import { etaSeconds, gamesPerMinute, type RunRate } from "../db/run-status.js";
import { WAITING_FOR_WORKERS } from "../verification/verification.js";

/**
 * The iteration counters the progress line shows: its results are plus-vs-minus or (reference mode)
 * both sides' against the reference.
 */
export interface IterationCounts extends OutcomeColumns {
  iterationNumber: number;
  targetGames: number;
  gamesPlayed: number;
  /** Played, plus those of the batches in flight: 0 while no worker has claimed any. */
  gamesClaimed: number;
  faults: number;
  /** The same by kind: crashes, the engines' own time losses, illegal moves. */
  faultKinds: Record<EngineFaultCounter, number>;
  /** Time losses scored for delays outside the engines (a busy machine), plus and minus. */
  delayLosses: number;
  /** Games replayed for such delays, and pairs that ran out of replays. */
  replays: number;
  replayLimitPairs: number;
}

/**
 * `iteration 3/100 [#######.......] 24/64 games  +9 -8 =7  31.2 games/min  iteration ETA 1m17s  run ETA 2h05m`
 * (outcomeText's results, a curvature pilot's `vs θ₀`); the run's ETA counts the iterations after this
 * one at its target.
 * Before any worker claimed its games: `… waiting for a worker to claim its games (start one: compete --spsa)`.
 * The rate is the run's, from its reports (RunRate), so it is right with iterations in flight and after a restart.
 */
export function formatProgress(
  counts: IterationCounts,
  maxIterations: number,
  rate: RunRate,
  opponent: "reference" | "θ₀" = "reference",
): string {
  const remaining = counts.targetGames - counts.gamesPlayed;
  const later = Math.max(0, maxIterations - counts.iterationNumber) * counts.targetGames;
  const speed = speedText(counts, rate, { iteration: remaining, run: remaining + later });
  const faults =
    (counts.faults > 0 ? `  faults ${counts.faults}` : "") +
    (counts.delayLosses + counts.replays > 0 ? `  delays ${counts.delayLosses} lost, ${counts.replays} replayed` : "");
  return (
    `iteration ${counts.iterationNumber}/${maxIterations} ` +
    `${progressBar(counts.gamesPlayed, counts.targetGames)} ${counts.gamesPlayed}/${counts.targetGames} games  ` +
    `${outcomeText(outcomeOf(counts), opponent)}  ${speed}${faults}`
  );
}

/**
 * A UCI-option run's line, whose one iteration carries the run's games:
 * `run tune: 120/800 games, +9 -8 =7 (plus vs minus)  16.8 games/min  run ETA 40s`.
 */
export function formatOptionProgress(
  runName: string,
  counts: Pick<IterationCounts, "targetGames" | "gamesPlayed" | "gamesClaimed" | "plusWins" | "minusWins" | "draws">,
  rate: RunRate,
): string {
  const speed = speedText(counts, rate, { run: counts.targetGames - counts.gamesPlayed });
  return (
    `run ${runName}: ${counts.gamesPlayed}/${counts.targetGames} games, +${counts.plusWins} ` +
    `-${counts.minusWins} =${counts.draws} (plus vs minus)  ${speed}`
  );
}

/**
 * "16.8 games/min  iteration ETA 1m17s  run ETA 2h05m" for the games left of each, at the run's
 * rate as spsa status measures it (RunRate: counted down from the latest report), or that no
 * worker has claimed any yet.
 */
function speedText(
  counts: Pick<IterationCounts, "gamesPlayed" | "gamesClaimed">,
  rate: RunRate,
  left: { iteration?: number; run: number },
): string {
  if (counts.gamesClaimed === 0 && counts.gamesPlayed === 0) return WAITING_FOR_WORKERS;
  const etas = [
    ...(left.iteration === undefined ? [] : [{ name: "iteration", seconds: etaSeconds(left.iteration, rate) }]),
    { name: "run", seconds: etaSeconds(left.run, rate) },
  ];
  return rateAndEtas(gamesPerMinute(rate.recentGames, rate.recentSeconds), etas);
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
  if (faults > 0)
    parts.push(
      `${plural(faults, "engine fault")} in ${plural(games, "game")} (${describeFaultKinds(counts.faultKinds)})`,
    );
  if (delayLosses + replays > 0) {
    const limit = replayLimitPairs > 0 ? `, ${plural(replayLimitPairs, "pair")} out of replays` : "";
    parts.push(
      `delays outside the engines${faults > 0 ? "" : ` in ${plural(games, "game")}`}: ` +
        `${plural(delayLosses, "time loss", "time losses")} scored, ` +
        `${plural(replays, "game")} replayed${limit} (a busy machine: ${delayRemedy(undefined)})`,
    );
  }
  return `warning: iteration ${counts.iterationNumber}: ${parts.join("; ")}; see spsa status`;
}
