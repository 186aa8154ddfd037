import { hostname } from "node:os";
import { processExists } from "./process-exists.js";

/** A process holding something (a worker name, a run's lease), as its row records it. */
export interface ProcessHolder {
  host: string;
  pid: number | null;
}

/** Heartbeats a holder may miss before its hold lapses. */
export const MISSED_HEARTBEATS = 3;

/**
 * How often a holder renews its hold: a third of the lease, and at least every 10 s, so a holder
 * on another host that died is recognised within 30 s.
 */
export function heartbeatInterval(leaseSeconds: number): number {
  return Math.min((leaseSeconds * 1000) / 3, 10_000);
}

/**
 * Whether the process holding something still runs. One whose hold lapsed (it missed a few
 * heartbeats) is dead. On this host its pid decides at once, so a process restarted after
 * kill -9 takes over without waiting; on another host only the heartbeat can tell.
 */
export function holderRuns(holder: ProcessHolder, lapsed: boolean, host = hostname()): boolean {
  if (lapsed) return false;
  // Our own pid is a holder that died before us (a restarted container reuses its pids).
  if (holder.host === host && holder.pid !== null) return holder.pid !== process.pid && processExists(holder.pid);
  return true;
}
