import { randomBytes } from "node:crypto";
import type postgres from "postgres";
import type { TuningConfig } from "../config/config.js";
import { WORK_CHANNEL } from "../db/batches.js";
import type { IterationSettings } from "./iteration-settings.js";
import type { IterationCounts } from "./progress.js";

/** Database operations of the master: runs, iterations, completion. */

type Sql = postgres.Sql | postgres.TransactionSql;
export type Values = Record<string, number>;

export interface RunRow {
  id: number;
  name: string;
  status: "active" | "complete" | "stopped";
  seed: string;
  currentParameters: Values;
}

export interface IterationRow extends IterationCounts {
  id: number;
  status: "pending" | "in_progress" | "complete";
  ak: number;
  baseParameters: Values;
  plusParameters: Values;
  minusParameters: Values;
  /** Null only for iterations started before settings were recorded. */
  settings: IterationSettings | null;
}

const RUN_COLUMNS = (sql: Sql) => sql`id, name, status, seed, current_parameters as "currentParameters"`;

/**
 * The run to work on: the active run of this name, or a new one. With `fresh`, an existing
 * run of this name is kept under a new name (`name~id`) and marked stopped.
 */
export async function openRun(sql: postgres.Sql, options: { name: string; fresh: boolean; seed?: string; config: TuningConfig; values: Values }): Promise<{ run: RunRow; created: boolean }> {
  return sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(hashtext(${`spsa_run:${options.name}`}))`;
    const [existing] = await tx<RunRow[]>`select ${RUN_COLUMNS(tx)} from spsa_run where name = ${options.name}`;
    if (existing && !options.fresh) return { run: existing, created: false };
    if (existing) {
      await tx`update spsa_run set name = name || '~' || id, status = case when status = 'active' then 'stopped' else status end where id = ${existing.id}`;
    }
    const seed = options.seed ?? randomBytes(8).toString("hex");
    const [run] = await tx<RunRow[]>`
      insert into spsa_run (name, seed, config, initial_parameters, current_parameters)
      values (${options.name}, ${seed}, ${tx.json(JSON.parse(JSON.stringify(options.config)))}, ${tx.json(options.values)}, ${tx.json(options.values)})
      returning ${RUN_COLUMNS(tx)}`;
    if (!run) throw new Error("insert into spsa_run returned nothing");
    return { run, created: true };
  });
}

const ITERATION_COLUMNS = (sql: Sql) => sql`
  id, iteration_number as "iterationNumber", status, target_games as "targetGames", games_played as "gamesPlayed",
  plus_wins as "plusWins", minus_wins as "minusWins", draws,
  (plus_crashes + minus_crashes + plus_time_losses + minus_time_losses + plus_illegal_moves + minus_illegal_moves)::int as faults,
  (plus_delay_losses + minus_delay_losses)::int as "delayLosses", replays, replay_limit_pairs as "replayLimitPairs",
  a_k as ak, base_parameters as "baseParameters", plus_parameters as "plusParameters", minus_parameters as "minusParameters", settings`;

export async function latestIteration(sql: Sql, runId: number): Promise<IterationRow | undefined> {
  const [row] = await sql<IterationRow[]>`
    select ${ITERATION_COLUMNS(sql)} from spsa_iteration where run_id = ${runId} order by iteration_number desc limit 1`;
  return row;
}

export async function readIteration(sql: Sql, id: number): Promise<IterationRow> {
  const [row] = await sql<IterationRow[]>`select ${ITERATION_COLUMNS(sql)} from spsa_iteration where id = ${id}`;
  if (!row) throw new Error(`iteration ${id} vanished`);
  return row;
}

export interface NewIteration {
  runId: number;
  iterationNumber: number;
  plus: { path: string; sha256: string };
  minus: { path: string; sha256: string };
  timelowMs: number;
  timehighMs: number;
  targetGames: number;
  ck: number;
  ak: number;
  base: Values;
  plusValues: Values;
  minusValues: Values;
  signs: Values;
  settings: IterationSettings;
}

/**
 * Inserts the iteration (once: a restarted master finds it) and wakes the workers. Each
 * statement stands alone (inside a caller's transaction, the wake-up waits for its commit).
 */
export async function insertIteration(sql: Sql, it: NewIteration): Promise<IterationRow> {
  await sql`
    insert into spsa_iteration (run_id, iteration_number, plus_engine_path, minus_engine_path, plus_engine_sha256,
      minus_engine_sha256, timelow_ms, timehigh_ms, target_games, c_k, a_k, base_parameters, plus_parameters,
      minus_parameters, perturbation_signs, settings)
    values (${it.runId}, ${it.iterationNumber}, ${it.plus.path}, ${it.minus.path}, ${it.plus.sha256}, ${it.minus.sha256},
      ${it.timelowMs}, ${it.timehighMs}, ${it.targetGames}, ${it.ck}, ${it.ak}, ${sql.json(it.base)}, ${sql.json(it.plusValues)},
      ${sql.json(it.minusValues)}, ${sql.json(it.signs)}, ${sql.json(JSON.parse(JSON.stringify(it.settings)))})
    on conflict (run_id, iteration_number) do nothing`;
  await sql`select pg_notify(${WORK_CHANNEL}, '')`;
  const [row] = await sql<IterationRow[]>`
    select ${ITERATION_COLUMNS(sql)} from spsa_iteration where run_id = ${it.runId} and iteration_number = ${it.iterationNumber}`;
  if (!row) throw new Error("iteration insert returned nothing");
  return row;
}

/**
 * Completes an iteration and stores the new θ in ONE transaction; returns false if another
 * master process completed it first (nothing is applied twice).
 */
export async function completeIteration(
  sql: postgres.Sql,
  options: { runId: number; iterationId: number; gradient: Values; elo: number; newValues: Values; finalIteration: boolean },
): Promise<boolean> {
  return sql.begin(async (tx) => {
    const [done] = await tx`
      update spsa_iteration set status = 'complete', gradient_estimate = ${tx.json(options.gradient)},
        elo_diff = ${options.elo}, completed_at = now()
      where id = ${options.iterationId} and status <> 'complete' and games_played = target_games
      returning id`;
    if (!done) return false;
    await tx`
      update spsa_run set current_parameters = ${tx.json(options.newValues)},
        status = ${options.finalIteration ? "complete" : "active"},
        completed_at = ${options.finalIteration ? tx`now()` : null}
      where id = ${options.runId}`;
    return true;
  });
}

export async function markRunComplete(sql: Sql, runId: number): Promise<void> {
  await sql`update spsa_run set status = 'complete', completed_at = coalesce(completed_at, now()) where id = ${runId}`;
}
