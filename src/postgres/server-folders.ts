import { existsSync, lstatSync, readdirSync, readFileSync, rmdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { execa } from "execa";
import { DatabaseError } from "../core/errors.js";
import { asUser, userWithUid, type ServiceUser } from "./run-as.js";
import { keyOf, readOwnerMarker, SERVER_FOLDER, serverRoot } from "./server-files.js";

/**
 * Root's server folders (`<root>/spsa-pg-<hash>`, server-files.ts), found and removed: each
 * knows its home from its marker, and one whose home is gone is an orphan. Everything inside a
 * folder is done as the folder's owner (the server's user), never by root by path: reading the
 * server's pid, stopping it, measuring and removing the folder. Only the empty folder itself,
 * an entry of root's folder, is removed by root if its owner could not.
 */

/**
 * In use (its home exists), orphaned (its home is gone), or unmarked (made by a version without
 * markers, or its marker is not ours).
 */
export type FolderState = "in use" | "orphaned" | "unmarked";

export interface ServerFolder {
  path: string;
  state: FolderState;
  /** The home its marker names. */
  home: string | undefined;
  /** Its server's pid, while one runs in it. */
  serverPid: number | undefined;
  bytes: number | undefined;
  /** Whom its commands run as: undefined for ourselves. */
  owner: ServiceUser | undefined;
}

/** The server folders under `root` this process may act on: all of them as root, its own otherwise. */
export async function listServerFolders(root = serverRoot()): Promise<ServerFolder[]> {
  const folders: ServerFolder[] = [];
  if (!existsSync(root)) return folders;
  for (const name of readdirSync(root).sort()) {
    const match = SERVER_FOLDER.exec(name);
    const path = join(root, name);
    const owner = match && ownerOf(path);
    if (!match || owner === null) continue;
    const home = readOwnerMarker(path);
    const state: FolderState =
      home === undefined || keyOf(home) !== match[1] ? "unmarked" : existsSync(home) ? "in use" : "orphaned";
    folders.push({
      path,
      state,
      home: state === "unmarked" ? undefined : home,
      owner,
      serverPid: await runningServer(path, owner),
      bytes: await sizeOf(path, owner),
    });
  }
  return folders;
}

/** Stops the folder's server if one runs in it, then removes the folder, all as its owner. */
export async function removeServerFolder(path: string): Promise<{ stopped: boolean }> {
  const owner = ownerOf(path);
  if (owner === null) throw new DatabaseError(`${path} is not a folder of this user: it is not removed`);
  const pid = await runningServer(path, owner);
  if (pid !== undefined) await stopServer(path, pid, owner);
  const removed = await execa("rm", ["-rf", "--", path], { reject: false, all: true, ...asUser(owner) });
  // Its owner could empty it, but not remove it from a folder of root's without the sticky bit.
  if (lstatSync(path, { throwIfNoEntry: false })?.isDirectory()) {
    try {
      rmdirSync(path);
    } catch (error) {
      throw new DatabaseError(`cannot remove ${path}: ${String(removed.all ?? "").trim() || (error as Error).message}`);
    }
  }
  return { stopped: pid !== undefined };
}

/**
 * Whom to act as in a folder: undefined for ourselves, its owner as root, null if it is no folder
 * or not ours to act on.
 */
function ownerOf(path: string): ServiceUser | undefined | null {
  const stat = lstatSync(path, { throwIfNoEntry: false });
  if (!stat?.isDirectory()) return null;
  const uid = process.getuid?.();
  if (stat.uid === uid) return undefined;
  return uid === 0 ? userWithUid(stat.uid, stat.gid) : null;
}

/**
 * The pid of the server running in the folder: the pid its postmaster.pid names (read as the
 * owner), if that process is the owner's and works in this folder's data folder (its current
 * folder, where Postgres moves at its start). A stale file whose pid was reused, even by a
 * server of another folder, names no server here.
 */
async function runningServer(path: string, owner: ServiceUser | undefined): Promise<number | undefined> {
  const read = await execa("sh", ["-c", 'head -n 1 -- "$1"', "sh", join(path, "data", "postmaster.pid")], {
    reject: false,
    ...asUser(owner),
  });
  const pid = Number(read.stdout.trim());
  return Number.isInteger(pid) && pid > 0 && servesFolder(pid, path, owner) ? pid : undefined;
}

function servesFolder(pid: number, path: string, owner: ServiceUser | undefined): boolean {
  try {
    const cwd = statSync(`/proc/${pid}/cwd`);
    const data = lstatSync(join(path, "data"));
    const uid = /^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
    return cwd.dev === data.dev && cwd.ino === data.ino && Number(uid) === (owner?.uid ?? process.getuid?.());
  } catch {
    return false;
  }
}

/** How long a fast shutdown may take before the folder is left alone. */
const STOP_TIMEOUT_MS = 60_000;

/** A fast shutdown (SIGINT, as `pg_ctl stop -m fast`), sent as the owner, who can signal no one else's process. */
async function stopServer(path: string, pid: number, owner: ServiceUser | undefined): Promise<void> {
  await execa("sh", ["-c", 'kill -INT "$1"', "sh", String(pid)], { reject: false, ...asUser(owner) });
  const deadline = Date.now() + STOP_TIMEOUT_MS;
  while (servesFolder(pid, path, owner)) {
    if (Date.now() > deadline)
      throw new DatabaseError(
        `the server in ${path} (pid ${pid}) did not stop within ${STOP_TIMEOUT_MS / 1000} s; stop ` +
          `it and run this again`,
      );
    await sleep(100);
  }
}

async function sizeOf(path: string, owner: ServiceUser | undefined): Promise<number | undefined> {
  const result = await execa("du", ["-sb", "--", path], { reject: false, ...asUser(owner) });
  const bytes = Number(result.stdout.split(/\s/)[0]);
  return Number.isFinite(bytes) && result.stdout !== "" ? bytes : undefined;
}
