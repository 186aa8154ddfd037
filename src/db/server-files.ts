import { createHash } from "node:crypto";
import { chownSync, existsSync, lstatSync, mkdirSync, realpathSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { DatabaseError } from "../errors.js";
import type { ServiceUser } from "./run-as.js";

/**
 * Where the embedded server's own files (data folder, log, binaries) go. As root the
 * server runs as another user, who cannot enter a checkout in a private folder (/root/x,
 * a `mktemp -d`). Rather than opening the user's folders to others, those files then go
 * to a private folder of the server's user under /var/tmp, one per `.spsa` folder.
 */

/** True when `user` can traverse every existing ancestor of `path` and `path` itself. */
export function reachableBy(path: string, user: ServiceUser): boolean {
  for (let dir = path; ; dir = dirname(dir)) {
    if (existsSync(dir)) {
      const { mode, uid, gid } = statSync(dir);
      const bit = uid === user.uid ? 0o100 : gid === user.gid ? 0o010 : 0o001;
      if ((mode & bit) === 0) return false;
    }
    if (dirname(dir) === dir) return true;
  }
}

/**
 * The private folder for the `.spsa` folder `home`, keyed by its real path so that every
 * command (and every spelling of the path) finds the same one and two checkouts never share.
 * /var/tmp survives reboots, unlike /tmp.
 */
export function privateServerDir(home: string): string {
  const key = createHash("sha256").update(realPathOf(home)).digest("hex").slice(0, 16);
  return join(existsSync("/var/tmp") ? "/var/tmp" : tmpdir(), `spsa-pg-${key}`);
}

/** The real path of `path`, which may not exist yet: its deepest existing ancestor resolved. */
function realPathOf(path: string): string {
  if (existsSync(path)) return realpathSync(path);
  const parent = dirname(path);
  return parent === path ? path : join(realPathOf(parent), basename(path));
}

/**
 * Creates `dir` owned by `user` with mode 0700, or checks that an existing one is such a
 * folder: /var/tmp is writable by everyone, so a folder (or symlink) planted there by
 * another user must not be used.
 */
export function preparePrivateDir(dir: string, user: ServiceUser): void {
  try {
    mkdirSync(dir, { mode: 0o700 });
    chownSync(dir, user.uid, user.gid);
    return;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  const stat = lstatSync(dir);
  if (!stat.isDirectory() || stat.uid !== user.uid || (stat.mode & 0o077) !== 0) {
    throw new DatabaseError(
      `${dir} exists but is not a private folder (mode 0700) of user "${user.name}"; remove it so the embedded Postgres can use it`,
    );
  }
}
