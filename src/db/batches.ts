import type postgres from "postgres";
import type { IterationMoveLimit } from "../config/iteration-settings.js";
import type { PairCounts } from "../play/match-tally.js";
import { joinFragments, type RowOf } from "./columns.js";
import { assignCounters, counterValues, sumBatchCounters, type SideFaults } from "./fault-columns.js";
import { withRetry } from "./retry.js";
import type { spsaIteration } from "./schema.js";
import type { WorkerSession } from "./workers.js";

/**
 * Claiming and reporting batches of games (docs/design-notes.md, patterns from pg-boss and
 * graphile-worker). Every statement that moves a counter runs in a transaction that also
 * changes the batch's status, so a retried or late report can never count twice.
 */

type Sql = postgres.Sql | postgres.TransactionSql;

export const PROGRESS_CHANNEL = "spsa_progress";
export const WORK_CHANNEL = "spsa_work";

/** A claimed batch: its games, and what the worker needs of its iteration. */
export type ClaimedBatch = RowOf<
  typeof spsaIteration,
  | "iterationNumber" | "plusEnginePath" | "minusEnginePath" | "plusEngineSha256" | "minusEngineSha256"
  | "plusEngineSignature" | "minusEngineSignature" | "timelowMs" | "timehighMs"
  | "referenceEnginePath" | "referenceEngineSha256" | "referenceEngineSignature"
> & {
  batchId: number;
  iterationId: number;
  runId: number;
  runName: string;
  games: number;
  /** The iteration's `[time_control] nodes` or `depth`, or a verification's clock (its settings), or null: a time per move. */
  moveLimit: IterationMoveLimit | null;
  /** The iteration's `[time_control] reference_nps`, or null: times per move are not scaled. */
  referenceNps: number | null;
  /** UCI-option mode: the `setoption`s of the plus and minus engines (both run the same binary). */
  plusOptions?: Record<string, number>;
  minusOptions?: Record<string, number>;
};

/** Runs in the claim's transaction and may add to the batch (UCI-option mode draws its perturbation). */
export type ClaimHook = (tx: postgres.TransactionSql, batch: ClaimedBatch, workerName: string) => Promise<ClaimedBatch>;
/** Runs in the report's transaction once its games are counted, so once per batch. */
export type ReportHook = (tx: postgres.TransactionSql, report: BatchReport) => Promise<void>;

/** Wins, draws and losses of a tuned engine against the reference, from its own side. */
export interface SideCounts {
  wins: number;
  draws: number;
  losses: number;
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
  faults: SideFaults;
  reference?: { plus: SideCounts; minus: SideCounts };
}

export type ReportOutcome = "accepted" | "duplicate" | "refused";

/** Returns batches whose lease ran out to the pool; their games become claimable again. */
export async function expireLeases(sql: Sql): Promise<number> {
  return (await returnToPool(sql, null)).batches;
}

/**
 * `work` after expired leases are returned to the pool, retried through database outages:
 * each round of a master or verification waiting for games and of a worker claiming them,
 * so that a dead worker's games are handed out again whoever looks first.
 */
export async function afterExpiringLeases<T>(sql: postgres.Sql, log: (line: string) => void, signal: AbortSignal | undefined, work: () => Promise<T>): Promise<T> {
  return withRetry(log, signal, async () => {
    await expireLeases(sql);
    return work();
  });
}

/**
 * Returns claimed batches to the pool: the worker's (its login role must have registered the
 * name), or with `null` those whose lease ran out. They become `expired` (a late report is
 * refused) and their games claimable again; waiting workers are woken.
 */
export async function returnToPool(sql: Sql, workerName: string | null): Promise<{ batches: number; games: number }> {
  const [row] = await sql<{ batches: number; games: number }[]>`select batches, games from spsa_return_to_pool(${workerName})`;
  const released = { batches: row?.batches ?? 0, games: row?.games ?? 0 };
  if (released.batches > 0) await sql`select pg_notify(${WORK_CHANNEL}, '')`;
  return released;
}

/**
 * Claims up to `maxGames` games of the oldest open iteration, never beyond its target:
 * spsa_claim_batch takes its oldest open batch row that no other claim holds (FOR UPDATE
 * SKIP LOCKED), splitting off what is beyond `maxGames`, and gives it a lease, in the
 * transaction that also runs `onClaim`. Iterations in `skip` (whose binaries this worker
 * refused) are passed over.
 */
export async function claimBatch(
  sql: postgres.Sql,
  workerName: string,
  maxGames: number,
  leaseSeconds: number,
  onClaim?: ClaimHook,
  skip: readonly number[] = [],
): Promise<ClaimedBatch | undefined> {
  return sql.begin(async (tx) => {
    const [granted] = await tx<{ batchId: number; iterationId: number; games: number }[]>`
      select batch_id::int as "batchId", iteration_id as "iterationId", games
      from spsa_claim_batch(${workerName}, ${maxGames}, ${leaseSeconds}, ${skip as number[]}::int[])`;
    if (!granted) return undefined;
    const [claimed] = await tx<ClaimedBatch[]>`
      select ${granted.batchId}::int as "batchId", g.id as "iterationId", g.iteration_number as "iterationNumber",
             g.run_id as "runId", r.name as "runName", ${granted.games}::int as games,
             g.plus_engine_path as "plusEnginePath", g.minus_engine_path as "minusEnginePath",
             g.plus_engine_sha256 as "plusEngineSha256", g.minus_engine_sha256 as "minusEngineSha256",
             g.plus_engine_signature as "plusEngineSignature", g.minus_engine_signature as "minusEngineSignature",
             g.reference_engine_path as "referenceEnginePath", g.reference_engine_sha256 as "referenceEngineSha256",
             g.reference_engine_signature as "referenceEngineSignature",
             g.timelow_ms as "timelowMs", g.timehigh_ms as "timehighMs",
             g.settings->'moveLimit' as "moveLimit", (g.settings->>'referenceNps')::float8 as "referenceNps"
      from spsa_iteration g join spsa_run r on r.id = g.run_id where g.id = ${granted.iterationId}`;
    return claimed && onClaim ? onClaim(tx, claimed, workerName) : claimed;
  });
}

/**
 * A worker refused the batch's binaries (unsigned, or not signed by a key it trusts): the
 * batch returns to the pool at once and its iteration counts the refusal, in one
 * transaction, so a retry after a lost answer counts nothing twice.
 */
export async function refuseBatch(sql: postgres.Sql, batchId: number, workerName: string): Promise<void> {
  const [row] = await sql<{ batches: number }[]>`select spsa_refuse_batch(${batchId}, ${workerName}) as batches`;
  if ((row?.batches ?? 0) > 0) await sql`select pg_notify(${WORK_CHANNEL}, '')`;
}

/**
 * Extends the leases of a worker's batches that are still claimed and marks the worker
 * seen. Returns the batches it still holds, and whether its name is still its own (another
 * process takes it over with `--force`).
 */
export async function heartbeat(sql: Sql, worker: WorkerSession, batchIds: number[], leaseSeconds: number): Promise<{ held: number[]; ownsName: boolean }> {
  const [row] = await sql<{ held: number[]; ownsName: boolean }[]>`
    select held::int[] as held, owns_name as "ownsName" from spsa_heartbeat(${worker.name}, ${worker.sessionId}, ${batchIds}::bigint[], ${leaseSeconds})`;
  return row ?? { held: [], ownsName: false };
}

/**
 * Records a batch's results, once (spsa_report_batch): on its row and its worker's, only if
 * the batch goes from claimed to done in this transaction; a replay of an accepted report is
 * a "duplicate", a report for a batch that expired (and may have been reclaimed) is "refused".
 * The iteration's counters follow at its master's next foldIteration.
 */
export async function reportBatch(sql: postgres.Sql, report: BatchReport, onReport?: ReportHook): Promise<ReportOutcome> {
  const { reference } = report;
  const sides = reference && [reference.plus, reference.minus].flatMap((side) => [side.wins, side.draws, side.losses]);
  return sql.begin(async (tx) => {
    const [row] = await tx<{ outcome: ReportOutcome }[]>`
      select spsa_report_batch(${report.batchId}, ${report.workerName}, ${report.wins}, ${report.losses}, ${report.draws},
        ${report.pairs as number[]}::int[], ${tx.json(counterValues(report.faults))}, ${report.replays}, ${report.replayLimitPairs},
        ${sides ?? null}::int[]) as outcome`;
    const outcome = row?.outcome ?? "refused";
    if (outcome === "accepted") await onReport?.(tx, report);
    return outcome;
  });
}

/**
 * The iteration's counters from its batches: claimed from the claimed and done rows, results
 * and faults from the done ones, refusals from the refused ones. One statement by one writer
 * (the iteration's master, each poll), so reports never queue on the iteration's row; the
 * counters lag the reports by at most a poll. A complete iteration is left as it is. When
 * they moved, pages that watch (the dashboard) are told once; true then.
 */
export async function foldIteration(sql: Sql, iterationId: number): Promise<boolean> {
  const moved = await sql`
    update spsa_iteration i set ${foldedCounters(sql)} from (${batchSums(sql, iterationId)}) s
    where i.id = ${iterationId} and i.status <> 'complete'
      and (i.games_claimed, i.games_played, i.binaries_refused) is distinct from (s.claimed, s.played, s.binaries_refused)
    returning i.id`;
  if (moved.length > 0) await sql`select pg_notify(${PROGRESS_CHANNEL}, ${String(iterationId)})`;
  return moved.length > 0;
}

/**
 * Stops handing out the iteration's games: its open batches go, its target drops to the games
 * claimed or played, and its counters are folded in the same statement (so they stay within
 * the new target). Returns the games taken back.
 */
export async function closeOpenBatches(sql: Sql, iterationId: number): Promise<number> {
  const [row] = await sql<{ games: number }[]>`
    with gone as (delete from spsa_batch where iteration_id = ${iterationId} and status = 'open' returning games)
    update spsa_iteration i set target_games = i.target_games - (select coalesce(sum(games), 0)::int from gone), ${foldedCounters(sql)}
    from (${batchSums(sql, iterationId)}) s
    where i.id = ${iterationId} and i.status <> 'complete'
    returning (select coalesce(sum(games), 0)::int from gone) as games`;
  return row?.games ?? 0;
}

/** Reference mode's results, the same columns in spsa_batch (as reported) and spsa_iteration (summed). */
const REFERENCE_COUNTERS = ["ref_plus_wins", "ref_plus_draws", "ref_plus_losses", "ref_minus_wins", "ref_minus_draws", "ref_minus_losses"] as const;

function batchSums(sql: Sql, iterationId: number) {
  return sql`
    select coalesce(sum(games) filter (where status in ('claimed', 'done')), 0)::int as claimed,
      coalesce(sum(games) filter (where status = 'done'), 0)::int as played,
      coalesce(sum(plus_wins), 0)::int as plus_wins, coalesce(sum(minus_wins), 0)::int as minus_wins, coalesce(sum(draws), 0)::int as draws,
      coalesce(sum((pairs->>0)::int), 0)::int as pairs_ll, coalesce(sum((pairs->>1)::int), 0)::int as pairs_ld,
      coalesce(sum((pairs->>2)::int), 0)::int as pairs_dd, coalesce(sum((pairs->>3)::int), 0)::int as pairs_dw,
      coalesce(sum((pairs->>4)::int), 0)::int as pairs_ww, ${sumBatchCounters(sql)},
      ${joinFragments(sql, REFERENCE_COUNTERS.map((column) => sql`coalesce(sum(${sql(column)}), 0)::int as ${sql(column)}`), ",")},
      coalesce(sum(replays), 0)::int as replays, coalesce(sum(replay_limit_pairs), 0)::int as replay_limit_pairs,
      (count(*) filter (where refused))::int as binaries_refused
    from spsa_batch where iteration_id = ${iterationId}`;
}

function foldedCounters(sql: Sql) {
  return sql`
    games_claimed = s.claimed, games_played = s.played, plus_wins = s.plus_wins, minus_wins = s.minus_wins, draws = s.draws,
    pairs_ll = s.pairs_ll, pairs_ld = s.pairs_ld, pairs_dd = s.pairs_dd, pairs_dw = s.pairs_dw, pairs_ww = s.pairs_ww,
    ${assignCounters(sql)}, ${joinFragments(sql, REFERENCE_COUNTERS.map((column) => sql`${sql(column)} = s.${sql(column)}`), ",")}, replays = s.replays, replay_limit_pairs = s.replay_limit_pairs, binaries_refused = s.binaries_refused,
    status = case when i.status = 'pending' and s.claimed > 0 then 'in_progress' else i.status end`;
}
