import { releaseClaims } from "../db/batches.js";
import type { WorkerSession } from "../db/workers.js";
import type { DatabaseHandle } from "../postgres/database-handle.js";
import { stoppedDuringOutage } from "../postgres/outage-log.js";
import { databaseOutage } from "../postgres/retry.js";
import type { PlayableBatch } from "./option-draw.js";

/**
 * After a stop: the batches this process still holds go back to the pool at once. The stop's
 * line, and whether batches are `left` claimed because the database could not take them back
 * in time (they come back when their leases end).
 */
export async function handBack(
  name: string,
  session: WorkerSession,
  holding: ReadonlyMap<number, PlayableBatch>,
  reports: DatabaseHandle,
): Promise<{ line: string; batches: number; left: boolean }> {
  if (holding.size === 0) return { line: `worker ${name}: stopped`, batches: 0, left: false };
  try {
    const { batches, games } = await reports.retrying((sql) => releaseClaims(sql, session));
    const returned =
      batches === 0 ? "" : `; ${batchesOf(batches, games)} it had not finished or reported went back to the pool`;
    return { line: `worker ${name}: stopped${returned}`, batches, left: false };
  } catch {
    const held = [...holding.values()];
    const games = held.reduce((sum, batch) => sum + batch.games, 0);
    const lease = Math.max(...held.map((batch) => batch.leaseSeconds));
    const [stay, end, go] =
      held.length === 1 ? ["stays", "its lease ends", "returns"] : ["stay", "their leases end", "return"];
    const behind =
      `${batchesOf(held.length, games)} ${stay} claimed until ${end} (within ${lease} ` + `s), then ${go} to the pool`;
    const outage = databaseOutage();
    const stopped = outage
      ? stoppedDuringOutage(outage, Date.now(), behind)
      : `stopped while the database did not answer in time; ${behind}`;
    const line = `worker ${name}: ${stopped}`;
    return { line, batches: held.length, left: true };
  }
}

/** "1 batch (8 games)", "2 batches (16 games)". */
function batchesOf(batches: number, games: number): string {
  return `${batches} ${batches === 1 ? "batch" : "batches"} (${games} games)`;
}
