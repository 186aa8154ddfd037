import type { Sql } from "../postgres/sql.js";
import { selectAll, type Fragment, type RowOf } from "./columns.js";
import {
  delayLossSum,
  engineFaultKinds,
  engineFaultSum,
  selectCounters,
  type CounterColumns,
} from "./fault-columns.js";
import { spsaRun, type spsaIteration } from "./schema.js";
import { gainIteration } from "./iterations.js";
import { gainPlanOf, type BuildGainPlan } from "../spsa/gain-block-plan.js";
import type { StoredRunConfig } from "../types/config.js";
import type { PlusMinus, ReferenceResults } from "../types/engines.js";
import type { Pentanomial, PlayLimits } from "../types/play.js";
import type { Values } from "../types/spsa.js";
import type { EngineFaultCounter } from "../types/faults.js";

/**
 * Read-only SQL of `spsa status` and the dashboard. Every query is bounded by an index, so a
 * run of 10,000 iterations reads a few hundred rows at most except where noted (see
 * bench/status-bench.mjs): the unique (run_id, iteration_number) index for a run's
 * iterations, spsa_batch_reported for recent games.
 */

/**
 * The window over which games per minute are measured, for a run `ageSeconds` old: ten minutes,
 * growing with the run to a sixth of its age up to an hour, so an old run's rate (and the ETA
 * from it) does not swing with every batch.
 */
export function rateWindowMinutes(ageSeconds: number): number {
  return Math.min(60, Math.max(10, Math.round(ageSeconds / 360)));
}

/** Batches reported in the rate window (of the table aliased b). */
const IN_RATE_WINDOW = (sql: Sql, minutes: number) =>
  sql`b.status = 'done' and b.reported_at > now() - make_interval(mins => ${minutes})`;

/**
 * How long the rate window has lasted for the batches aggregated (alias b), in seconds: from the
 * window's start, or the first of them claimed inside it (a run, a resumed run or a worker younger
 * than the window, so a run a minute old is not rated over ten), to now, or to the last of them
 * reported (`to: "last report"`: a rate that holds still between reports).
 */
const RATE_SECONDS = (sql: Sql, minutes: number, to: "now" | "last report" = "now") =>
  sql`extract(epoch from ${to === "now" ? sql`now()` : sql`max(b.reported_at)`}
    - greatest(now() - make_interval(mins => ${minutes}), min(b.claimed_at)))::float8`;

/** A rate measured over less than this is no rate (one batch claimed and reported within milliseconds). */
const LEAST_RATE_SECONDS = 1;

/** Games per minute of `games` played over `seconds`; 0 with too little time to measure. */
export function gamesPerMinute(games: number, seconds: number): number {
  return seconds >= LEAST_RATE_SECONDS ? (games * 60) / seconds : 0;
}

export type RunRecord = typeof spsaRun.$inferSelect;

const RUN_COLUMNS = (sql: Sql) => selectAll(sql, spsaRun, "r");

/** A verification's carrier run holds only its games; it is shown with its verification, not as a run. */
const NOT_CARRIER = (sql: Sql) => sql`r.config->>'verifies' is null`;

/** The latest iteration's start, or the run's creation: when a run last did something. */
const LAST_ACTIVITY = (sql: Sql) => sql`coalesce(
  (
    select i.created_at
    from spsa_iteration i
    where i.run_id = r.id
    order by i.iteration_number desc
    limit 1
  ),
  r.created_at)`;

/** The named run, or without a name the tuning run that started an iteration last. */
export async function findRun(sql: Sql, name: string | undefined): Promise<RunRecord | undefined> {
  const [row] =
    name === undefined
      ? await sql<RunRecord[]>`
          select ${RUN_COLUMNS(sql)}
          from spsa_run r
          where ${NOT_CARRIER(sql)}
          order by ${LAST_ACTIVITY(sql)} desc, r.id desc
          limit 1`
      : await sql<RunRecord[]>`
          select ${RUN_COLUMNS(sql)}
          from spsa_run r
          where r.name = ${name}`;
  return row;
}

export type RunListRow = RowOf<typeof spsaRun, "name" | "status" | "createdAt"> & {
  /**
   * The iteration being played, as the master's progress line names it: the oldest one not complete
   * (steps are applied in order, so it follows the completed ones), or the latest when none is open;
   * later ones opened ahead (docs/in-flight.md) are not counted. 0: none yet; null for a UCI-option
   * run, whose one iteration only carries its games.
   */
  iteration: number | null;
  completed: number;
  /**
   * The run's iterations as its stored config plans them (`[spsa] max_iterations`, and a
   * build-mode run's gain iterations: storedGainPlan); null when it has none.
   */
  maxIterations: number | null;
  /** Games played (reported and counted by the master), as spsa status's "games N done". */
  games: number;
  lastActivity: Date;
};

/** Every tuning run, most recently active first. */
export async function listRuns(sql: Sql): Promise<RunListRow[]> {
  const rows = await sql<(Omit<RunListRow, "maxIterations"> & { config: StoredRunConfig; options: boolean })[]>`
    select r.name,
      r.config,
      exists (select 1 from spsa_option_run o where o.run_id = r.id) as options,
      r.status,
      case
        when exists (select 1 from spsa_option_run o where o.run_id = r.id) then null
        when t.opened > t.completed then t.completed + 1
        else t.opened
      end as iteration,
      t.completed,
      t.games,
      r.created_at as "createdAt",
      ${LAST_ACTIVITY(sql)} as "lastActivity"
    from spsa_run r, lateral (
      select count(*)::int as opened,
        (count(*) filter (where i.status = 'complete'))::int as completed,
        coalesce(sum(i.games_played), 0)::int as games
      from spsa_iteration i
      where i.run_id = r.id
    ) t
    where ${NOT_CARRIER(sql)}
    order by "lastActivity" desc, r.id desc`;
  return rows.map(({ config, options, ...row }) => {
    const spsa = config.spsa as { maxIterations?: unknown } | undefined;
    const configured = typeof spsa?.maxIterations === "number" ? spsa.maxIterations : null;
    return { ...row, maxIterations: storedGainPlan(config, options)?.plan.iterations ?? configured };
  });
}

/**
 * A build-mode run's iterations as its stored config plans them (src/spsa/gain-block-plan.ts
 * gainPlanOf, as the master plans them: `[spsa] max_iterations` of games_per_iteration, the curvature pilot's first, the
 * gain iterations among them), with its games per iteration; undefined for a UCI-option run or a
 * config from before the gain keys.
 */
export function storedGainPlan(
  config: Record<string, unknown>,
  options: boolean,
): { plan: BuildGainPlan; gamesPerIteration: number } | undefined {
  const spsa = config.spsa as
    | {
        maxIterations?: unknown;
        gain?: { share?: unknown };
        adaptive?: { mode?: unknown; pilot?: unknown };
        reference?: unknown;
      }
    | undefined;
  const games = config.games as { gamesPerIteration?: unknown; batchSize?: unknown } | undefined;
  const [maxIterations, share, gamesPerIteration, batchSize] = [
    spsa?.maxIterations,
    spsa?.gain?.share,
    games?.gamesPerIteration,
    games?.batchSize,
  ];
  if (options || typeof maxIterations !== "number" || typeof share !== "number") return undefined;
  if (typeof gamesPerIteration !== "number" || typeof batchSize !== "number") return undefined;
  const { mode, pilot } = spsa?.adaptive ?? {};
  const plan = gainPlanOf({
    spsa: {
      maxIterations,
      gain: { share },
      adaptive: { mode: typeof mode === "string" ? mode : "", pilot: typeof pilot === "number" ? pilot : 0 },
      reference: typeof spsa?.reference === "string" ? spsa.reference : undefined,
    },
    games: { gamesPerIteration, batchSize },
  });
  return { plan, gamesPerIteration };
}

export interface RunTotals {
  iterations: number;
  completed: number;
  games: number;
  faults: number;
  /** The same by kind: crashes, the engines' own time losses, illegal moves. */
  faultKinds: Record<EngineFaultCounter, number>;
  /** Time losses scored for delays outside the engines, games replayed for them, pairs out of replays. */
  delayLosses: number;
  replays: number;
  replayLimitPairs: number;
  /** Batches given back by workers that refused the binaries as unsigned or not signed by a key they trust. */
  binariesRefused: number;
  /**
   * Games reported for this run in the rate window, and over how many seconds of it they were
   * played, up to the last report (RATE_SECONDS).
   */
  recentGames: number;
  recentSeconds: number;
  /** Seconds since the run's last report in the window; null: none in it. */
  sinceReport: number | null;
  firstStarted: Date | null;
  lastCompleted: Date | null;
}

/**
 * Counts over all the run's iterations (one index range scan of small columns), and its games over
 * the last `rateMinutes`.
 */
export async function runTotals(sql: Sql, runId: number, rateMinutes: number): Promise<RunTotals> {
  const [row] = await sql<RunTotals[]>`
    select t.*, w."recentGames", coalesce(w."recentSeconds", 0)::float8 as "recentSeconds", w."sinceReport"
    from (
      select count(*)::int as iterations,
        (count(*) filter (where status = 'complete'))::int as completed,
        coalesce(sum(games_played), 0)::int as games,
        coalesce(sum(${engineFaultSum(sql)}), 0)::int as faults,
        ${engineFaultKinds(sql, true)} as "faultKinds",
        coalesce(sum(${delayLossSum(sql)}), 0)::int as "delayLosses",
        coalesce(sum(replays), 0)::int as replays,
        coalesce(sum(replay_limit_pairs), 0)::int as "replayLimitPairs",
        coalesce(sum(binaries_refused), 0)::int as "binariesRefused",
        min(created_at) as "firstStarted",
        max(completed_at) as "lastCompleted"
      from spsa_iteration
      where run_id = ${runId}
    ) t,
    (${RUN_RATE(sql, runId, rateMinutes)}) w`;
  if (!row) throw new Error("an aggregate returned no row");
  return row;
}

/** A run's games over the last `minutes`: what RunTotals holds of them. */
export type RunRate = Pick<RunTotals, "recentGames" | "recentSeconds" | "sinceReport">;

/**
 * The games reported for the run in the rate window, over how long, to its latest report (through
 * the index of recent reports).
 */
const RUN_RATE = (sql: Sql, runId: number, minutes: number) => sql`
  select coalesce(sum(b.games), 0)::int as "recentGames",
    ${RATE_SECONDS(sql, minutes, "last report")} as "recentSeconds",
    extract(epoch from now() - max(b.reported_at))::float8 as "sinceReport"
  from spsa_batch b
  join spsa_iteration bi on bi.id = b.iteration_id
  where ${IN_RATE_WINDOW(sql, minutes)}
    and bi.run_id = ${runId}`;

/** The run's games per minute as spsa status measures them, for the master's progress line: one small query. */
export async function runRate(sql: Sql, runId: number, minutes: number): Promise<RunRate> {
  const [row] = await sql<RunRate[]>`
    select w."recentGames", coalesce(w."recentSeconds", 0)::float8 as "recentSeconds", w."sinceReport"
    from (${RUN_RATE(sql, runId, minutes)}) w`;
  if (!row) throw new Error("an aggregate returned no row");
  return row;
}

/**
 * Seconds to play `games` at the run's rate (RunRate, measured to its latest report): counted
 * down from that report, so the ETA does not grow while one watches; once that runs out (reports
 * are late), at the rate measured to now. null without a rate.
 */
export function etaSeconds(games: number, { recentGames, recentSeconds, sinceReport }: RunRate): number | null {
  const perMinute = gamesPerMinute(recentGames, recentSeconds);
  if (perMinute <= 0) return null;
  const fromReport = (games / perMinute) * 60 - (sinceReport ?? 0);
  if (fromReport >= 0) return fromReport;
  return (games / gamesPerMinute(recentGames, recentSeconds + (sinceReport ?? 0))) * 60;
}

export type IterationSummary = RowOf<
  typeof spsaIteration,
  | "status"
  | "targetGames"
  | "gamesPlayed"
  | "gamesClaimed"
  | "plusWins"
  | "minusWins"
  | "draws"
  | "createdAt"
  | "completedAt"
> & {
  iteration: number;
  /** Reference mode: θ+'s and θ−'s results against the reference; null for plus against minus. */
  reference: ReferenceResults | null;
  pairs: Pentanomial;
  faults: number;
  /** The same by kind: crashes, the engines' own time losses, illegal moves. */
  faultKinds: Record<EngineFaultCounter, number>;
  delayLosses: number;
  replays: number;
  replayLimitPairs: number;
  /** The Elo the update used (capped), null until the iteration completes; a gain iteration's is θ's over θ₀. */
  elo: number | null;
  /** A gain iteration: θ against θ₀ on both sides, no step (docs/gain-so-far.md). */
  gain: boolean;
};

/**
 * Reference mode's results as JSON, `{plus: {wins, draws, losses}, minus: …}`, each column read
 * through `of` (e.g. summed).
 */
const REFERENCE_RESULTS = (sql: Sql, of: (column: string) => Fragment = (column) => sql`${sql(column)}`) => {
  const side = (name: PlusMinus) =>
    sql`json_build_object('wins', ${of(`ref_${name}_wins`)}, 'draws', ${of(`ref_${name}_draws`)},
      'losses', ${of(`ref_${name}_losses`)})`;
  return sql`json_build_object('plus', ${side("plus")}, 'minus', ${side("minus")})`;
};

const SUMMARY_COLUMNS = (sql: Sql) => sql`
  iteration_number as iteration,
  status,
  target_games as "targetGames",
  games_played as "gamesPlayed",
  games_claimed as "gamesClaimed",
  plus_wins as "plusWins",
  minus_wins as "minusWins",
  draws,
  case when reference_engine_sha256 is null then null else ${REFERENCE_RESULTS(sql)} end as reference,
  json_build_array(pairs_ll, pairs_ld, pairs_dd, pairs_dw, pairs_ww) as pairs,
  ${engineFaultSum(sql)}::int as faults,
  ${engineFaultKinds(sql)} as "faultKinds",
  ${delayLossSum(sql)}::int as "delayLosses",
  replays,
  replay_limit_pairs as "replayLimitPairs",
  elo_diff as elo,
  ${gainIteration(sql)} as gain,
  created_at as "createdAt",
  completed_at as "completedAt"`;

/** The run's last `count` iterations, newest first. */
export async function recentIterations(sql: Sql, runId: number, count: number): Promise<IterationSummary[]> {
  return sql<IterationSummary[]>`
    select ${SUMMARY_COLUMNS(sql)}
    from spsa_iteration
    where run_id = ${runId}
    order by iteration_number desc
    limit ${count}`;
}

/** The run's iteration `k`, through the unique index; undefined if there is none. */
export async function iterationSummary(sql: Sql, runId: number, k: number): Promise<IterationSummary | undefined> {
  const [row] = await sql<IterationSummary[]>`
    select ${SUMMARY_COLUMNS(sql)}
    from spsa_iteration
    where run_id = ${runId}
      and iteration_number = ${k}`;
  return row;
}

/**
 * The run's curvature pilot iterations (src/master/pilot.ts: of its first `pilots` iterations,
 * `[spsa] adapt_pilot`, those that played θ+ and θ− each against θ₀, recorded as a reference):
 * a few rows of the index's head. Not for a reference-mode run, whose iterations all have one.
 */
export async function pilotIterations(sql: Sql, runId: number, pilots: number): Promise<IterationSummary[]> {
  if (pilots <= 0) return [];
  return sql<IterationSummary[]>`
    select ${SUMMARY_COLUMNS(sql)}
    from spsa_iteration
    where run_id = ${runId}
      and iteration_number between 1 and ${pilots}
      and reference_engine_sha256 is not null
    order by iteration_number`;
}

/** θ after the given completed iterations' steps (theta_after), read through the unique index. */
export async function thetaAfterIterations(
  sql: Sql,
  runId: number,
  iterations: readonly number[],
): Promise<Map<number, Values>> {
  if (iterations.length === 0) return new Map();
  const rows = await sql<{ iteration: number; theta: Values }[]>`
    select i.iteration_number as iteration, i.theta_after as theta
    from unnest(${sql.array([...iterations])}::int[]) as n(k)
    join spsa_iteration i on i.run_id = ${runId} and i.iteration_number = n.k
    where i.theta_after is not null`;
  return new Map(rows.map((r) => [r.iteration, r.theta]));
}

/**
 * A worker's games in a run (spsa_run_worker), with what its spsa_worker row says about the
 * process (null: no such row): its host, concurrency and why it was chosen, and under
 * `[time_control] reference_nps` its measured engine speed and time factor.
 */
export interface RunWorkerRow {
  name: string;
  host: string | null;
  concurrency: number | null;
  concurrencyNote: string | null;
  measuredNps: number | null;
  timeFactor: number | null;
  /**
   * Counted in the run (held or undone batches are not): batches, games, results, engine faults,
   * delay losses, replays, pairs out of replays.
   */
  batches: number;
  games: number;
  plusWins: number;
  minusWins: number;
  draws: number;
  engineFaults: number;
  delayLosses: number;
  replays: number;
  replayLimitPairs: number;
  /** Games it reported in this run within the rate window, and the seconds of the window they cover (RATE_SECONDS). */
  recentGames: number;
  recentSeconds: number;
  /** Its last report counted in this run, and the seconds since (the database's clock). */
  lastReported: Date;
  secondsAgo: number;
}

/**
 * The run's workers, the latest to report first: their counters in the run (one row each,
 * src/db/run-workers.ts) and the games each reported in the run over the last `rateMinutes`.
 */
export async function listRunWorkers(sql: Sql, runId: number, rateMinutes: number): Promise<RunWorkerRow[]> {
  return sql<RunWorkerRow[]>`
    select c.worker_name as name,
      w.host,
      w.concurrency,
      w.concurrency_note as "concurrencyNote",
      w.measured_nps as "measuredNps",
      w.time_factor as "timeFactor",
      c.batches,
      c.games,
      c.plus_wins as "plusWins",
      c.minus_wins as "minusWins",
      c.draws,
      c.engine_faults as "engineFaults",
      c.delay_losses as "delayLosses",
      c.replays,
      c.replay_limit_pairs as "replayLimitPairs",
      coalesce(r.games, 0)::int as "recentGames",
      coalesce(r.seconds, 0)::float8 as "recentSeconds",
      c.last_reported_at as "lastReported",
      extract(epoch from now() - c.last_reported_at)::float8 as "secondsAgo"
    from spsa_run_worker c
    left join spsa_worker w on w.name = c.worker_name
    left join (
      select b.worker_name, sum(b.games) as games, ${RATE_SECONDS(sql, rateMinutes)} as seconds
      from spsa_batch b
      join spsa_iteration bi on bi.id = b.iteration_id
      where ${IN_RATE_WINDOW(sql, rateMinutes)}
        and bi.run_id = ${runId}
        and b.held_at is null
        and b.undo_id is null
      group by b.worker_name
    ) r on r.worker_name = c.worker_name
    where c.run_id = ${runId}
      and c.batches > 0
    order by c.last_reported_at desc, c.worker_name`;
}

/**
 * A worker holding batches of the run now (claimed, not reported: it is playing them), whether or not
 * it has reported any: what spsa status and the dashboard show of a worker before its first report.
 */
export interface PlayingRow {
  name: string;
  host: string | null;
  concurrency: number | null;
  /** Its claimed batches (ids, the lowest first), their games and iterations. */
  batchIds: number[];
  games: number;
  iterations: number[];
  /** The first of them claimed, and the seconds since (the database's clock). */
  since: Date;
  seconds: number;
}

/**
 * The run's claimed batches by worker (through the partial index of claimed batches, spsa_batch_leases:
 * the batches in flight of every run, a few per worker).
 */
export async function playingWorkers(sql: Sql, runId: number): Promise<PlayingRow[]> {
  return sql<PlayingRow[]>`
    select b.worker_name as name,
      w.host,
      w.concurrency,
      array_agg(b.id order by b.id)::int[] as "batchIds",
      sum(b.games)::int as games,
      array_agg(distinct i.iteration_number order by i.iteration_number)::int[] as iterations,
      min(b.claimed_at) as since,
      extract(epoch from now() - min(b.claimed_at))::float8 as seconds
    from spsa_batch b
    join spsa_iteration i on i.id = b.iteration_id
    left join spsa_worker w on w.name = b.worker_name
    where b.status = 'claimed'
      and i.run_id = ${runId}
    group by b.worker_name, w.host, w.concurrency
    order by min(b.claimed_at), b.worker_name`;
}

/**
 * The batches each worker refused in the run (spsa_refuse_batch: given back unplayed, their
 * binaries not trusted): evidence beside its games (issue 55: a worker refusing in a loop keeps
 * the games from the others until its machine's batches given back per minute run out).
 */
export async function refusingWorkers(sql: Sql, runId: number): Promise<{ name: string; refused: number }[]> {
  return sql<{ name: string; refused: number }[]>`
    select b.worker_name as name, count(*)::int as refused
    from spsa_batch b
    join spsa_iteration i on i.id = b.iteration_id
    where b.refused
      and i.run_id = ${runId}
    group by b.worker_name
    order by b.worker_name`;
}

export interface EloBucket {
  first: number;
  last: number;
  /** Mean of the iterations' (capped) Elo. */
  elo: number;
  pairs: Pentanomial;
  /** Reference mode: both sides' results against the reference, summed (null for plus against minus). */
  reference: ReferenceResults | null;
  games: number;
}

/**
 * Completed iterations' Elo, `bucket` iterations per row (1: one row per iteration), the
 * curvature pilot's left out (`withoutPilot`: the run has no reference, so an iteration with one is a pilot) and
 * the gain iterations' (θ against θ₀, no step) always, with
 * the pentanomial counts (in reference mode both sides' results) summed for an error bar.
 * Reads the run's rows once, in the index.
 */
export async function eloBuckets(sql: Sql, runId: number, bucket: number, withoutPilot: boolean): Promise<EloBucket[]> {
  return sql<EloBucket[]>`
    select min(iteration_number) as first,
      max(iteration_number) as last,
      avg(elo_diff)::float8 as elo,
      json_build_array(sum(pairs_ll), sum(pairs_ld), sum(pairs_dd), sum(pairs_dw), sum(pairs_ww)) as pairs,
      case when bool_or(reference_engine_sha256 is not null)
        then ${REFERENCE_RESULTS(sql, (column) => sql`sum(${sql(column)})::int`)}
      end as reference,
      sum(games_played)::int as games
    from spsa_iteration
    where run_id = ${runId}
      and status = 'complete'
      and (${!withoutPilot} or reference_engine_sha256 is null)
      and not ${gainIteration(sql)}
    group by (iteration_number - 1) / ${bucket}
    order by first`;
}

/**
 * Games by when their iteration completed, in buckets of `bucketSeconds` from `start` (the
 * bucket's index): one pass over the run's iterations, where counting batches by their report
 * time would join every batch.
 */
export async function gamesPerBucket(
  sql: Sql,
  runId: number,
  start: Date,
  bucketSeconds: number,
): Promise<{ bucket: number; games: number }[]> {
  return sql<{ bucket: number; games: number }[]>`
    select floor(extract(epoch from completed_at - ${start}::timestamptz) / ${bucketSeconds})::int as bucket,
      sum(games_played)::int as games
    from spsa_iteration
    where run_id = ${runId}
      and status = 'complete'
    group by 1
    order by 1`;
}

/** An iteration's counters of faults and of delays outside the engines, and its replays. */
export type FaultRow = CounterColumns &
  RowOf<typeof spsaIteration, "replays" | "replayLimitPairs"> & { iteration: number };

/** The run's iterations that had engine faults or delays outside the engines, newest first. */
export async function faultyIterations(sql: Sql, runId: number, limit: number): Promise<FaultRow[]> {
  return sql<FaultRow[]>`
    select iteration_number as iteration, ${selectCounters(sql)}, replays, replay_limit_pairs as "replayLimitPairs"
    from spsa_iteration
    where run_id = ${runId}
      and ${engineFaultSum(sql)} + ${delayLossSum(sql)} + replays > 0
    order by iteration_number desc
    limit ${limit}`;
}

/** A row of the spsa_verification_result view (rounded numbers come as strings). */
export interface VerificationResult {
  id: number;
  comparison: string;
  status: string;
  games: string;
  wins: number;
  losses: number;
  draws: number;
  elo: string | null;
  elo_error: string | null;
  los_percent: string | null;
  verdict: string | null;
  limits: PlayLimits;
  [column: string]: unknown;
}

/**
 * The spsa_verification_result rows of a run, newest first; transfer matches are shown apart
 * (src/db/transfers.ts), not among them.
 */
export async function verificationResults(sql: Sql, runName: string, limit = 100): Promise<VerificationResult[]> {
  return sql<VerificationResult[]>`
    select *
    from spsa_verification_result
    where run = ${runName}
      and id not in (select id from spsa_verification where transfer_iteration_id is not null)
    limit ${limit}`;
}
