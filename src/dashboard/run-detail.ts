import type postgres from "postgres";
import { COUNTER_KEYS } from "../db/fault-columns.js";
import { latestFaultedGames, type FaultedGameSummary } from "../db/faulted-games.js";
import { readPlayedWith } from "../db/iterations.js";
import {
  eloBuckets,
  faultyIterations,
  gamesPerBucket,
  verificationResults,
  type EloBucket,
  type RunRecord,
  type VerificationResult,
} from "../db/run-status.js";
import type { WinDrawLoss } from "../types/engines.js";
import { appliedGamesPerBucket } from "../db/option-progress.js";
import { batchElo, finiteOrNull, type EloPoint } from "../status/batch-elo.js";
import { eloFromPentanomial, shownError } from "../stats/elo.js";
import { iterationNoise } from "../spsa/adaptive.js";
import { describeLimits } from "../play/time-control.js";
import { mostMoved, parameterRows, readRunStatus, type ParameterStatus, type RunStatus } from "../status/snapshot.js";
import { optionRunConfig, publicConfig } from "./public-config.js";
import { gainLines, optionPilotLine } from "../status/render.js";
import { jsonInterval, type JsonInterval } from "../status/gain-status.js";
import { completedGainIterations, playedGainBlocks } from "../db/gain-blocks.js";
import { gainSeries } from "../spsa/gain-series.js";
import { DEFAULT_GAIN_OPTIONS } from "../spsa/gain-so-far.js";
import { LEGEND, type LegendEntry } from "../status/legend.js";
import type { IterationSettings, PlayedWith } from "../types/config.js";

/** Points per chart: enough for a smooth line, few enough for a 10,000-iteration run. */
export const CHART_POINTS = 400;

/** Charts the page draws at once: a larger run's are chosen (the most moved, or a search), a page of them at a time. */
export const CHARTS_PER_PAGE = 24;

/** Parameters a request may chart at once. */
export const MAX_CHARTS = 2 * CHARTS_PER_PAGE;

/** What changes as a run plays, on the run page's first load and in each refresh. */
interface RunProgress {
  /** The page's charts (status.parameters) with their history; in a refresh only the points after `since`. */
  status: RunStatus;
  /**
   * Per iteration (or group of iterations); a UCI-option run's per window of eloWindowGames games
   * of its applied batches.
   * In a refresh of a UCI-option run only the windows from the one holding batch `since` + 1 on
   * (they replace the page's from there).
   */
  elo: EloPoint[];
  /**
   * Games per minute over the run, in buckets of `bucketSeconds` (rateBucketSeconds), each point at
   * its start in seconds since the run's; empty buckets are 0.
   */
  gamesRate: { bucketSeconds: number; points: { from: number; games: number; perMinute: number }[] };
  /**
   * The latest iterations with engine faults: a row per iteration, a column per counter and engine
   * (the reference's in reference mode only).
   */
  faults: { headers: string[]; rows: number[][] };
  /** spsa_verification_result rows, with their limits in words (limits_text). */
  verifications: (VerificationResult & { limits_text: string })[];
  /** The latest kept games an engine fault decided (spsa export --faulted has their moves). */
  faultedGames: FaultedGameSummary[];
  /**
   * A UCI-option run's curvature pilot, as `spsa status` says it (its batches are not in the Elo
   * chart); null without one.
   */
  optionPilot: string | null;
  /**
   * A run's Elo gained so far and, while it holds, the stop rule's line, as `spsa status`
   * says them (docs/gain-so-far.md); empty without a reading.
   */
  gain: string[];
  /**
   * A UCI-option run's gain over the run for its chart: the reading at each gain block's end
   * (`at` games), at most CHART_POINTS of them (src/spsa/gain-series.ts); in a refresh only those
   * after the page's last (`?gain=`). Empty for a run without blocks.
   */
  gainSeries: GainChartPoint[];
  /**
   * Where the next refresh starts (`?since=`): the last history point, θ after this many applied
   * batches (UCI-option mode) or completed iterations.
   */
  cursor: number;
}

/** The gain after `at` games of the run with its 95 % interval (an infinite end null), from `games` gain games. */
export type GainChartPoint = { at: number; games: number } & JsonInterval;

/** Everything the run page shows, on its first load. */
export interface RunDetail extends RunProgress {
  eloWindowGames: number | null;
  config: Record<string, unknown>;
  /** What the latest iteration was played with, without its per-parameter settings (the charts carry theirs). */
  settings: (Omit<IterationSettings, "parameters" | "stepScale"> & Pick<PlayedWith, "timelowMs" | "timehighMs">) | null;
  /**
   * Every parameter's name and move in steps (by name), from which the page picks its charts (a search, pages of
   * the most moved); null when status.parameters holds them all.
   */
  parameterIndex: { names: string[]; steps: (number | null)[] } | null;
  /** What the page's words mean: the legend of spsa status --explain (src/status/legend.ts). */
  legend: readonly LegendEntry[];
}

/** What changed since the page's last look (`since`): a refresh's answer, a few kilobytes whatever the run's size. */
export interface RunUpdate extends RunProgress {
  since: number;
}

/** Kept faulted games listed on the run page. */
const FAULTED_GAMES_LISTED = 20;

/**
 * The run page's first load: its charts are every parameter, or on a larger run the CHARTS_PER_PAGE
 * that moved most, with the index to choose others.
 */
export async function readRunDetail(sql: postgres.Sql, run: RunRecord): Promise<RunDetail> {
  const status = await readRunStatus(sql, run, { samples: CHART_POINTS, listed: CHARTS_PER_PAGE });
  const [progress, played] = await Promise.all([
    readProgress(sql, run, status, undefined),
    readPlayedWith(sql, { runId: run.id }),
  ]);
  const index = status.parameterSummary.listed === "all" ? null : parameterRows(run, played?.settings ?? null);
  return {
    ...progress,
    eloWindowGames: status.eloWindows?.windowGames ?? null,
    config:
      status.perturbations && !status.optionPilot
        ? optionRunConfig(publicConfig(run.config))
        : publicConfig(run.config),
    settings: played ? shownSettings(played) : null,
    parameterIndex: index && { names: index.map((p) => p.name), steps: index.map((p) => p.steps) },
    legend: LEGEND,
  };
}

/**
 * A refresh of the run page: the charted parameters' new points, the gain's after `gainAfter`
 * games (the page's last), and what else changed since `since`.
 */
export async function readRunUpdate(
  sql: postgres.Sql,
  run: RunRecord,
  since: number,
  charts: readonly string[],
  gainAfter?: number,
): Promise<RunUpdate> {
  const status = await readRunStatus(sql, run, {
    samples: CHART_POINTS,
    only: charts.slice(0, MAX_CHARTS),
    historyAfter: since,
  });
  return { ...(await readProgress(sql, run, status, since, gainAfter)), since };
}

/** The charts the page chose (a search, a page of the most moved): these parameters with their whole history. */
export async function readRunCharts(
  sql: postgres.Sql,
  run: RunRecord,
  names: readonly string[],
): Promise<ParameterStatus[]> {
  const status = await readRunStatus(sql, run, { samples: CHART_POINTS, only: names.slice(0, MAX_CHARTS) });
  return mostMoved(status.parameters);
}

async function readProgress(
  sql: postgres.Sql,
  run: RunRecord,
  status: RunStatus,
  since: number | undefined,
  gainAfter?: number,
): Promise<RunProgress> {
  const bucket = Math.max(1, Math.ceil(status.iteration.completed / CHART_POINTS));
  // A UCI-option run: its batches in windows, and its games by when they were reported (its one
  // iteration completes at the end).
  const options = status.perturbations !== null;
  // From its first iteration's start: a run's games begin there.
  const start = status.games.startedAt === null ? run.createdAt : new Date(status.games.startedAt);
  const spanSeconds = ((run.completedAt ?? new Date()).getTime() - start.getTime()) / 1000;
  const rateBucket = rateBucketSeconds(spanSeconds, options ? 0 : status.iteration.completed);
  const [buckets, windows, rates, faults, verifications, faultedGames, gainBlocks] = await Promise.all([
    options ? [] : eloBuckets(sql, run.id, bucket, run.reference === null),
    options ? batchElo(sql, run.id, { since }) : undefined,
    (options ? appliedGamesPerBucket : gamesPerBucket)(sql, run.id, start, rateBucket),
    faultyIterations(sql, run.id, 20),
    verificationResults(sql, run.name),
    latestFaultedGames(sql, run.id, FAULTED_GAMES_LISTED),
    // A UCI-option run's gain blocks, a build-mode run's completed gain iterations.
    (options ? playedGainBlocks : completedGainIterations)(sql, run.id),
  ]);
  // The reference engine's faults: reference mode's, and the θ₀ of a UCI-option run's curvature pilot.
  const counters = COUNTER_KEYS.filter(
    (column) => column.role !== "reference" || status.reference !== null || status.optionPilot !== null,
  );
  return {
    status,
    elo:
      windows?.windows ??
      buckets.map((b) => ({
        first: b.first,
        last: b.last,
        elo: b.elo,
        error: finiteOrNull(eloError(b)),
        games: b.games,
      })),
    gamesRate: { bucketSeconds: rateBucket, points: ratePoints(rates, rateBucket, spanSeconds) },
    faults: {
      headers: ["iteration", ...counters.map((column) => column.words), "replays", "pairs out of replays"],
      rows: faults.map((row) => [
        row.iteration,
        ...counters.map((column) => row[column.key]),
        row.replays,
        row.replayLimitPairs,
      ]),
    },
    verifications: verifications.map((v) => ({ ...v, limits_text: describeLimits(v.limits) })),
    faultedGames,
    optionPilot: status.optionPilot && optionPilotLine(status.optionPilot),
    gain: status.gain ? gainLines(status.gain) : [],
    gainSeries: gainSeries(gainBlocks, DEFAULT_GAIN_OPTIONS, { after: gainAfter, points: CHART_POINTS }).map((p) => ({
      at: p.at,
      games: p.games,
      ...jsonInterval(p.gain),
    })),
    cursor: status.perturbations?.thetaApplied ?? status.iteration.completed,
  };
}

/** Widths of the games-rate chart's buckets: a minute up to a day. */
const RATE_BUCKETS = [60, 300, 900, 3600, 4 * 3600, 86_400];

/** Buckets the games-rate chart has at most. */
const RATE_POINTS = 60;

/**
 * The games-rate chart's bucket for a run `spanSeconds` long: the narrowest of RATE_BUCKETS that
 * gives at most RATE_POINTS bars and, counting games by when their iteration completed (build
 * mode, `iterations` complete), spans two iterations, so a bar is not all or nothing.
 */
export function rateBucketSeconds(spanSeconds: number, iterations: number): number {
  const least = Math.max(spanSeconds / RATE_POINTS, iterations > 0 ? (2 * spanSeconds) / iterations : 0);
  return RATE_BUCKETS.find((width) => width >= least) ?? RATE_BUCKETS.at(-1)!;
}

/**
 * Every bucket from the run's start to its end with its games per minute (the last one over its
 * part that has passed).
 */
function ratePoints(
  rows: { bucket: number; games: number }[],
  bucketSeconds: number,
  spanSeconds: number,
): RunProgress["gamesRate"]["points"] {
  const last = Math.max(0, Math.floor(spanSeconds / bucketSeconds), ...rows.map((r) => r.bucket));
  return Array.from({ length: last + 1 }, (_, bucket) => {
    const games = rows.find((r) => r.bucket === bucket)?.games ?? 0;
    const seconds = Math.max(1, Math.min(bucketSeconds, spanSeconds - bucket * bucketSeconds));
    return { from: bucket * bucketSeconds, games, perMinute: (games * 60) / seconds };
  });
}

/**
 * The 95 % half width of a bucket's Elo: from its pentanomial counts, or in reference mode
 * from the noise of θ+'s Elo against the reference minus θ−'s (both sides' results summed).
 */
function eloError(bucket: EloBucket): number {
  if (!bucket.reference) return shownError(eloFromPentanomial(bucket.pairs).error, bucket.pairs) ?? Number.NaN;
  const result = (side: WinDrawLoss) => ({ plusWins: side.wins, minusWins: side.losses, draws: side.draws });
  const { plus, minus } = bucket.reference;
  if ([plus, minus].some((side) => side.wins + side.draws + side.losses === 0)) return Number.NaN;
  return 1.96 * Math.sqrt(iterationNoise({ plus: result(plus), minus: result(minus) }));
}

/** The run page's settings: gains and time per move or node limit, not the per-parameter ones. */
function shownSettings({ settings, timelowMs, timehighMs }: PlayedWith): NonNullable<RunDetail["settings"]> {
  const { parameters: _, stepScale: __, ...shown } = settings;
  return { ...shown, timelowMs, timehighMs };
}
