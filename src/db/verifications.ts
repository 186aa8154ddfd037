import type postgres from "postgres";
import { asJson, type Sql } from "../postgres/sql.js";
import { closeOpenBatches } from "./fold.js";
import { selectColumns, type RowOf } from "./columns.js";
import { spsaIteration, spsaVerification } from "./schema.js";
import type { Pentanomial, SprtBounds, PlayLimits } from "../types/play.js";
import type { Values } from "../types/spsa.js";

/** SQL of `spsa verify`: its row, and the carrier run whose one iteration holds the games. */

const VERIFICATION_KEYS = [
  "id",
  "carrierRunId",
  "status",
  "fromLabel",
  "toLabel",
  "maxGames",
  "sprt",
  "limits",
] as const;
const GAMES_KEYS = ["gamesClaimed", "gamesPlayed", "targetGames", "plusWins", "minusWins", "draws"] as const;

/** A verification, with its carrier run's name and the games of the carrier's iteration. */
export type VerificationRow = RowOf<typeof spsaVerification, (typeof VERIFICATION_KEYS)[number]> &
  RowOf<typeof spsaIteration, (typeof GAMES_KEYS)[number]> & {
    carrierName: string;
    iterationId: number;
    pairs: Pentanomial;
  };

/**
 * A verification row with its carrier's name and its games, from `spsa_verification v` and its
 * carrier run and iteration.
 */
const SELECT_VERIFICATIONS = (sql: Sql) => sql`
  select ${selectColumns(sql, spsaVerification, VERIFICATION_KEYS, "v")},
    c.name as "carrierName",
    i.id as "iterationId",
    ${selectColumns(sql, spsaIteration, GAMES_KEYS, "i")},
    json_build_array(i.pairs_ll, i.pairs_ld, i.pairs_dd, i.pairs_dw, i.pairs_ww) as pairs
  from spsa_verification v
  join spsa_run c on c.id = v.carrier_run_id
  join spsa_iteration i on i.run_id = c.id`;

export interface NewVerification {
  runId: number;
  runName: string;
  fromLabel: string;
  toLabel: string;
  fromValues: Values;
  toValues: Values;
  maxGames: number;
  sprt: SprtBounds | undefined;
  limits: PlayLimits;
  /** A ship check's match: the check and its stage (unique per check). */
  ship?: { checkId: number; stage: string };
  /** Transfer in the run: the tuning iteration whose plus and minus play (unique). */
  transferIterationId?: number;
}

/** The running verification of this run comparing the same two θ at the same limits, to resume after a kill. */
export async function findRunningVerification(
  sql: Sql,
  runId: number,
  fromLabel: string,
  toLabel: string,
  limits: PlayLimits,
): Promise<VerificationRow | undefined> {
  const [row] = await sql<VerificationRow[]>`
    ${SELECT_VERIFICATIONS(sql)}
    where v.run_id = ${runId}
      and v.from_label = ${fromLabel}
      and v.to_label = ${toLabel}
      and v.status = 'running'
      and v.ship_check_id is null
      and v.transfer_iteration_id is null
      and v.limits = ${sql.json(asJson(limits))}
    order by v.id desc
    limit 1`;
  return row;
}

/** The match of a ship check's stage, running or complete, to resume or read after a kill. */
export async function findShipVerification(
  sql: Sql,
  shipCheckId: number,
  stage: string,
): Promise<VerificationRow | undefined> {
  const [row] = await sql<VerificationRow[]>`
    ${SELECT_VERIFICATIONS(sql)}
    where v.ship_check_id = ${shipCheckId}
      and v.ship_stage = ${stage}`;
  return row;
}

/** The run's transfer matches still playing (transfer in the run), oldest first. */
export async function runningTransfers(sql: Sql, runId: number): Promise<VerificationRow[]> {
  return sql<VerificationRow[]>`
    ${SELECT_VERIFICATIONS(sql)}
    where v.run_id = ${runId}
      and v.transfer_iteration_id is not null
      and v.status = 'running'
    order by v.id`;
}

/**
 * The carrier run of a new verification (the caller inserts its iteration, then the
 * verification row, in the same transaction): under the run's lock, so that the carriers'
 * numbers are unique.
 */
export async function insertCarrierRun(
  tx: postgres.TransactionSql,
  it: Pick<NewVerification, "runId" | "runName" | "toValues">,
): Promise<{ id: number; uid: string }> {
  await tx`select pg_advisory_xact_lock(hashtext(${`spsa_verify:${it.runId}`}))`;
  const [{ n } = { n: 0 }] = await tx<{ n: number }[]>`
    select count(*)::int as n
    from spsa_verification
    where run_id = ${it.runId}`;
  const [carrier] = await tx<{ id: number; uid: string }[]>`
    insert into spsa_run (name, seed, config, initial_parameters, current_parameters)
    values (${`${it.runName}/verify-${n + 1}`}, 'verify', ${tx.json({ verifies: it.runName })}, ${tx.json(it.toValues)},
      ${tx.json(it.toValues)})
    returning id, uid`;
  if (!carrier) throw new Error("insert into spsa_run returned nothing");
  return carrier;
}

/** The verification row of a carrier run inserted in the same transaction. */
export async function insertVerification(
  tx: postgres.TransactionSql,
  carrierId: number,
  it: NewVerification,
): Promise<VerificationRow> {
  const [row] = await tx<{ id: number }[]>`
    insert into spsa_verification (run_id, carrier_run_id, from_label, to_label, from_parameters, to_parameters,
      max_games, sprt, limits, ship_check_id, ship_stage, transfer_iteration_id)
    values (${it.runId}, ${carrierId}, ${it.fromLabel}, ${it.toLabel}, ${tx.json(it.fromValues)},
      ${tx.json(it.toValues)}, ${it.maxGames}, ${it.sprt ? tx.json({ ...it.sprt }) : null},
      ${tx.json(asJson(it.limits))}, ${it.ship?.checkId ?? null}, ${it.ship?.stage ?? null},
      ${it.transferIterationId ?? null})
    returning id`;
  if (!row) throw new Error("insert into spsa_verification returned nothing");
  return readVerification(tx, row.id);
}

export async function readVerification(sql: Sql, id: number): Promise<VerificationRow> {
  const [row] = await sql<VerificationRow[]>`
    ${SELECT_VERIFICATIONS(sql)}
    where v.id = ${id}`;
  if (!row) throw new Error(`verification ${id} vanished`);
  return row;
}

/** Once the SPRT has decided, no new games are handed out: the target drops to what is claimed. */
export async function stopHandingOut(sql: postgres.Sql, iterationId: number): Promise<void> {
  await closeOpenBatches(sql, iterationId);
}

export interface VerificationOutcome {
  elo: number;
  eloError: number;
  los: number;
  llr: number | null;
  verdict: string | null;
}

/** Records the outcome so far; `complete` also closes the carrier run, so workers leave it. */
export async function recordOutcome(
  sql: postgres.Sql,
  row: VerificationRow,
  outcome: VerificationOutcome,
  complete: boolean,
): Promise<void> {
  await sql.begin(async (tx) => {
    await tx`
      update spsa_verification
      set elo = ${finite(outcome.elo)},
        elo_error = ${finite(outcome.eloError)},
        los = ${outcome.los},
        llr = ${outcome.llr},
        verdict = ${outcome.verdict},
        status = ${complete ? "complete" : "running"},
        completed_at = ${complete ? tx`now()` : null}
      where id = ${row.id}`;
    if (complete) {
      await tx`
        update spsa_iteration
        set status = 'complete', completed_at = now()
        where id = ${row.iterationId}`;
      await tx`
        update spsa_run
        set status = 'complete', completed_at = now()
        where id = ${row.carrierRunId}`;
    }
  });
}

/** Postgres takes Infinity in double precision, but psql readers are better served by null. */
export function finite(x: number): number | null {
  return Number.isFinite(x) ? x : null;
}
