import { setTimeout as sleep } from "node:timers/promises";
import { DatabaseError } from "../core/errors.js";
import { OutageLog, stoppedDuringOutage, type Outage } from "./outage-log.js";
import { backoffDelay } from "./reconnect-backoff.js";
import type { Database } from "./connection.js";

/**
 * What this process says of its database's outages. One per process: a process of this tool
 * works on one database, and its retry loops (a worker's claims, reports and heartbeats, the
 * demo's master and worker) share one account of it.
 */
const outages = new OutageLog();

/** The outage this process is in, if its last attempt to reach the database failed. */
export function databaseOutage(): Outage | undefined {
  return outages.current;
}

/**
 * What a command ends with when `error` ended it: after a stop (`signal`) while the database
 * is unreachable, a DatabaseError (exit 3) whose one line says what stays `behind`; else `error`.
 */
export function stopDuringOutage(error: unknown, signal: AbortSignal | undefined, behind: string): unknown {
  const outage = outages.current;
  return signal?.aborted && outage ? new DatabaseError(stoppedDuringOutage(outage, Date.now(), behind)) : error;
}

/**
 * A long command's work on a database connection of its own: closed at the end (at once after
 * a stop: a query the database has not answered is given up on), and a stop during an outage
 * turned into a DatabaseError (exit 3) saying what stays `behind`.
 */
export async function onOwnDatabase<T>(
  database: Database,
  signal: AbortSignal | undefined,
  behind: string,
  work: () => Promise<T>,
): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw stopDuringOutage(error, signal, behind);
  } finally {
    await database.close(signal?.aborted ? 0 : 5);
  }
}

/**
 * Retries database work through outages (a restarted Postgres) with capped, jittered
 * exponential backoff (at least one attempt every BACKOFF_CAP_MS), saying so on `log` as
 * OutageLog words it. `signal` ends it at once, a query in flight included (left to finish or
 * fail unseen: closing the client ends it), with the signal's reason.
 */
export async function withRetry<T>(
  log: (line: string) => void,
  signal: AbortSignal | undefined,
  work: () => Promise<T>,
): Promise<T> {
  for (let failures = 1; ; failures++) {
    signal?.throwIfAborted();
    try {
      return await observed(log, untilAborted(work(), signal));
    } catch (error) {
      if (!isConnectionError(error)) throw error;
      signal?.throwIfAborted();
      await sleep(backoffDelay(failures), undefined, { signal });
    }
  }
}

/** Database work that is not retried (a heartbeat), told to the outage log like a retried one. */
export async function observed<T>(log: (line: string) => void, work: Promise<T>): Promise<T> {
  let line: string | undefined;
  try {
    const result = await work;
    line = outages.succeeded(Date.now());
    return result;
  } catch (error) {
    if (isConnectionError(error)) line = outages.failed((error as Error).message, Date.now());
    throw error;
  } finally {
    if (line !== undefined) log(line);
  }
}

/** `work`, or a rejection with the signal's reason as soon as it fires. */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

export function isConnectionError(error: unknown): boolean {
  const { code = "", syscall } = error as { code?: string; syscall?: string };
  // A stopped embedded server removes its Unix socket: connecting then fails with ENOENT.
  if (code === "ENOENT" && syscall === "connect") return true;
  return [
    "ECONNREFUSED",
    "ECONNRESET",
    "CONNECTION_CLOSED",
    "CONNECTION_ENDED",
    "CONNECTION_DESTROYED",
    "CONNECT_TIMEOUT",
    "EPIPE",
    "57P01",
    "57P02",
    "57P03",
    "08006",
    "08001",
    "08003",
  ].includes(code);
}
