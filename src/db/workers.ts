import type postgres from "postgres";
import type { spsaWorker } from "./schema.js";
import { WORK_CHANNEL } from "../postgres/channels.js";
import type { Sql } from "../postgres/sql.js";

type WorkerRow = typeof spsaWorker.$inferSelect;

/** A worker process: its name, and the random id that tells it from an earlier process of that name. */
export type WorkerSession = Pick<WorkerRow, "name"> & { sessionId: string };

export type WorkerIdentity = WorkerSession &
  Pick<WorkerRow, "host" | "pid" | "concurrency"> & { concurrencyNote?: string };

/** The process holding a name, as its row tells; seconds are measured by the database's clock. */
export type NameHolder = Pick<WorkerRow, "host" | "pid" | "sessionId"> & { secondsSinceSeen: number };

export type NameClaim =
  | { taken: true; holder: NameHolder }
  | { taken: false; holder: NameHolder | undefined; released: { batches: number; games: number } };

/**
 * Takes the worker name for this process, in one transaction: the name's row is locked
 * (registered for this session's login role if new; a name another role registered is
 * refused), and unless `isAlive` says its holder still runs, the row becomes this process's
 * and the batches still claimed under the name go back to the pool at once (their holder is
 * dead, and its games would otherwise wait out their leases). A live holder is left alone.
 */
export async function claimWorkerName(
  sql: postgres.Sql,
  identity: WorkerIdentity,
  isAlive: (holder: NameHolder) => boolean,
): Promise<NameClaim> {
  const { name, sessionId, host, pid, concurrency } = identity;
  // A restarted worker's note replaces its predecessor's (none: the concurrency was given).
  const concurrencyNote = identity.concurrencyNote ?? null;
  return sql.begin(async (tx) => {
    const [row] = await tx<(NameHolder & { inserted: boolean })[]>`
      select inserted, host, pid, session_id as "sessionId", seconds_since_seen as "secondsSinceSeen"
      from spsa_lock_worker_name(${name}, ${host}, ${pid}, ${sessionId}, ${concurrency}, ${concurrencyNote})`;
    const previous =
      row && !row.inserted
        ? { host: row.host, pid: row.pid, sessionId: row.sessionId, secondsSinceSeen: row.secondsSinceSeen }
        : undefined;
    if (previous && isAlive(previous)) return { taken: true, holder: previous };
    const [released] = await tx<{ batches: number; games: number }[]>`
      select batches, games
      from spsa_take_worker_name(${name}, ${host}, ${pid}, ${sessionId}, ${concurrency}, ${concurrencyNote})`;
    if (released && released.batches > 0) await tx`select pg_notify(${WORK_CHANNEL}, '')`;
    return { taken: false, holder: previous, released: released ?? { batches: 0, games: 0 } };
  });
}

/** Records a worker's lowered concurrency and why (spsa_worker.concurrency, concurrency_note). */
export async function recordConcurrency(
  sql: postgres.Sql,
  session: WorkerSession,
  concurrency: number,
  note: string,
): Promise<void> {
  await sql`
    select spsa_record_worker(${session.name}, ${session.sessionId}, ${concurrency}, ${note}, null, null)`;
}

/**
 * Records the engine speed a worker measured and the time factor it plays with
 * (spsa_worker.measured_nps, time_factor).
 */
export async function recordSpeed(
  sql: postgres.Sql,
  session: WorkerSession,
  measuredNps: number,
  timeFactor: number,
): Promise<void> {
  await sql`
    select spsa_record_worker(${session.name}, ${session.sessionId}, null, null, ${measuredNps}, ${timeFactor})`;
}

/**
 * The game slots of the workers seen in the last `minutes` minutes (the sum of their
 * concurrency): what an iteration's batches are planned for. Each row counts within the
 * bounds spsa_record_worker enforces, so no row can make the plan fail.
 */
export async function activeGameSlots(sql: Sql, minutes = 5): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    select coalesce(sum(least(greatest(concurrency, 1), spsa_limit('concurrency'))), 0)::int as n
    from spsa_worker
    where last_seen_at > now() - make_interval(mins => ${minutes})`;
  return row?.n ?? 0;
}
