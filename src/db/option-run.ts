import type postgres from "postgres";
import { asJson, type Sql } from "../postgres/sql.js";
import { dropOpenDraws, dropUnplayedValues } from "./draw-pool-rows.js";
import { lockOpenIteration } from "./iteration-lock.js";
import type { OptionParams, SpsaMathConfig, Values } from "../types/spsa.js";

/**
 * SQL of a UCI-option run's row (spsa_option_run): its option settings (its parameter list,
 * stored once, in order), its schedule and signature, its θ (spsa_run.current_parameters) and
 * its carrier iteration's counters (docs/psql.md).
 */

export interface OptionRunRow {
  runId: number;
  iterationId: number;
  enginePath: string;
  engineSha256: string;
  parameters: OptionParams;
  /** The parameters in the run's order: signs and stored θ follow it. */
  names: string[];
  /** θ is stored after every this many applied batches. */
  thetaEvery: number;
  gains: SpsaMathConfig;
  gamesPerIteration: number;
  /**
   * The master's signature of `parameters` for the run (src/signing/options-signature.ts); null in
   * older rows until their master resumes.
   */
  parametersSignature: string | null;
  /** Games of the curvature pilot at the run's start (src/master/option-pilot.ts); 0 or absent: none. */
  pilotGames?: number;
  /** `[spsa] gain_share` at the run's start (src/spsa/gain-block-plan.ts); 0 or absent: no gain blocks. */
  gainShare?: number;
}

const OPTION_RUN_COLUMNS = (sql: Sql) => sql`
  run_id as "runId",
  iteration_id as "iterationId",
  engine_path as "enginePath",
  engine_sha256 as "engineSha256",
  parameters,
  parameter_names as names,
  theta_every as "thetaEvery",
  gains,
  games_per_iteration as "gamesPerIteration",
  parameters_signature as "parametersSignature",
  pilot_games as "pilotGames",
  gain_share as "gainShare"`;

export async function insertOptionRun(sql: Sql, row: OptionRunRow): Promise<void> {
  await sql`
    insert into spsa_option_run (run_id, iteration_id, engine_path, engine_sha256, parameters, parameter_names,
      theta_every, gains, games_per_iteration, parameters_signature, pilot_games, gain_share)
    values (${row.runId}, ${row.iterationId}, ${row.enginePath}, ${row.engineSha256},
      ${sql.json(asJson(row.parameters))}, ${sql.array(row.names)}::text[], ${row.thetaEvery},
      ${sql.json(asJson(row.gains))}, ${row.gamesPerIteration}, ${row.parametersSignature}, ${row.pilotGames ?? 0},
      ${row.gainShare ?? 0})`;
}

/** Signs an older run's parameters when its master resumes it (rows made before signatures have none). */
export async function setParametersSignature(sql: Sql, runId: number, signature: string): Promise<void> {
  await sql`
    update spsa_option_run
    set parameters_signature = ${signature}
    where run_id = ${runId}`;
}

export async function optionRunOf(sql: Sql, runId: number): Promise<OptionRunRow | undefined> {
  const [row] = await sql<OptionRunRow[]>`
    select ${OPTION_RUN_COLUMNS(sql)}
    from spsa_option_run
    where run_id = ${runId}`;
  return row;
}

/**
 * A UCI-option run's gains and games per step of the schedule, without its parameter list
 * (undefined for another run).
 */
export async function optionRunSchedule(
  sql: Sql,
  runId: number,
): Promise<Pick<OptionRunRow, "gains" | "gamesPerIteration"> | undefined> {
  const [row] = await sql<Pick<OptionRunRow, "gains" | "gamesPerIteration">[]>`
    select gains, games_per_iteration as "gamesPerIteration"
    from spsa_option_run
    where run_id = ${runId}`;
  return row;
}

/** Whether the run of this name tunes UCI options (it has option settings). */
export async function isOptionRun(sql: Sql, runName: string): Promise<boolean> {
  const [row] = await sql<{ id: number }[]>`
    select r.id
    from spsa_run r
    join spsa_option_run o on o.run_id = r.id
    where r.name = ${runName}`;
  return row !== undefined;
}

/** The carrier iteration's counters, as the master's poll reads them. */
export interface CarrierProgress {
  /**
   * Complete: its run finished and no worker can claim a game of it, whatever its count says (an
   * undo or an acceptance since may have moved the count away from its target).
   */
  complete: boolean;
  gamesPlayed: number;
  gamesClaimed: number;
  targetGames: number;
  plusWins: number;
  minusWins: number;
  draws: number;
}

/** The carrier iteration's counters (not its recorded θ and settings: a large run's are megabytes). */
export async function carrierProgress(sql: Sql, iterationId: number): Promise<CarrierProgress> {
  const [row] = await sql<CarrierProgress[]>`
    select status = 'complete' as complete,
      games_played as "gamesPlayed",
      games_claimed as "gamesClaimed",
      target_games as "targetGames",
      plus_wins as "plusWins",
      minus_wins as "minusWins",
      draws
    from spsa_iteration
    where id = ${iterationId}`;
  if (!row) throw new Error(`iteration ${iterationId} vanished`);
  return row;
}

/** The run's θ; a UCI-option run's as θ after `applied` batches. */
export async function setRunTheta(tx: Sql, runId: number, theta: Values, applied?: number): Promise<void> {
  await tx`
    update spsa_run
    set current_parameters = ${tx.json(theta)}
    where id = ${runId}`;
  if (applied !== undefined)
    await tx`
      update spsa_option_run
      set theta_applied = ${applied}
      where run_id = ${runId}`;
}

export async function runTheta(sql: Sql, runId: number): Promise<{ status: string; theta: Values }> {
  const [row] = await sql<{ status: string; theta: Values }[]>`
    select status, current_parameters as theta
    from spsa_run
    where id = ${runId}`;
  if (!row) throw new Error(`run ${runId} vanished`);
  return row;
}

/**
 * The stop rule's early end (docs/gain-so-far.md): the drawn batches no worker claimed go, and the
 * carrier's target becomes the games given out (played, reported or in flight, not set aside), so
 * the run completes as usual once they are in; under the carrier's fold lock. Returns the new
 * target, or undefined when the carrier is complete.
 */
export async function endCarrierEarly(sql: postgres.Sql, iterationId: number): Promise<number | undefined> {
  return sql.begin(async (tx) => {
    if (!(await lockOpenIteration(tx, iterationId))) return undefined;
    await dropOpenDraws(tx, iterationId);
    // Never below the games the last fold counted as claimed (a batch that expired since was among them).
    const [row] = await tx<{ target: number }[]>`
      update spsa_iteration i
      set target_games = greatest(
        i.games_claimed,
        (
          select coalesce(sum(b.games), 0)
          from spsa_batch b
          where b.iteration_id = i.id
            and b.status in ('claimed', 'done')
            and b.held_at is null
            and b.undo_id is null
        )
      )
      where i.id = ${iterationId}
      returning target_games::int as target`;
    return row?.target;
  });
}

/** Ends the run once its carrier iteration has all its games: call after the fold that applied the last report. */
export async function completeOptionRun(
  sql: postgres.Sql,
  run: { runId: number; iterationId: number },
): Promise<boolean> {
  return sql.begin(async (tx) => {
    const [done] = await tx`
      update spsa_iteration
      set status = 'complete', completed_at = now()
      where id = ${run.iterationId}
        and status <> 'complete'
        and games_played = target_games
      returning id`;
    if (!done) return false;
    await tx`
      update spsa_run
      set status = 'complete', completed_at = now()
      where id = ${run.runId}`;
    // Batches whose lease ran out after the last fold keep no values either.
    await dropUnplayedValues(tx, run.runId);
    return true;
  });
}
