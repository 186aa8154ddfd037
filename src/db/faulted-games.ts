import type postgres from "postgres";
import type { Sql } from "../postgres/sql.js";
import { selectColumns, type RowOf } from "./columns.js";
import { spsaFaultedGame } from "./schema.js";
import type { EngineRole } from "../types/engines.js";

/**
 * SQL of spsa_faulted_game: games an engine fault decided, kept with the θ, binaries and
 * worker that played them. Everything else about games stays unsaved.
 */

/**
 * A crashing engine faults every game: only the first few per iteration and worker, and so
 * many per run, are kept. The database function spsa_keep_faulted_games (migration
 * 0010_verify_limits_faulted_games) holds the same numbers and enforces them.
 */
export const FAULTED_GAME_LIMITS = { perIterationAndWorker: 3, perRun: 200 };

/** A faulted game as the worker hands it over. */
export interface FaultedGame {
  /** Pair × 2 + game, within its batch. */
  gameIndex: number;
  /** The engine at fault: plus, minus, or reference mode's reference engine. */
  side: EngineRole;
  fault: string;
  reason: string;
  pgn: string;
}

/**
 * Keeps a reported batch's faulted games, within FAULTED_GAME_LIMITS, with the θ of its
 * iteration (UCI-option mode: of its perturbation). Runs in the report's transaction once
 * the batch turned from claimed to done, so a retried report stores nothing twice (and the
 * unique (batch, game) index would refuse it). Returns the games kept.
 */
export async function storeFaultedGames(
  tx: postgres.TransactionSql,
  batch: { batchId: number; workerName: string; games: readonly FaultedGame[] },
): Promise<number> {
  if (batch.games.length === 0) return 0;
  const games = batch.games.map(({ gameIndex, side, fault, reason, pgn }) => ({ gameIndex, side, fault, reason, pgn }));
  const [row] = await tx<{ kept: number }[]>`
    select spsa_keep_faulted_games(${batch.batchId}, ${batch.workerName}, ${tx.json(games)}) as kept`;
  return row?.kept ?? 0;
}

export async function countFaultedGames(sql: Sql, runId: number): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    select count(*)::int as n
    from spsa_faulted_game
    where run_id = ${runId}`;
  return row?.n ?? 0;
}

const LISTED = [
  "id",
  "side",
  "fault",
  "reason",
  "workerName",
  "plusEngineSha256",
  "minusEngineSha256",
  "createdAt",
] as const;
const EXPORTED = [...LISTED, "pgn", "plusParameters", "minusParameters"] as const;

/** A kept game without its moves, as the dashboard lists it. */
export type FaultedGameSummary = RowOf<typeof spsaFaultedGame, (typeof LISTED)[number]> & { iteration: number };
export type FaultedGameRow = RowOf<typeof spsaFaultedGame, (typeof EXPORTED)[number]> & { iteration: number };

/** The run's latest kept games, newest first. */
export async function latestFaultedGames(sql: Sql, runId: number, limit: number): Promise<FaultedGameSummary[]> {
  return sql<FaultedGameSummary[]>`
    select ${selectColumns(sql, spsaFaultedGame, LISTED, "f")}, i.iteration_number as iteration
    from spsa_faulted_game f
    join spsa_iteration i on i.id = f.iteration_id
    where f.run_id = ${runId}
    order by f.id desc
    limit ${limit}`;
}

/** All of the run's kept games (at most FAULTED_GAME_LIMITS.perRun), oldest first. */
export async function faultedGamesOf(sql: Sql, runId: number): Promise<FaultedGameRow[]> {
  return sql<FaultedGameRow[]>`
    select ${selectColumns(sql, spsaFaultedGame, EXPORTED, "f")}, i.iteration_number as iteration
    from spsa_faulted_game f
    join spsa_iteration i on i.id = f.iteration_id
    where f.run_id = ${runId}
    order by f.id`;
}
