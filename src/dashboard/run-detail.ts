import type postgres from "postgres";
import { COUNTER_KEYS } from "../db/fault-columns.js";
import { latestFaultedGames, type FaultedGameSummary } from "../db/faulted-games.js";
import { eloBuckets, faultyIterations, gamesPerHour, latestSettings, verificationResults, type EloBucket, type RunRecord, type SideCounts, type VerificationResult } from "../db/run-status.js";
import { appliedGamesPerHour } from "../db/perturbations.js";
import { batchElo, finiteOrNull, type EloPoint } from "../status/batch-elo.js";
import { eloFromPentanomial } from "../stats/elo.js";
import { iterationNoise } from "../spsa/adaptive.js";
import { describeLimits } from "../play/time-control.js";
import { readRunStatus, type RunStatus } from "../status/snapshot.js";
import { publicConfig } from "./public-config.js";
import type { IterationSettings } from "../types/config.js";

/** Points per chart: enough for a smooth line, few enough for a 10,000-iteration run. */
export const CHART_POINTS = 400;

/** Everything the run page shows, in one response. */
export interface RunDetail {
  status: RunStatus;
  /** Per iteration (or group of iterations); a UCI-option run's per window of eloWindowGames games of its applied batches. */
  elo: EloPoint[];
  eloWindowGames: number | null;
  gamesPerHour: { hour: string; games: number }[];
  /** The latest iterations with engine faults: a row per iteration, a column per counter and engine (the reference's in reference mode only). */
  faults: { headers: string[]; rows: number[][] };
  config: Record<string, unknown>;
  settings: IterationSettings | null;
  /** spsa_verification_result rows, with their limits in words (limits_text). */
  verifications: (VerificationResult & { limits_text: string })[];
  /** The latest kept games an engine fault decided (spsa export --faulted has their moves). */
  faultedGames: FaultedGameSummary[];
}

/** Kept faulted games listed on the run page. */
const FAULTED_GAMES_LISTED = 20;

export async function readRunDetail(sql: postgres.Sql, run: RunRecord): Promise<RunDetail> {
  const status = await readRunStatus(sql, run, { samples: CHART_POINTS });
  const bucket = Math.max(1, Math.ceil(status.iteration.completed / CHART_POINTS));
  // A UCI-option run: its batches in windows, and its games by when they were reported (its one iteration completes at the end).
  const options = status.perturbations !== null;
  const [buckets, windows, hours, faults, settings, verifications, faultedGames] = await Promise.all([
    options ? [] : eloBuckets(sql, run.id, bucket),
    options ? batchElo(sql, run.id) : undefined,
    options ? appliedGamesPerHour(sql, run.id) : gamesPerHour(sql, run.id),
    faultyIterations(sql, run.id, 20),
    latestSettings(sql, run.id),
    verificationResults(sql, run.name),
    latestFaultedGames(sql, run.id, FAULTED_GAMES_LISTED),
  ]);
  const counters = COUNTER_KEYS.filter((column) => column.side !== "reference" || status.reference !== null);
  return {
    status,
    elo: windows?.windows ?? buckets.map((b) => ({ first: b.first, last: b.last, elo: b.elo, error: finiteOrNull(eloError(b)), games: b.games })),
    eloWindowGames: windows?.windowGames ?? null,
    gamesPerHour: hours.map((h) => ({ hour: h.hour.toISOString(), games: h.games })),
    faults: {
      headers: ["iteration", ...counters.map((column) => column.words), "replays", "pairs out of replays"],
      rows: faults.map((row) => [row.iteration, ...counters.map((column) => row[column.key]), row.replays, row.replayLimitPairs]),
    },
    config: publicConfig(run.config),
    settings,
    verifications: verifications.map((v) => ({ ...v, limits_text: describeLimits(v.limits) })),
    faultedGames,
  };
}

/**
 * The 95 % half width of a bucket's Elo: from its pentanomial counts, or in reference mode
 * from the noise of θ+'s Elo against the reference minus θ−'s (both sides' results summed).
 */
function eloError(bucket: EloBucket): number {
  if (!bucket.reference) return eloFromPentanomial(bucket.pairs).error;
  const result = (side: SideCounts) => ({ plusWins: side.wins, minusWins: side.losses, draws: side.draws });
  const { plus, minus } = bucket.reference;
  if ([plus, minus].some((side) => side.wins + side.draws + side.losses === 0)) return Number.NaN;
  return 1.96 * Math.sqrt(iterationNoise({ plus: result(plus), minus: result(minus) }));
}
