import type postgres from "postgres";
import { asJson, type Sql } from "../postgres/sql.js";
import { selectAll } from "./columns.js";
import { spsaShipCheck, type ShipCandidate, type ShipMatch } from "./schema.js";
import { finite } from "./verifications.js";
import type { PlayLimits, SprtBounds } from "../types/play.js";

/** SQL of the ship check (docs/ship-check.md): one row per run, written by its master only. */

export type ShipCheckRow = typeof spsaShipCheck.$inferSelect;

export async function readShipCheck(sql: Sql, runId: number): Promise<ShipCheckRow | undefined> {
  const [row] = await sql<ShipCheckRow[]>`
    select ${selectAll(sql, spsaShipCheck)}
    from spsa_ship_check
    where run_id = ${runId}`;
  return row;
}

export interface NewShipCheck {
  runId: number;
  limits: PlayLimits;
  sprt: SprtBounds;
  maxGames: number;
  eliminationGames: number;
  candidates: ShipCandidate[];
}

/**
 * The run's ship check: the one it has (a restarted master continues it as it started), else a new
 * one with these settings.
 */
export async function openShipCheck(sql: postgres.Sql, it: NewShipCheck): Promise<ShipCheckRow> {
  await sql`
    insert into spsa_ship_check (run_id, limits, sprt, max_games, elimination_games, candidates)
    values (${it.runId}, ${sql.json(asJson(it.limits))}, ${sql.json({ ...it.sprt })}, ${it.maxGames},
      ${it.eliminationGames}, ${sql.json(it.candidates.map((c) => ({ label: c.label, values: c.values })))})
    on conflict (run_id) do nothing`;
  const row = await readShipCheck(sql, it.runId);
  if (!row) throw new Error(`ship check of run ${it.runId} vanished`);
  return row;
}

/** The elimination so far and the candidate it leaves (idempotent: a restart writes the same again). */
export async function recordElimination(
  sql: postgres.Sql,
  id: number,
  elimination: ShipMatch[],
  chosen: ShipCandidate,
): Promise<void> {
  await sql`
    update spsa_ship_check
    set elimination = ${sql.json(elimination.map((m) => ({ ...m })))},
      chosen = ${chosen.label},
      chosen_parameters = ${sql.json(chosen.values)}
    where id = ${id}`;
}

export interface ShipOutcome {
  verdict: "pass" | "fail" | "undecided" | null;
  elo: number;
  eloError: number;
  llr: number | null;
  games: number;
}

/** The chosen candidate's test against the start θ so far; `complete` ends the check. */
export async function recordShipOutcome(
  sql: postgres.Sql,
  id: number,
  outcome: ShipOutcome,
  complete: boolean,
): Promise<void> {
  await sql`
    update spsa_ship_check
    set verdict = ${outcome.verdict},
      elo = ${finite(outcome.elo)},
      elo_error = ${finite(outcome.eloError)},
      llr = ${outcome.llr},
      games = ${outcome.games},
      status = ${complete ? "complete" : "running"},
      completed_at = ${complete ? sql`now()` : null}
    where id = ${id}`;
}
