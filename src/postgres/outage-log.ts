import { formatDuration } from "../core/duration.js";
import { BACKOFF_CAP_MS } from "./reconnect-backoff.js";

/** While the database stays unreachable, a line this often. */
export const OUTAGE_REPORT_MS = 60_000;

/** What a process knows of an outage in progress. */
export interface Outage {
  /** When the first attempt failed (ms since the epoch). */
  sinceMs: number;
  /** The last failure's message, e.g. `connect ENOENT /var/tmp/…/.s.PGSQL.5432`. */
  reason: string;
}

/**
 * What a process says about its database being unreachable: a line at the first failure,
 * one a minute after that with how long it has lasted, and one when it is back. Pure: the
 * caller passes the time and logs what comes back.
 */
export class OutageLog {
  private outage: Outage | undefined;
  private saidAtMs = 0;

  /** The outage in progress, if any. */
  get current(): Outage | undefined {
    return this.outage;
  }

  /** An attempt failed for lack of a connection: the line to log now, if one is due. */
  failed(reason: string, nowMs: number): string | undefined {
    const first = this.outage === undefined;
    this.outage = { sinceMs: this.outage?.sinceMs ?? nowMs, reason };
    if (!first && nowMs - this.saidAtMs < OUTAGE_REPORT_MS) return undefined;
    this.saidAtMs = nowMs;
    const lasted = first ? "" : ` for ${formatDuration((nowMs - this.outage.sinceMs) / 1000)}`;
    return `database unreachable${lasted} (${reason}); retrying at least every ${BACKOFF_CAP_MS / 1000} s`;
  }

  /** An attempt got through: the line to log if the database was unreachable until now. */
  succeeded(nowMs: number): string | undefined {
    const outage = this.outage;
    this.outage = undefined;
    return outage && `database back after ${formatDuration((nowMs - outage.sinceMs) / 1000)}`;
  }
}

/** The outage for a message: its last failure and how long it has lasted, e.g. `connect ENOENT …, for 3m12s`. */
export function describeOutage(outage: Outage, nowMs: number): string {
  return `${outage.reason}, for ${formatDuration((nowMs - outage.sinceMs) / 1000)}`;
}

/** A stop's line while the database is unreachable, with what stays behind (`behind`). */
export function stoppedDuringOutage(outage: Outage, nowMs: number, behind?: string): string {
  return (
    `stopped while the database is unreachable ` +
    `(${describeOutage(outage, nowMs)})${behind === undefined ? "" : `; ${behind}`}`
  );
}
