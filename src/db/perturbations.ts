import type postgres from "postgres";
import type { SpsaMathConfig, Values } from "../spsa/math.js";
import type { OptionParams, ReportedBatch } from "../uci-tune/batch-math.js";
import type { Pentanomial } from "../play/stats.js";

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
}

const OPTION_RUN_COLUMNS = (sql: Sql) => sql`
  run_id as "runId", iteration_id as "iterationId", engine_path as "enginePath", engine_sha256 as "engineSha256",
  parameters, gains, games_per_iteration as "gamesPerIteration"`;

export async function insertOptionRun(sql: Sql, row: OptionRunRow): Promise<void> {
  await sql`
    insert into spsa_option_run (run_id, iteration_id, engine_path, engine_sha256, parameters, gains, games_per_iteration)
    values (${row.runId}, ${row.iterationId}, ${row.enginePath}, ${row.engineSha256}, ${sql.json(JSON.parse(JSON.stringify(row.parameters)))},
      ${sql.json(JSON.parse(JSON.stringify(row.gains)))}, ${row.gamesPerIteration})`;
}

export async function optionRunOf(sql: Sql, runId: number): Promise<OptionRunRow | undefined> {
  const [row] = await sql<OptionRunRow[]>`select ${OPTION_RUN_COLUMNS(sql)} from spsa_option_run where run_id = ${runId}`;
  return row;
}

export async function optionRunOfIteration(sql: Sql, iterationId: number): Promise<OptionRunRow | undefined> {
  const [row] = await sql<OptionRunRow[]>`select ${OPTION_RUN_COLUMNS(sql)} from spsa_option_run where iteration_id = ${iterationId}`;
  return row;
}

/** Locks the run for a draw or an update (they are serialised per run) and returns its θ and seed. */
export async function lockRunTheta(tx: postgres.TransactionSql, runId: number): Promise<{ seed: string; theta: Values }> {
  const [run] = await tx<{ seed: string; theta: Values }[]>`select seed, theta from spsa_lock_option_run(${runId})`;
  if (!run) throw new Error(`run ${runId} vanished`);
  return run;
}

/** The batches drawn so far, and the games of those not lost to an expired lease: where a new draw sits in the schedule. */
export async function drawnSoFar(tx: postgres.TransactionSql, runId: number): Promise<{ batchesDrawn: number; gamesDrawn: number }> {
  const [drawn] = await tx<{ batches: number; games: number }[]>`
    select count(*)::int as batches, coalesce(sum(p.games) filter (where b.status <> 'expired'), 0)::int as games
    from spsa_perturbation p join spsa_batch b on b.id = p.batch_id where p.run_id = ${runId}`;
  return { batchesDrawn: drawn?.batches ?? 0, gamesDrawn: drawn?.games ?? 0 };
}

export interface NewPerturbation {
  batchId: number;
  runId: number;
  batchNumber: number;
  workerName: string;
  games: number;
  k: number;
  ck: number;
  ak: number;
  thetaBefore: Values;
  signs: Values;
  plus: Values;
  minus: Values;
}

/** Records a claimed batch's draw (spsa_record_draw: only the worker holding the batch, once). */
export async function insertPerturbation(tx: postgres.TransactionSql, p: NewPerturbation): Promise<void> {
  await tx`
    select spsa_record_draw(${p.batchId}, ${p.runId}, ${p.batchNumber}, ${p.workerName}, ${p.games}, ${p.k}, ${p.ck}, ${p.ak},
      ${tx.json(p.thetaBefore)}, ${tx.json(p.signs)}, ${tx.json(p.plus)}, ${tx.json(p.minus)})`;
}

export interface PerturbationRow {
  runId: number;
  games: number;
  ak: number;
  plus: Values;
  minus: Values;
}

/**
 * The batch's perturbation, if the batch belongs to a UCI-option run. Read in the report's
 * transaction after the batch row went to done, which serialises reports of one batch.
 */
export async function perturbationOfBatch(tx: postgres.TransactionSql, batchId: number): Promise<PerturbationRow | undefined> {
  const [row] = await tx<PerturbationRow[]>`
    select run_id as "runId", games, a_k as ak, plus_parameters as plus, minus_parameters as minus
    from spsa_perturbation where batch_id = ${batchId}`;
  return row;
}

/** The last `count` batches of a run that were reported, in the order their results moved θ (oldest first). */
export async function lastReportedBatches(sql: Sql, runId: number, count: number): Promise<ReportedBatch[]> {
  return sql<ReportedBatch[]>`
    select * from (
      select reported_at, batch_number, plus_wins as "plusWins", minus_wins as "minusWins", draws
      from spsa_perturbation where run_id = ${runId} and reported_at is not null
      order by reported_at desc, batch_number desc limit ${count}
    ) recent order by reported_at, batch_number`;
}

/**
 * The report's result and the θ it moved, with the run's new θ: call inside the report's
 * transaction. spsa_record_option_result takes it once per batch, from the batch's worker, and
 * only a θ within the parameters' bounds and max_step of the run's θ of now.
 */
export async function recordPerturbationResult(
  tx: postgres.TransactionSql,
  r: { batchId: number; runId: number; plusWins: number; minusWins: number; draws: number; pairs: Pentanomial; elo: number; thetaApplied: Values; thetaAfter: Values },
): Promise<void> {
  await tx`
    select spsa_record_option_result(${r.batchId}, ${r.runId}, ${r.plusWins}, ${r.minusWins}, ${r.draws}, ${tx.json(r.pairs)}, ${r.elo},
      ${tx.json(r.thetaApplied)}, ${tx.json(r.thetaAfter)})`;
}

/** Ends the run once its carrier iteration has all its games: the last report already wrote θ. */
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
  /** Batches whose report moved θ (or left it, on equal results). */
  applied: number;
  /** Batches claimed and not yet reported or expired. */
  inFlight: number;
  /** The last applied batches, newest first. */
  recent: { batchNumber: number; games: number; elo: number }[];
}

/** A UCI-option run's batches, for `spsa status`; undefined for a run that is not one. */
export async function perturbationProgress(sql: Sql, runId: number, recentCount: number): Promise<PerturbationProgress | undefined> {
  const [counts] = await sql<{ runs: number; applied: number; inFlight: number }[]>`
    select (select count(*) from spsa_option_run where run_id = ${runId})::int as runs,
      count(*) filter (where p.reported_at is not null)::int as applied,
      count(*) filter (where p.reported_at is null and b.status = 'claimed')::int as "inFlight"
    from spsa_perturbation p join spsa_batch b on b.id = p.batch_id where p.run_id = ${runId}`;
  if (!counts || counts.runs === 0) return undefined;
  const recent = await sql<{ batchNumber: number; games: number; elo: number }[]>`
    select batch_number as "batchNumber", games, elo_diff as elo from spsa_perturbation
    where run_id = ${runId} and reported_at is not null order by reported_at desc, batch_number desc limit ${recentCount}`;
  return { applied: counts.applied, inFlight: counts.inFlight, recent };
}

/** θ after the n-th applied batch (1-based, in the order the reports moved θ), for the given n. */
export async function thetaAfterApplied(sql: Sql, runId: number, ns: readonly number[]): Promise<Map<number, Values>> {
  if (ns.length === 0) return new Map();
  const rows = await sql<{ n: number; theta: Values }[]>`
    select n::int, theta from (
      select row_number() over (order by reported_at, batch_number) as n, theta_after as theta
      from spsa_perturbation where run_id = ${runId} and reported_at is not null) applied
    where n = any(${sql.array(ns as number[])}::int[])`;
  return new Map(rows.map((r) => [r.n, r.theta]));
}

