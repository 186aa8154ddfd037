import type postgres from "postgres";
import { lockOpenIteration } from "./batches.js";
import type { OptionDraw, OptionParams, ReportedBatch, SpsaMathConfig, Values } from "../types/spsa.js";
import type { Pentanomial } from "../types/play.js";

/** SQL of UCI-option mode: the run's option settings, and one spsa_perturbation row per claimed batch. */

type Sql = postgres.Sql | postgres.TransactionSql;

export interface OptionRunRow {
  runId: number;
  iterationId: number;
  enginePath: string;
  engineSha256: string;
  parameters: OptionParams;
  gains: SpsaMathConfig;
  gamesPerIteration: number;
  /** The master's signature of `parameters` for the run (src/signing/options-signature.ts); null in older rows until their master resumes. */
  parametersSignature: string | null;
}

const OPTION_RUN_COLUMNS = (sql: Sql) => sql`
  run_id as "runId", iteration_id as "iterationId", engine_path as "enginePath", engine_sha256 as "engineSha256",
  parameters, gains, games_per_iteration as "gamesPerIteration", parameters_signature as "parametersSignature"`;

export async function insertOptionRun(sql: Sql, row: OptionRunRow): Promise<void> {
  await sql`
    insert into spsa_option_run (run_id, iteration_id, engine_path, engine_sha256, parameters, gains, games_per_iteration, parameters_signature)
    values (${row.runId}, ${row.iterationId}, ${row.enginePath}, ${row.engineSha256}, ${sql.json(JSON.parse(JSON.stringify(row.parameters)))},
      ${sql.json(JSON.parse(JSON.stringify(row.gains)))}, ${row.gamesPerIteration}, ${row.parametersSignature})`;
}

/** Signs an older run's parameters when its master resumes it (rows made before signatures have none). */
export async function setParametersSignature(sql: Sql, runId: number, signature: string): Promise<void> {
  await sql`update spsa_option_run set parameters_signature = ${signature} where run_id = ${runId}`;
}

export async function optionRunOf(sql: Sql, runId: number): Promise<OptionRunRow | undefined> {
  const [row] = await sql<OptionRunRow[]>`select ${OPTION_RUN_COLUMNS(sql)} from spsa_option_run where run_id = ${runId}`;
  return row;
}

export async function optionRunOfIteration(sql: Sql, iterationId: number): Promise<OptionRunRow | undefined> {
  const [row] = await sql<OptionRunRow[]>`select ${OPTION_RUN_COLUMNS(sql)} from spsa_option_run where iteration_id = ${iterationId}`;
  return row;
}

/** What the master's pool of drawn batches stands at (src/master/draw-pool.ts): drawn batches not claimed yet, and games given out in batches (not those set aside: their games are given out again). */
export async function drawPoolState(tx: Sql, iterationId: number): Promise<{ open: number; allocated: number }> {
  const [row] = await tx<{ open: number; allocated: number }[]>`
    select (count(*) filter (where status = 'open'))::int as open,
      coalesce(sum(games) filter (where status in ('open', 'claimed', 'done')), 0)::int as allocated
    from spsa_batch where iteration_id = ${iterationId} and status in ('open', 'claimed', 'done') and held_at is null and undo_id is null`;
  return row ?? { open: 0, allocated: 0 };
}

/** A new open batch of the carrier iteration, its games the `gamesBefore`-th onward of the run's plan; returns its id. */
export async function insertOpenBatch(tx: Sql, iterationId: number, games: number, gamesBefore: number): Promise<number> {
  const [row] = await tx<{ id: number }[]>`
    insert into spsa_batch (iteration_id, games, games_before, status) values (${iterationId}, ${games}, ${gamesBefore}, 'open') returning id::int`;
  if (!row) throw new Error("batch insert returned nothing");
  return row.id;
}

export interface NewPerturbation {
  batchId: number;
  runId: number;
  batchNumber: number;
  games: number;
  k: number;
  ck: number;
  ak: number;
  thetaBefore: Values;
  signs: Values;
  plus: Values;
  minus: Values;
}

/** Records the master's draw for an open batch (the worker that claims it is filled in by spsa_claim_batch). */
export async function insertPerturbation(tx: Sql, p: NewPerturbation): Promise<void> {
  await tx`
    insert into spsa_perturbation (batch_id, run_id, batch_number, games, k, c_k, a_k, theta_before, signs, plus_parameters, minus_parameters)
    values (${p.batchId}, ${p.runId}, ${p.batchNumber}, ${p.games}, ${p.k}, ${p.ck}, ${p.ak}, ${tx.json(p.thetaBefore)}, ${tx.json(p.signs)},
      ${tx.json(p.plus)}, ${tx.json(p.minus)})`;
}

/** A claimed batch's draw with its run's parameters; undefined for a batch without a draw. */
export async function drawOfBatch(sql: Sql, batchId: number): Promise<OptionDraw | undefined> {
  const [row] = await sql<OptionDraw[]>`
    select o.parameters, o.parameters_signature as signature, p.plus_parameters as plus, p.minus_parameters as minus
    from spsa_perturbation p join spsa_option_run o on o.run_id = p.run_id where p.batch_id = ${batchId}`;
  return row;
}

/**
 * A batch of a UCI-option run's carrier iteration not in its counters yet: done (reported) or
 * refused, with its draw when it has one. Only a done batch whose draw has not moved θ yet
 * (`applied` false) is applied; the others are only counted.
 */
export interface UnfoldedBatch {
  batchId: number;
  status: "done" | "expired";
  games: number;
  /** Null without a draw (a batch claimed without the option hook). */
  ak: number | null;
  plus: Values | null;
  minus: Values | null;
  applied: boolean;
  plusWins: number;
  minusWins: number;
  draws: number;
  pairs: Pentanomial;
  reportedAt: Date;
}

/**
 * Locks the run and its carrier iteration for the master's fold (only the master takes these
 * locks; draws read θ without them; `no key update`, so that a draw's foreign key to the run,
 * a key-share lock, does not wait for the fold) and returns its θ, the number of reports
 * applied so far, and up to `limit` batches not folded yet in the order they are to be
 * applied: the order they were reported. Nothing (`open` false) once the iteration is complete.
 */
export async function lockUnfoldedBatches(
  tx: postgres.TransactionSql,
  run: { runId: number; iterationId: number },
  limit: number,
  beforeRead?: () => Promise<unknown>,
): Promise<{ open: boolean; theta: Values; applied: number; batches: UnfoldedBatch[] }> {
  const [row] = await tx<{ theta: Values }[]>`select current_parameters as theta from spsa_run where id = ${run.runId} for no key update`;
  if (!row) throw new Error(`run ${run.runId} vanished`);
  const open = await lockOpenIteration(tx, run.iterationId);
  // Under the locks: the master sets aside the reports of workers under suspicion (src/db/worker-decisions.ts).
  if (open) await beforeRead?.();
  const [last] = await tx<{ n: number }[]>`select coalesce(max(applied_number), 0)::int as n from spsa_perturbation where run_id = ${run.runId}`;
  const batches = !open ? [] : await tx<UnfoldedBatch[]>`
    select b.id::int as "batchId", b.status, b.games, p.a_k as ak, p.plus_parameters as plus, p.minus_parameters as minus,
      p.applied_number is not null as applied, b.plus_wins as "plusWins", b.minus_wins as "minusWins", b.draws, b.pairs, b.reported_at as "reportedAt"
    from spsa_batch b left join spsa_perturbation p on p.batch_id = b.id
    where b.iteration_id = ${run.iterationId} and not b.folded and (b.status = 'done' or b.refused)
    order by b.reported_at, b.id limit ${limit}`;
  return { open, theta: row.theta, applied: last?.n ?? 0, batches };
}

/** The report's result and the θ it moved, as the `appliedNumber`-th to move θ: inside the fold's transaction. */
export async function recordApplied(
  tx: postgres.TransactionSql,
  r: { batchId: number; appliedNumber: number; report: UnfoldedBatch; elo: number; thetaApplied: Values; thetaAfter: Values },
): Promise<void> {
  await tx`
    update spsa_perturbation set plus_wins = ${r.report.plusWins}, minus_wins = ${r.report.minusWins}, draws = ${r.report.draws},
      pairs = ${tx.json(r.report.pairs)}, elo_diff = ${r.elo}, theta_applied = ${tx.json(r.thetaApplied)}, theta_after = ${tx.json(r.thetaAfter)},
      reported_at = ${r.report.reportedAt}, applied_number = ${r.appliedNumber}
    where batch_id = ${r.batchId} and applied_number is null`;
}

/**
 * Drops the drawn batches no worker claimed yet (an undo moved θ: their draws are around the old
 * one); the master draws new ones. A batch being claimed right now is skipped: it is played as drawn.
 */
export async function dropOpenDraws(tx: postgres.TransactionSql, iterationId: number): Promise<number> {
  const rows = await tx`
    with doomed as (
      select b.id from spsa_batch b where b.iteration_id = ${iterationId} and b.status = 'open' for update skip locked
    ), gone as (
      delete from spsa_perturbation p using doomed where p.batch_id = doomed.id returning p.batch_id
    )
    delete from spsa_batch b using gone where b.id = gone.batch_id returning b.id`;
  return rows.length;
}

export async function setRunTheta(tx: postgres.TransactionSql, runId: number, theta: Values): Promise<void> {
  await tx`update spsa_run set current_parameters = ${tx.json(theta)} where id = ${runId}`;
}

/**
 * The last `count` of the `applied` batches of a run that moved θ, in the order they moved it
 * (oldest first): a range of the run's applied numbers, read through their index.
 */
export async function lastReportedBatches(sql: Sql, runId: number, applied: number, count: number): Promise<ReportedBatch[]> {
  return sql<ReportedBatch[]>`
    select plus_wins as "plusWins", minus_wins as "minusWins", draws
    from spsa_perturbation where run_id = ${runId} and applied_number > ${applied - count} and applied_number <= ${applied}
    order by applied_number`;
}

/** Ends the run once its carrier iteration has all its games: call after the fold that applied the last report. */
export async function completeOptionRun(sql: postgres.Sql, run: { runId: number; iterationId: number }): Promise<boolean> {
  return sql.begin(async (tx) => {
    const [done] = await tx`
      update spsa_iteration set status = 'complete', completed_at = now()
      where id = ${run.iterationId} and status <> 'complete' and games_played = target_games
      returning id`;
    if (!done) return false;
    await tx`update spsa_run set status = 'complete', completed_at = now() where id = ${run.runId}`;
    return true;
  });
}

export async function runTheta(sql: Sql, runId: number): Promise<{ status: string; theta: Values }> {
  const [row] = await sql<{ status: string; theta: Values }[]>`select status, current_parameters as theta from spsa_run where id = ${runId}`;
  if (!row) throw new Error(`run ${runId} vanished`);
  return row;
}

/** Whether the run of this name tunes UCI options (it has option settings). */
export async function isOptionRun(sql: Sql, runName: string): Promise<boolean> {
  const [row] = await sql<{ id: number }[]>`select r.id from spsa_run r join spsa_option_run o on o.run_id = r.id where r.name = ${runName}`;
  return row !== undefined;
}

export interface PerturbationProgress {
  /** Batches whose report the master applied to θ (moving it, or leaving it on equal results). */
  applied: number;
  /** Batches claimed and not yet reported or expired. */
  inFlight: number;
  /** The last applied batches, newest first. */
  recent: { batchNumber: number; games: number; elo: number }[];
}

/** A UCI-option run's batches, for `spsa status`; undefined for a run that is not one. */
export async function perturbationProgress(sql: Sql, runId: number, recentCount: number): Promise<PerturbationProgress | undefined> {
  // Applied numbers run 1, 2, …: the last is the count. In flight: the claimed batches, through the leases index.
  const [counts] = await sql<{ runs: number; applied: number; inFlight: number }[]>`
    select (select count(*) from spsa_option_run where run_id = ${runId})::int as runs,
      (select coalesce(max(applied_number), 0) from spsa_perturbation where run_id = ${runId})::int as applied,
      (select count(*) from spsa_batch b join spsa_perturbation p on p.batch_id = b.id where b.status = 'claimed' and p.run_id = ${runId})::int as "inFlight"`;
  if (!counts || counts.runs === 0) return undefined;
  const recent = await sql<{ batchNumber: number; games: number; elo: number }[]>`
    select batch_number as "batchNumber", games, elo_diff as elo from spsa_perturbation
    where run_id = ${runId} and applied_number is not null order by applied_number desc limit ${recentCount}`;
  return { applied: counts.applied, inFlight: counts.inFlight, recent };
}

/** θ after the n-th applied batch (1-based, in the order the reports moved θ), for the given n. */
export async function thetaAfterApplied(sql: Sql, runId: number, ns: readonly number[]): Promise<Map<number, Values>> {
  if (ns.length === 0) return new Map();
  const rows = await sql<{ n: number; theta: Values }[]>`
    select n::int, theta from (
      select applied_number as n, theta_after as theta
      from spsa_perturbation where run_id = ${runId} and applied_number is not null) applied
    where n = any(${sql.array(ns as number[])}::int[])`;
  return new Map(rows.map((r) => [r.n, r.theta]));
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
    select (select coalesce(max(games), 1) from spsa_perturbation where run_id = ${runId} and applied_number <= 8)::int as "batchSize",
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
    select min(applied_number)::int as first, max(applied_number)::int as last, sum(plus_wins)::int as "plusWins", sum(minus_wins)::int as "minusWins",
      sum(draws)::int as draws, sum(games)::int as games,
      json_build_array(sum((pairs->>0)::int), sum((pairs->>1)::int), sum((pairs->>2)::int), sum((pairs->>3)::int), sum((pairs->>4)::int)) as pairs
    from spsa_perturbation where run_id = ${runId} and applied_number > ${after}
    group by (applied_number - 1) / ${per} order by first`;
}

/** Games per hour (the hour's start) of a UCI-option run, by when their batches were reported: one pass over its applied rows. */
export async function appliedGamesPerHour(sql: Sql, runId: number): Promise<{ hour: Date; games: number }[]> {
  return sql<{ hour: Date; games: number }[]>`
    select date_trunc('hour', reported_at) as hour, sum(games)::int as games
    from spsa_perturbation where run_id = ${runId} and applied_number is not null
    group by 1 order by 1`;
}
