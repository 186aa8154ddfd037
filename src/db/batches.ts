import type postgres from "postgres";
import type { RowOf } from "./columns.js";
import { counterValues } from "./fault-columns.js";
import { storeFaultedGames, type FaultedGame } from "./faulted-games.js";
import { drawOfBatch, type ClaimedDraw, type KnownList } from "./claimed-draw.js";
import type { spsaIteration } from "./schema.js";
import type { WorkerSession } from "./workers.js";
import type { IterationMoveLimit } from "../types/config.js";
import type { EngineFaults, ReferenceResults } from "../types/engines.js";
import type { PairCounts } from "../types/play.js";
import { WORK_CHANNEL } from "../postgres/channels.js";
import type { Sql } from "../postgres/sql.js";

/**
 * Claiming and reporting batches of games (docs/design-notes.md, patterns from pg-boss and
 * graphile-worker). Every statement that moves a counter runs in a transaction that also
 * changes the batch's status, so a retried or late report can never count twice.
 */

/** A claimed batch: its games, and what the worker needs of its iteration. */
export type ClaimedBatch = RowOf<
  typeof spsaIteration,
  | "iterationNumber"
  | "plusEnginePath"
  | "minusEnginePath"
  | "plusEngineSha256"
  | "minusEngineSha256"
  | "plusEngineSignature"
  | "minusEngineSignature"
  | "timelowMs"
  | "timehighMs"
  | "referenceEnginePath"
  | "referenceEngineSha256"
  | "referenceEngineSignature"
> & {
  batchId: number;
  iterationId: number;
  runId: number;
  /** The run's random uid, which the binaries' signatures name. */
  runUid: string;
  runName: string;
  games: number;
  /** The batch's lease, as its iteration's settings set it (the master's [games] lease_seconds): heartbeats keep it. */
  leaseSeconds: number;
  /** The run's seed: with `firstGame` it picks the batch's openings (src/play/book.ts openingOrder). */
  runSeed: string;
  /**
   * Where the batch's first game is in its run: (iteration number − 1) × the iteration's games
   * (its target_games: every iteration of a build-mode run has as many; the other kinds are one
   * iteration each) + the games before the batch in its iteration. Game pairs at distinct
   * offsets of a run get distinct openings until the book is used up, whichever worker plays them.
   */
  firstGame: number;
  /**
   * The iteration's `[time_control] nodes` or `depth`, or a verification's clock (its settings), or
   * null: a time per move.
   */
  moveLimit: IterationMoveLimit | null;
  /** The iteration's `[time_control] reference_nps`, or null: times per move are not scaled. */
  referenceNps: number | null;
  /**
   * UCI-option mode: the master's draw and the run's signed parameter list (left out when it is
   * a list the claim named as known), from which the worker sets the plus and minus engines'
   * options (both run the same binary). A build-mode batch has none.
   */
  optionDraw?: ClaimedDraw;
};

/** What a claim passes over and what it need not read again. */
export interface ClaimOptions {
  /** Iterations this worker refused the binaries of. */
  skip?: readonly number[];
  /** The parameter lists the worker has, by run (a large run's list is the biggest read of a claim). */
  known?: ReadonlyMap<number, KnownList>;
}

/**
 * A batch's games, counted from the plus engine's side (plus is each pair's first engine). In
 * reference mode its games are θ+'s and θ−'s against the reference (`reference`): wins, losses
 * and draws are then 0, `pairs` holds both sides' pairs against the reference from their side,
 * and `faults` a third entry, the reference engine's.
 */
export interface BatchReport extends Omit<PairCounts, "faults"> {
  batchId: number;
  workerName: string;
  faults: EngineFaults;
  reference?: ReferenceResults;
  /** The first of its games that an engine fault decided, kept with the report (src/db/faulted-games.ts). */
  faultedGames?: readonly FaultedGame[];
}

export type ReportOutcome = "accepted" | "duplicate" | "refused";

/**
 * Returns batches whose lease ran out to the pool; their games become claimable again. Each
 * round of a master or verification waiting for games and of a worker claiming them runs it
 * first, so that a dead worker's games are handed out again whoever looks first.
 */
export async function expireLeases(sql: Sql): Promise<number> {
  return (await returnToPool(sql, null)).batches;
}

/**
 * Returns claimed batches to the pool: the worker's (its login role must have registered the
 * name), or with `null` those whose lease ran out. They become `expired` (a late report is
 * refused) and their games claimable again; waiting workers are woken.
 */
export async function returnToPool(sql: Sql, workerName: string | null): Promise<{ batches: number; games: number }> {
  const [row] = await sql<{ batches: number; games: number }[]>`
    select batches, games
    from spsa_return_to_pool(${workerName})`;
  const released = { batches: row?.batches ?? 0, games: row?.games ?? 0 };
  if (released.batches > 0) await sql`select pg_notify(${WORK_CHANNEL}, '')`;
  return released;
}

/**
 * A worker process that stops returns what it still holds: the claimed batches of its name,
 * while its session holds the name (spsa_release_claims), back to the pool at once, as
 * returnToPool does. Nothing when another process has taken the name over since.
 */
export async function releaseClaims(sql: Sql, worker: WorkerSession): Promise<{ batches: number; games: number }> {
  const [row] = await sql<{ batches: number; games: number }[]>`
    select batches, games
    from spsa_release_claims(${worker.name}, ${worker.sessionId})`;
  const released = { batches: row?.batches ?? 0, games: row?.games ?? 0 };
  if (released.batches > 0) await sql`select pg_notify(${WORK_CHANNEL}, '')`;
  return released;
}

/**
 * Claims up to `maxGames` games of the oldest open iteration, never beyond its target:
 * spsa_claim_batch takes its oldest open batch row that no other claim holds (FOR UPDATE
 * SKIP LOCKED), splitting off what is beyond `maxGames` (a UCI-option batch, drawn by the
 * master, is taken whole), and gives it the iteration's lease; in the same transaction, a
 * UCI-option batch's draw is read with its run's parameter list (spsa_claim_batch hands one out
 * only with its draw; a worker writes none). Iterations in `skip` are passed over. What it reads
 * of its batch comes from spsa_claimed_batch: a worker role may read no batch row itself.
 */
export async function claimBatch(
  sql: postgres.Sql,
  workerName: string,
  maxGames: number,
  { skip = [], known }: ClaimOptions = {},
): Promise<ClaimedBatch | undefined> {
  return sql.begin(async (tx) => {
    const [granted] = await tx<{ batchId: number; iterationId: number; games: number; leaseSeconds: number }[]>`
      select batch_id::int as "batchId", iteration_id as "iterationId", games, lease_seconds as "leaseSeconds"
      from spsa_claim_batch(${workerName}, ${maxGames}, ${skip as number[]}::int[])`;
    if (!granted) return undefined;
    const [claimed] = await tx<ClaimedBatch[]>`
      select ${granted.batchId}::int as "batchId",
        g.id as "iterationId",
        g.iteration_number as "iterationNumber",
        g.run_id as "runId",
        r.uid as "runUid",
        r.name as "runName",
        ${granted.games}::int as games,
        ${granted.leaseSeconds}::float8 as "leaseSeconds",
        r.seed as "runSeed",
        (g.iteration_number - 1) * g.target_games
          + coalesce((select c.games_before from spsa_claimed_batch(${granted.batchId}) c), 0) as "firstGame",
        g.plus_engine_path as "plusEnginePath",
        g.minus_engine_path as "minusEnginePath",
        g.plus_engine_sha256 as "plusEngineSha256",
        g.minus_engine_sha256 as "minusEngineSha256",
        g.plus_engine_signature as "plusEngineSignature",
        g.minus_engine_signature as "minusEngineSignature",
        g.reference_engine_path as "referenceEnginePath",
        g.reference_engine_sha256 as "referenceEngineSha256",
        g.reference_engine_signature as "referenceEngineSignature",
        g.timelow_ms as "timelowMs",
        g.timehigh_ms as "timehighMs",
        g.settings->'moveLimit' as "moveLimit",
        (g.settings->>'referenceNps')::float8 as "referenceNps"
      from spsa_iteration g
      join spsa_run r on r.id = g.run_id
      where g.id = ${granted.iterationId}`;
    if (!claimed) return undefined;
    const optionDraw = await drawOfBatch(tx, claimed.batchId, known?.get(claimed.runId));
    return optionDraw ? { ...claimed, optionDraw } : claimed;
  });
}

/**
 * The reason a claim was turned down for a worker's limit (Postgres' program_limit_exceeded,
 * spsa_claim_batch): its name's claim cap, or its machine's batches given back unplayed in the
 * last minute. Undefined for any other error.
 */
export function overLimit(error: unknown): string | undefined {
  const { code, message } = error as { code?: string; message?: string };
  return code === "54000" ? message : undefined;
}

/**
 * A worker refused the batch's binaries (unsigned, or not signed by a key it trusts): the
 * batch returns to the pool at once and its iteration counts the refusal, in one
 * transaction, so a retry after a lost answer counts nothing twice. Its time counts toward the
 * machine's batches given back per minute (spsa_claim_batch).
 */
export async function refuseBatch(sql: postgres.Sql, batchId: number, workerName: string): Promise<void> {
  const [row] = await sql<{ batches: number }[]>`select spsa_refuse_batch(${batchId}, ${workerName}) as batches`;
  if ((row?.batches ?? 0) > 0) await sql`select pg_notify(${WORK_CHANNEL}, '')`;
}

/**
 * Extends the leases of a worker's batches that are still claimed (each by its iteration's
 * lease) and marks the worker seen. Returns the batches it still holds, and whether its name
 * is still its own (another process takes it over with `--force`).
 */
export async function heartbeat(
  sql: Sql,
  worker: WorkerSession,
  batchIds: number[],
): Promise<{ held: number[]; ownsName: boolean }> {
  const [row] = await sql<{ held: number[]; ownsName: boolean }[]>`
    select held::int[] as held, owns_name as "ownsName"
    from spsa_heartbeat(${worker.name}, ${worker.sessionId}, ${batchIds}::bigint[])`;
  return row ?? { held: [], ownsName: false };
}

/**
 * Records a batch's results, once (spsa_report_batch): on its row and its worker's, only if
 * the batch goes from claimed to done in this transaction, with its faulted games; a replay of
 * an accepted report is a "duplicate", a report for a batch that expired (and may have been
 * reclaimed) is "refused", and neither keeps anything. The iteration's counters follow at its
 * master's next foldIteration.
 */
export async function reportBatch(sql: postgres.Sql, report: BatchReport): Promise<ReportOutcome> {
  const { reference } = report;
  const sides = reference && [reference.plus, reference.minus].flatMap((side) => [side.wins, side.draws, side.losses]);
  return sql.begin(async (tx) => {
    const [row] = await tx<{ outcome: ReportOutcome }[]>`
      select spsa_report_batch(${report.batchId}, ${report.workerName}, ${report.wins}, ${report.losses},
        ${report.draws}, ${report.pairs as number[]}::int[], ${tx.json(counterValues(report.faults))},
        ${report.replays}, ${report.replayLimitPairs}, ${sides ?? null}::int[]) as outcome`;
    const outcome = row?.outcome ?? "refused";
    if (outcome === "accepted" && report.faultedGames)
      await storeFaultedGames(tx, {
        batchId: report.batchId,
        workerName: report.workerName,
        games: report.faultedGames,
      });
    return outcome;
  });
}
