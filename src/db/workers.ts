import type postgres from "postgres";
import { returnToPool } from "./batches.js";
import type { spsaWorker } from "./schema.js";

type WorkerRow = typeof spsaWorker.$inferSelect;

/** A worker process: its name, and the random id that tells it from an earlier process of that name. */
export type WorkerSession = Pick<WorkerRow, "name"> & { sessionId: string };

export type WorkerIdentity = WorkerSession & Pick<WorkerRow, "host" | "pid" | "concurrency"> & { concurrencyNote?: string };

/** The process holding a name, as its row tells; seconds are measured by the database's clock. */
export type NameHolder = Pick<WorkerRow, "host" | "pid" | "sessionId"> & { secondsSinceSeen: number };

export type NameClaim =
  | { taken: true; holder: NameHolder }
  | { taken: false; holder: NameHolder | undefined; released: { batches: number; games: number } };

/**
 * Takes the worker name for this process, in one transaction: the name's row is locked,
 * and unless `isAlive` says its holder still runs, the row becomes this process's and the
 * batches still claimed under the name go back to the pool at once (their holder is dead,
 * and its games would otherwise wait out their leases). A live holder is left alone.
 */
export async function claimWorkerName(sql: postgres.Sql, identity: WorkerIdentity, isAlive: (holder: NameHolder) => boolean): Promise<NameClaim> {
  const { name, sessionId, host, pid, concurrency } = identity;
  // A restarted worker's note replaces its predecessor's (none: the concurrency was given).
  const concurrencyNote = identity.concurrencyNote ?? null;
  return sql.begin(async (tx) => {
    const inserted = await tx`
      insert into spsa_worker (name, host, pid, session_id, concurrency, concurrency_note)
      values (${name}, ${host}, ${pid}, ${sessionId}, ${concurrency}, ${concurrencyNote})
      on conflict (name) do nothing`;
    const [holder] = await tx<NameHolder[]>`
      select host, pid, session_id as "sessionId", extract(epoch from now() - last_seen_at)::float8 as "secondsSinceSeen"
      from spsa_worker where name = ${name} for update`;
    const previous = inserted.count === 0 ? holder : undefined;
    if (previous && isAlive(previous)) return { taken: true, holder: previous };
    await tx`
      update spsa_worker set host = ${host}, pid = ${pid}, session_id = ${sessionId}, concurrency = ${concurrency},
        concurrency_note = ${concurrencyNote}, started_at = now(), last_seen_at = now(), measured_nps = null, time_factor = null
      where name = ${name}`;
    const released = await returnToPool(tx, tx`worker_name = ${name}`);
    return { taken: false, holder: previous, released };
  });
}

/** Records a worker's lowered concurrency and why (spsa_worker.concurrency, concurrency_note). */
export async function recordConcurrency(sql: postgres.Sql, session: WorkerSession, concurrency: number, note: string): Promise<void> {
  await sql`
    update spsa_worker set concurrency = ${concurrency}, concurrency_note = ${note}
    where name = ${session.name} and session_id = ${session.sessionId}`;
}

/** Records the engine speed a worker measured and the time factor it plays with (spsa_worker.measured_nps, time_factor). */
export async function recordSpeed(sql: postgres.Sql, session: WorkerSession, measuredNps: number, timeFactor: number): Promise<void> {
  await sql`
    update spsa_worker set measured_nps = ${measuredNps}, time_factor = ${timeFactor}
    where name = ${session.name} and session_id = ${session.sessionId}`;
}
