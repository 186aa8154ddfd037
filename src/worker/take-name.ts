import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { claimWorkerName, type WorkerSession } from "../db/workers.js";
import type { DatabaseHandle } from "../postgres/database-handle.js";
import { InputError } from "../core/errors.js";
import { describeHolder, holderAlive } from "./name-holder.js";
import type { WorkerOptions } from "./worker-options.js";

/**
 * Takes the worker name for this process. Batches an earlier process of the name left
 * claimed (it was killed) return to the pool at once; a live holder makes this one refuse
 * to start, unless forced.
 */
export async function takeName(
  options: Pick<WorkerOptions, "name" | "force" | "concurrency" | "concurrencyNote">,
  db: DatabaseHandle,
  heartbeatMs: number,
  log: (line: string) => void,
): Promise<WorkerSession> {
  const { name } = options;
  const identity = {
    name,
    sessionId: randomUUID(),
    host: hostname(),
    pid: process.pid,
    concurrency: options.concurrency,
    concurrencyNote: options.concurrencyNote,
  };
  const claim = await db
    .retrying((sql) => claimWorkerName(sql, identity, (holder) => !options.force && holderAlive(holder, heartbeatMs)))
    .catch((error: unknown) => {
      // The name was registered by another database role (another worker machine's URL).
      if ((error as { code?: string }).code === "42501") throw new InputError("--name", (error as Error).message);
      throw error;
    });
  if (claim.taken) {
    throw new InputError(
      "--name",
      `worker "${name}" is running (${describeHolder(claim.holder)}); stop it, choose another name, ` +
        `or pass --force to take the name over`,
    );
  }
  if (claim.holder && options.force && holderAlive(claim.holder, heartbeatMs)) {
    log(
      `worker ${name}: took the name over from a live worker (${describeHolder(claim.holder)}); it ` +
        `stops at its next heartbeat`,
    );
  }
  const { batches, games } = claim.released;
  if (batches > 0)
    log(`worker ${name}: returned ${batches} batches (${games} games) of an earlier process of this name to the pool`);
  return identity;
}
