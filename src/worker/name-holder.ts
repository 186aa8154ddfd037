import { hostname } from "node:os";
import type { NameHolder } from "../db/workers.js";
import { holderRuns, MISSED_HEARTBEATS } from "../core/holder.js";

/**
 * Whether the process holding a worker name still runs: dead once its heartbeat is a few
 * intervals old, and on this host as soon as its pid is gone (src/core/holder.ts).
 */
export function holderAlive(holder: NameHolder, heartbeatMs: number, host = hostname()): boolean {
  return holderRuns(holder, holder.secondsSinceSeen * 1000 > MISSED_HEARTBEATS * heartbeatMs, host);
}

/** "pid 123 on host-a, seen 2 s ago", for messages. */
export function describeHolder(holder: NameHolder): string {
  return (
    `${holder.pid === null ? "" : `pid ${holder.pid} on `}${holder.host}, seen ` +
    `${Math.round(holder.secondsSinceSeen)} s ago`
  );
}
