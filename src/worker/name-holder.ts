import { hostname } from "node:os";
import type { NameHolder } from "../db/workers.js";
import { processExists } from "../core/process-exists.js";

/** Heartbeats a holder on another host may miss before it counts as dead. */
const MISSED_HEARTBEATS = 3;

/**
 * How often a worker extends its leases and marks itself seen: a third of the lease, and at
 * least every 10 s, so a holder on another host that died is recognised within 30 s.
 */
export function heartbeatInterval(leaseSeconds: number): number {
  return Math.min((leaseSeconds * 1000) / 3, 10_000);
}

/**
 * Whether the process holding a worker name still runs. A holder whose heartbeat is a few
 * intervals old is dead. On this host its pid decides at once, so a worker restarted after
 * kill -9 takes its name (and its predecessor's batches) back without waiting; on another
 * host only the heartbeat can tell.
 */
export function holderAlive(holder: NameHolder, heartbeatMs: number, host = hostname()): boolean {
  if (holder.secondsSinceSeen * 1000 > MISSED_HEARTBEATS * heartbeatMs) return false;
  // Our own pid is a holder that died before us (a restarted container reuses its pids).
  if (holder.host === host && holder.pid !== null) return holder.pid !== process.pid && processExists(holder.pid);
  return true;
}

/** "pid 123 on host-a, seen 2 s ago", for messages. */
export function describeHolder(holder: NameHolder): string {
  return `${holder.pid === null ? "" : `pid ${holder.pid} on `}${holder.host}, seen ${Math.round(holder.secondsSinceSeen)} s ago`;
}
