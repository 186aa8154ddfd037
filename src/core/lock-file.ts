import { closeSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { processExists } from "./process-exists.js";

/**
 * A cross-process lock: a file created with O_EXCL holding the owner's pid (and, for a holder
 * whose right to the lock is a hold on something else, a token naming that hold). A lock whose
 * owner is dead (kill -9) is taken over, so a crashed starter never blocks the next one; so is
 * one whose holder lost its hold (LockHold), however alive its process (a master stopped with
 * SIGSTOP whose run another master took over).
 */

/** A lock owned through a hold on something else (a master's through its run's lease). */
export interface LockHold {
  /** Written into the lock file after the pid: which hold it is (one line). */
  token: string;
  /** Whether the holder named by `token` (another process's) no longer has its hold: its lock is broken then. */
  lost: (token: string) => Promise<boolean>;
}

/** How often a waiter asks `LockHold.lost` about the lock's holder. */
const HOLD_CHECK_MS = 1_000;

export async function withFileLock<T>(
  path: string,
  timeoutMs: number,
  action: () => Promise<T>,
  hold?: LockHold,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  const content = hold ? `${process.pid}\n${hold.token}` : String(process.pid);
  let checked = 0;
  for (;;) {
    if (tryAcquire(path, content)) break;
    if (hold && Date.now() - checked >= HOLD_CHECK_MS) {
      checked = Date.now();
      await breakIfLost(path, hold);
      continue;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for lock ${path} (held by pid ${readOwner(path)})`);
    await sleep(50);
  }
  try {
    return await action();
  } finally {
    // Only its own lock: one broken meanwhile (this holder lost its hold) may be another's now.
    removeIfHolds(path, content);
  }
}

function tryAcquire(path: string, content: string): boolean {
  try {
    const fd = openSync(path, "wx", 0o644);
    writeSync(fd, content);
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

/** Breaks the lock if its holder recorded a hold token and `hold.lost` says that hold is gone. */
async function breakIfLost(path: string, hold: LockHold): Promise<void> {
  const content = readContent(path);
  const token = content?.split("\n")[1];
  if (token === undefined || token === hold.token) return;
  if (await hold.lost(token)) removeIfHolds(path, content!);
}

function removeIfHolds(path: string, content: string): void {
  try {
    if (readContent(path) === content) unlinkSync(path);
  } catch {
    // Gone already.
  }
}

function isOlderThan(path: string, ms: number): boolean {
  try {
    return Date.now() - statSync(path).mtimeMs > ms;
  } catch {
    return false;
  }
}

function readContent(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

function readOwner(path: string): number | undefined {
  const pid = Number.parseInt(readContent(path) ?? "", 10);
  return Number.isFinite(pid) ? pid : undefined;
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
