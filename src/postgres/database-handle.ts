import type postgres from "postgres";
import { observed, untilAborted, withRetry } from "./retry.js";

/**
 * A process's way to its database: the client, with the log its outages are said on and the
 * stop that ends its waits. Made once where a command's work starts (a master, a worker, a
 * verification); `retrying` is how that work reaches the database through outages, so the
 * retry policy (src/postgres/retry.ts) is nowhere else.
 */
export class DatabaseHandle {
  constructor(
    /** The client: for work that is not retried (best-effort writes, a transaction's own retry). */
    readonly sql: postgres.Sql,
    private readonly log: (line: string) => void,
    /** Ends every wait of the handle at once, a query in flight included. */
    readonly signal?: AbortSignal,
  ) {}

  /**
   * `work`, retried through database outages with capped backoff until it gets through or the
   * handle's stop comes; an outage is said on the log at its start, once a minute while it
   * lasts, and at its end. Anything but a lost connection fails at once.
   */
  retrying<T>(work: (sql: postgres.Sql) => Promise<T>): Promise<T> {
    return withRetry(this.log, this.signal, () => work(this.sql));
  }

  /** `work` once, not retried (the next heartbeat is), its outage said like a retried one's. */
  once<T>(work: (sql: postgres.Sql) => Promise<T>): Promise<T> {
    return observed(this.log, work(this.sql));
  }

  /** `work` once, ended at the stop (rejecting with its reason), told to no log. */
  untilStopped<T>(work: (sql: postgres.Sql) => Promise<T>): Promise<T> {
    return untilAborted(work(this.sql), this.signal);
  }

  /** The same database and log under another stop (a worker's reports get a patience of their own after its stop). */
  stoppedBy(signal: AbortSignal | undefined): DatabaseHandle {
    return new DatabaseHandle(this.sql, this.log, signal);
  }
}
