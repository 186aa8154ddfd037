import type { Sql } from "../postgres/sql.js";
import type { Values } from "../types/spsa.js";
import type { Pentanomial } from "../types/play.js";

/**
 * Read-only SQL of a UCI-option run's progress, for `spsa status`, the dashboard and the export:
 * its batches applied and in flight, its stored θ, and its applied batches pooled in windows or
 * counted by time, each read through (run_id, applied_number).
 */

export interface PerturbationProgress {
  /** Batches whose report the master applied to θ (moving it, or leaving it on equal results). */
  applied: number;
  /**
   * The run's θ (spsa_run.current_parameters) is θ after this many of them (a large run's is
   * written at least every 10 s).
   */
  thetaApplied: number;
  /** Batches claimed and not yet reported or expired. */
  inFlight: number;
  /** The last applied batches, newest first. */
  recent: RecentBatch[];
}

/**
 * An applied batch as the status lists it: its number, the worker that played it, its games,
 * plus's wins, draws and minus's wins, its Elo.
 */
export interface RecentBatch {
  batchNumber: number;
  worker: string;
  games: number;
  plusWins: number;
  draws: number;
  minusWins: number;
  elo: number;
}

/** A UCI-option run's batches, for `spsa status`; undefined for a run that is not one. */
export async function perturbationProgress(
  sql: Sql,
  runId: number,
  recentCount: number,
): Promise<PerturbationProgress | undefined> {
  // Applied numbers run 1, 2, …: the last is the count. In flight: the claimed batches, through the leases index.
  const [counts] = await sql<{ runs: number; applied: number; thetaApplied: number; inFlight: number }[]>`
    select (select count(*) from spsa_option_run where run_id = ${runId})::int as runs,
      (select coalesce(max(applied_number), 0) from spsa_perturbation where run_id = ${runId})::int as applied,
      (select theta_applied from spsa_option_run where run_id = ${runId}) as "thetaApplied",
      (
        select count(*)
        from spsa_batch b
        join spsa_perturbation p on p.batch_id = b.id
        where b.status = 'claimed'
          and p.run_id = ${runId}
      )::int as "inFlight"`;
  if (!counts || counts.runs === 0) return undefined;
  const recent = await sql<RecentBatch[]>`
    select batch_number as "batchNumber",
      worker_name as worker,
      games,
      plus_wins as "plusWins",
      draws,
      minus_wins as "minusWins",
      elo_diff as elo
    from spsa_perturbation
    where run_id = ${runId}
      and applied_number is not null
    order by applied_number desc
    limit ${recentCount}`;
  return { applied: counts.applied, thetaApplied: counts.thetaApplied, inFlight: counts.inFlight, recent };
}

/** How often the run stores θ (spsa_option_run.theta_every): after every this many applied batches. */
export async function storedThetaEvery(sql: Sql, runId: number): Promise<number> {
  const [row] = await sql<{ every: number }[]>`
    select theta_every as every
    from spsa_option_run
    where run_id = ${runId}`;
  return row?.every ?? 1;
}

/**
 * Stored θ after the n-th applied batch, for the given n that have one (multiples of the run's
 * theta_every), of the named parameters (or all): Postgres takes their elements out of each
 * stored θ, so a chart of a few parameters of a large run reads a few numbers per point.
 */
export async function storedThetas(
  sql: Sql,
  runId: number,
  ns: readonly number[],
  names: readonly string[] | "all",
): Promise<Map<number, Values>> {
  if (ns.length === 0 || names.length === 0) return new Map();
  const applied = sql`
    p.run_id = ${runId}
    and p.applied_number = any(${sql.array(ns as number[])}::int[])
    and p.theta_after is not null`;
  const rows =
    names === "all"
      ? await sql<{ n: number; names: string[]; values: number[] }[]>`
          select p.applied_number as n, o.parameter_names as names, p.theta_after as values
          from spsa_perturbation p
          join spsa_option_run o on o.run_id = p.run_id
          where ${applied}`
      : await sql<{ n: number; values: (number | null)[] }[]>`
          with wanted as (
            select x.i, array_position(o.parameter_names, x.name) as at
            from spsa_option_run o, unnest(${sql.array(names as string[])}::text[]) with ordinality as x(name, i)
            where o.run_id = ${runId}
          )
          select p.applied_number as n, array(select p.theta_after[w.at] from wanted w order by w.i) as values
          from spsa_perturbation p
          where ${applied}`;
  return new Map(
    rows.map((r) => {
      const own: readonly string[] = "names" in r ? r.names : names === "all" ? [] : names;
      return [
        r.n,
        Object.fromEntries(own.flatMap((name, i) => (typeof r.values[i] === "number" ? [[name, r.values[i]]] : []))),
      ];
    }),
  );
}

/** Consecutive applied batches of a UCI-option run pooled: their applied numbers, summed results and pairs. */
export interface AppliedWindow {
  first: number;
  last: number;
  plusWins: number;
  minusWins: number;
  draws: number;
  pairs: Pentanomial;
  games: number;
}

/**
 * The run's batch size, as its first applied batches have it (planned batches are all that
 * size but at the carrier iteration's end), and the number of its last applied batch (0:
 * none): a few rows, through (run_id, applied_number).
 */
export async function appliedShape(sql: Sql, runId: number): Promise<{ batchSize: number; applied: number }> {
  const [row] = await sql<{ batchSize: number; applied: number }[]>`
    select
      (
        select coalesce(max(games), 1)
        from spsa_perturbation
        where run_id = ${runId}
          and applied_number <= 8
      )::int as "batchSize",
      (select coalesce(max(applied_number), 0) from spsa_perturbation where run_id = ${runId})::int as applied`;
  if (!row) throw new Error("an aggregate returned no row");
  return row;
}

/**
 * The run's applied batches after the `after`-th, in the order they moved θ, pooled `per`
 * to a window: batches 1 to per, per + 1 to 2·per, … (the last window may be short). Reads
 * those rows once, through (run_id, applied_number): the latest windows cost a few rows,
 * all of them a pass over the run's batches.
 */
export async function appliedWindows(sql: Sql, runId: number, per: number, after: number): Promise<AppliedWindow[]> {
  return sql<AppliedWindow[]>`
    select min(applied_number)::int as first,
      max(applied_number)::int as last,
      sum(plus_wins)::int as "plusWins",
      sum(minus_wins)::int as "minusWins",
      sum(draws)::int as draws,
      sum(games)::int as games,
      json_build_array(sum((pairs->>0)::int), sum((pairs->>1)::int), sum((pairs->>2)::int), sum((pairs->>3)::int),
        sum((pairs->>4)::int)) as pairs
    from spsa_perturbation
    where run_id = ${runId}
      and applied_number > ${after}
    group by (applied_number - 1) / ${per}
    order by first`;
}

/**
 * A UCI-option run's games by when their batches were reported, in buckets of `bucketSeconds`
 * from `start` (the bucket's index): one pass over its applied rows.
 */
export async function appliedGamesPerBucket(
  sql: Sql,
  runId: number,
  start: Date,
  bucketSeconds: number,
): Promise<{ bucket: number; games: number }[]> {
  return sql<{ bucket: number; games: number }[]>`
    select floor(extract(epoch from reported_at - ${start}::timestamptz) / ${bucketSeconds})::int as bucket,
      sum(games)::int as games
    from spsa_perturbation
    where run_id = ${runId}
      and applied_number is not null
    group by 1
    order by 1`;
}
