import type postgres from "postgres";
import type { Values } from "../spsa/math.js";
import { selectColumns, type RowOf } from "./columns.js";
import { spsaFaultedGame } from "./schema.js";

/**
 * SQL of spsa_faulted_game: games an engine fault decided, kept with the θ, binaries and
 * worker that played them. Everything else about games stays unsaved.
 */

type Sql = postgres.Sql | postgres.TransactionSql;

/** A crashing engine faults every game: only the first few per iteration and worker, and so many per run, are kept. */
export const FAULTED_GAME_LIMITS = { perIterationAndWorker: 3, perRun: 200 };

/** A faulted game as the worker hands it over. */
export interface FaultedGame {
  /** Pair × 2 + game, within its batch. */
  gameIndex: number;
  side: "plus" | "minus";
  fault: string;
  reason: string;
  pgn: string;
}

export interface FaultedBatch {
  batchId: number;
  workerName: string;
  games: readonly FaultedGame[];
  /** UCI-option mode: the engines' tuned options (build mode: the iteration's θ is taken). */
  plusOptions?: Values;
  minusOptions?: Values;
}

/**
 * Keeps a reported batch's faulted games, within FAULTED_GAME_LIMITS. Runs in the report's
 * transaction once the batch turned from claimed to done, so a retried report stores nothing
 * twice (and the unique (batch, game) index would refuse it). Returns the games kept.
 */
export async function storeFaultedGames(tx: postgres.TransactionSql, batch: FaultedBatch, limits = FAULTED_GAME_LIMITS): Promise<number> {
  if (batch.games.length === 0) return 0;
  const [it] = await tx<{ iterationId: number; runId: number; plus: Values; minus: Values; plusSha: string; minusSha: string }[]>`
    select i.id as "iterationId", i.run_id as "runId", i.plus_parameters as plus, i.minus_parameters as minus,
      i.plus_engine_sha256 as "plusSha", i.minus_engine_sha256 as "minusSha"
    from spsa_batch b join spsa_iteration i on i.id = b.iteration_id where b.id = ${batch.batchId}`;
  if (!it) throw new Error(`batch ${batch.batchId} vanished while it was reported`);
  // Reports of one run count its kept games one at a time, so the cap holds exactly.
  await tx`select pg_advisory_xact_lock(hashtext(${`spsa_faulted_game:${it.runId}`}))`;
  const [kept] = await tx<{ mine: number; all: number }[]>`
    select count(*) filter (where iteration_id = ${it.iterationId} and worker_name = ${batch.workerName})::int as mine, count(*)::int as all
    from spsa_faulted_game where run_id = ${it.runId}`;
  const room = Math.max(0, Math.min(limits.perIterationAndWorker - (kept?.mine ?? 0), limits.perRun - (kept?.all ?? 0)));
  const rows = batch.games.slice(0, room).map((game) => ({
    run_id: it.runId,
    iteration_id: it.iterationId,
    batch_id: batch.batchId,
    game_index: game.gameIndex,
    worker_name: batch.workerName,
    side: game.side,
    fault: game.fault,
    reason: game.reason,
    pgn: game.pgn,
    plus_parameters: tx.json(batch.plusOptions ?? it.plus ?? {}),
    minus_parameters: tx.json(batch.minusOptions ?? it.minus ?? {}),
    plus_engine_sha256: it.plusSha,
    minus_engine_sha256: it.minusSha,
  }));
  if (rows.length === 0) return 0;
  const inserted = await tx`insert into spsa_faulted_game ${tx(rows)} on conflict (batch_id, game_index) do nothing`;
  return inserted.count;
}

export async function countFaultedGames(sql: Sql, runId: number): Promise<number> {
  const [row] = await sql<{ n: number }[]>`select count(*)::int as n from spsa_faulted_game where run_id = ${runId}`;
  return row?.n ?? 0;
}

const LISTED = ["id", "side", "fault", "reason", "workerName", "plusEngineSha256", "minusEngineSha256", "createdAt"] as const;
const EXPORTED = [...LISTED, "pgn", "plusParameters", "minusParameters"] as const;

/** A kept game without its moves, as the dashboard lists it. */
export type FaultedGameSummary = RowOf<typeof spsaFaultedGame, (typeof LISTED)[number]> & { iteration: number };
export type FaultedGameRow = RowOf<typeof spsaFaultedGame, (typeof EXPORTED)[number]> & { iteration: number };

/** The run's latest kept games, newest first. */
export async function latestFaultedGames(sql: Sql, runId: number, limit: number): Promise<FaultedGameSummary[]> {
  return sql<FaultedGameSummary[]>`
    select ${selectColumns(sql, spsaFaultedGame, LISTED, "f")}, i.iteration_number as iteration
    from spsa_faulted_game f join spsa_iteration i on i.id = f.iteration_id
    where f.run_id = ${runId} order by f.id desc limit ${limit}`;
}

/** All of the run's kept games (at most FAULTED_GAME_LIMITS.perRun), oldest first. */
export async function faultedGamesOf(sql: Sql, runId: number): Promise<FaultedGameRow[]> {
  return sql<FaultedGameRow[]>`
    select ${selectColumns(sql, spsaFaultedGame, EXPORTED, "f")}, i.iteration_number as iteration
    from spsa_faulted_game f join spsa_iteration i on i.id = f.iteration_id
    where f.run_id = ${runId} order by f.id`;
}
