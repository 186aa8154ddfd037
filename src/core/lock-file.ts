import { closeSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { processExists } from "./process-exists.js";

/**
 * A cross-process lock: a file created with O_EXCL holding the owner's pid. A lock whose
 * owner is dead (kill -9) is taken over, so a crashed starter never blocks the next one.
 */
export async function withFileLock<T>(path: string, timeoutMs: number, action: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (tryAcquire(path)) break;
    if (Date.now() > deadline) throw new Error(`timed out waiting for lock ${path} (held by pid ${readOwner(path)})`);
    await sleep(50);
  }
  try {
    return await action();
  } finally {
    unlinkSync(path);
  }
}

function tryAcquire(path: string): boolean {
  try {
    const fd = openSync(path, "wx", 0o644);
    writeSync(fd, String(process.pid));
    closeSync(fd);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  const owner = readOwner(path);
  // An empty file is normally a lock being written right now; it is stale only if old.
  if (owner === undefined ? isOlderThan(path, 5_000) : !processExists(owner)) {
    try {
      if (readOwner(path) === owner) unlinkSync(path);
    } catch {
      // Another process removed it first; just retry.
    }
  }
  return false;
}

function isOlderThan(path: string, ms: number): boolean {
  try {
    return Date.now() - statSync(path).mtimeMs > ms;
  } catch {
    return false;
  }
}

function readOwner(path: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(path, "utf8"), 10);
    return Number.isFinite(pid) ? pid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether the lock is held by a live process (a lock of a dead owner, or being written this very
 * moment and old, is not).
 */
export function lockHeld(path: string): boolean {
  const owner = readOwner(path);
  if (owner !== undefined) return processExists(owner);
  try {
    statSync(path);
  } catch {
    return false;
  }
  return !isOlderThan(path, 5_000);
}
