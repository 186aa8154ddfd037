import type postgres from "postgres";
import type { IterationMoveLimit } from "../config/iteration-settings.js";
import type { PairCounts } from "../play/match-tally.js";
import type { RowOf } from "./columns.js";
import { addToCounters, counterValues } from "./fault-columns.js";
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
  "iterationNumber" | "plusEnginePath" | "minusEnginePath" | "plusEngineSha256" | "minusEngineSha256" | "timelowMs" | "timehighMs"
> & {
  batchId: number;
  iterationId: number;
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

/** A batch's games, counted from the plus engine's side (plus is each pair's first engine). */
export interface BatchReport extends PairCounts {
  batchId: number;
  workerName: string;
}

export type ReportOutcome = "accepted" | "duplicate" | "refused";

/** Returns batches whose lease ran out to the pool; their games become claimable again. */
export async function expireLeases(sql: Sql): Promise<number> {
  return (await returnToPool(sql, sql`lease_expires_at < now()`)).batches;
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
 * Returns the claimed batches that `which` selects to the pool: they become `expired` (a
 * late report is refused) and their games claimable again; waiting workers are woken.
 */
export async function returnToPool(sql: Sql, which: postgres.PendingQuery<postgres.Row[]>): Promise<{ batches: number; games: number }> {
  const [row] = await sql<{ batches: number; games: number }[]>`
    with expired as (
      update spsa_batch set status = 'expired'
      where status = 'claimed' and ${which}
      returning iteration_id, games
    ), released as (
      update spsa_iteration i set games_claimed = i.games_claimed - e.games
      from (select iteration_id, sum(games)::int as games from expired group by iteration_id) e
      where i.id = e.iteration_id
      returning i.id
    )
    select count(*)::int as batches, coalesce(sum(games), 0)::int as games from expired`;
  const released = { batches: row?.batches ?? 0, games: row?.games ?? 0 };
  if (released.batches > 0) await sql`select pg_notify(${WORK_CHANNEL}, '')`;
  return released;
}

/**
 * Claims up to `maxGames` games of the oldest open iteration, never beyond its target:
 * the iteration row is locked, the grant is least(maxGames, target - claimed), and a batch
 * row with a lease records it — all in one transaction.
 */
export async function claimBatch(sql: postgres.Sql, workerName: string, maxGames: number, leaseSeconds: number, onClaim?: ClaimHook): Promise<ClaimedBatch | undefined> {
  return sql.begin(async (tx) => {
    const [iteration] = await tx<{ id: number; remaining: number }[]>`
      select i.id, i.target_games - i.games_claimed as remaining
      from spsa_iteration i join spsa_run r on r.id = i.run_id
      where i.status <> 'complete' and i.games_claimed < i.target_games and r.status = 'active'
      order by i.id
      limit 1
      for update of i`;
    if (!iteration) return undefined;
    const games = Math.min(maxGames, iteration.remaining);
    const [claimed] = await tx<ClaimedBatch[]>`
      with granted as (
        update spsa_iteration set games_claimed = games_claimed + ${games}, status = 'in_progress'
        where id = ${iteration.id}
        returning *
      ), batch as (
        insert into spsa_batch (iteration_id, worker_name, games, lease_expires_at)
        values (${iteration.id}, ${workerName}, ${games}, now() + make_interval(secs => ${leaseSeconds}))
        returning id
      )
      select batch.id::int as "batchId", g.id as "iterationId", g.iteration_number as "iterationNumber",
             r.name as "runName", ${games}::int as games,
             g.plus_engine_path as "plusEnginePath", g.minus_engine_path as "minusEnginePath",
             g.plus_engine_sha256 as "plusEngineSha256", g.minus_engine_sha256 as "minusEngineSha256",
             g.timelow_ms as "timelowMs", g.timehigh_ms as "timehighMs",
             g.settings->'moveLimit' as "moveLimit", (g.settings->>'referenceNps')::float8 as "referenceNps"
      from granted g, batch, spsa_run r where r.id = g.run_id`;
    return claimed && onClaim ? onClaim(tx, claimed, workerName) : claimed;
  });
}

/**
 * Extends the leases of a worker's batches that are still claimed and marks the worker
 * seen. Returns the batches it still holds, and whether its name is still its own (another
 * process takes it over with `--force`).
 */
export async function heartbeat(sql: Sql, worker: WorkerSession, batchIds: number[], leaseSeconds: number): Promise<{ held: number[]; ownsName: boolean }> {
  const seen = await sql`update spsa_worker set last_seen_at = now() where name = ${worker.name} and session_id = ${worker.sessionId}`;
  if (seen.count === 0 || batchIds.length === 0) return { held: [], ownsName: seen.count > 0 };
  const rows = await sql<{ id: number }[]>`
    update spsa_batch set lease_expires_at = now() + make_interval(secs => ${leaseSeconds})
    where id = any(${batchIds}::bigint[]) and worker_name = ${worker.name} and status = 'claimed'
    returning id::int as id`;
  return { held: rows.map((r) => r.id), ownsName: true };
}

/**
 * Adds a batch's results to its iteration, once. The counters move only if the batch goes
 * from claimed to done in this transaction; a replay of an accepted report is a
 * "duplicate", a report for a batch that expired (and may have been reclaimed) is "refused".
 */
export async function reportBatch(sql: postgres.Sql, report: BatchReport, onReport?: ReportHook): Promise<ReportOutcome> {
  const played = report.wins + report.losses + report.draws;
  const counters = counterValues(report.faults);
  return sql.begin(async (tx) => {
    const [batch] = await tx<{ iteration_id: number; games: number }[]>`
      update spsa_batch set status = 'done', reported_at = now(),
        plus_wins = ${report.wins}, minus_wins = ${report.losses}, draws = ${report.draws},
        pairs = ${tx.json(report.pairs)}, faults = ${tx.json(counters)}
      where id = ${report.batchId} and worker_name = ${report.workerName} and status = 'claimed' and games = ${played}
      returning iteration_id, games`;
    if (!batch) {
      const [existing] = await tx<{ status: string; games: number }[]>`
        select status, games from spsa_batch where id = ${report.batchId} and worker_name = ${report.workerName}`;
      if (existing && existing.status === "claimed") {
        throw new Error(`batch ${report.batchId} has ${existing.games} games, the report has ${played}`);
      }
      return existing?.status === "done" ? "duplicate" : "refused";
    }
    const [ll, ld, dd, dw, ww] = report.pairs;
    const delayLosses = report.faults[0].delay + report.faults[1].delay;
    await tx`
      update spsa_iteration set
        games_played = games_played + ${played},
        plus_wins = plus_wins + ${report.wins}, minus_wins = minus_wins + ${report.losses}, draws = draws + ${report.draws},
        pairs_ll = pairs_ll + ${ll}, pairs_ld = pairs_ld + ${ld}, pairs_dd = pairs_dd + ${dd},
        pairs_dw = pairs_dw + ${dw}, pairs_ww = pairs_ww + ${ww},
        ${addToCounters(tx, counters)},
        replays = replays + ${report.replays}, replay_limit_pairs = replay_limit_pairs + ${report.replayLimitPairs}
      where id = ${batch.iteration_id}`;
    await tx`
      update spsa_worker set games_played = games_played + ${played}, last_seen_at = now(),
        delay_losses = delay_losses + ${delayLosses}, replays = replays + ${report.replays}
      where name = ${report.workerName}`;
    await onReport?.(tx, report);
    await tx`select pg_notify(${PROGRESS_CHANNEL}, ${String(batch.iteration_id)})`;
    return "accepted";
  });
}
