import { createHash } from "node:crypto";
import { chownSync, closeSync, constants, existsSync, fstatSync, lstatSync, mkdirSync, openSync, readSync, realpathSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { DatabaseError } from "../core/errors.js";
import { serverUid, type ServiceUser } from "./run-as.js";

/**
 * Where the embedded server's own files (data folder, log, socket, binaries) go. As root
 * the server runs as another user; its files then go to a private folder of that user
 * under /var/tmp, one per `.spsa` folder, which root never writes into by path (the
 * server's user creates what is in it). Without root they stay in `.spsa/pg`.
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
  return join(existsSync("/var/tmp") ? "/var/tmp" : tmpdir(), `spsa-pg-${keyOf(home)}`);
}

/** A socket path longer than this does not fit in sockaddr_un (108 bytes with the NUL). */
const MAX_SOCKET_PATH = 107;

/**
 * The folder of the server's Unix socket: `serverDir` itself (private to the server's user),
 * unless `serverDir/.s.PGSQL.<port>` is too long for a socket; then a private folder in /tmp.
 */
export function socketDirFor(serverDir: string, port: number): string {
  const fits = (dir: string) => Buffer.byteLength(join(dir, `.s.PGSQL.${port}`)) <= MAX_SOCKET_PATH;
  if (fits(serverDir)) return serverDir;
  const short = join(existsSync("/tmp") ? "/tmp" : tmpdir(), `spsa-pg-${keyOf(serverDir)}`);
  if (!fits(short)) throw new DatabaseError(`no folder short enough for the embedded Postgres socket (${short}); set TMPDIR to a shorter path`);
  return short;
}

function keyOf(path: string): string {
  return createHash("sha256").update(realPathOf(path)).digest("hex").slice(0, 16);
}

/** The real path of `path`, which may not exist yet: its deepest existing ancestor resolved. */
function realPathOf(path: string): string {
  if (existsSync(path)) return realpathSync(path);
  const parent = dirname(path);
  return parent === path ? path : join(realPathOf(parent), basename(path));
}

/**
 * Creates `dir` owned by the server's user with mode 0700, or checks that an existing one is
 * such a folder. Only for folders in a sticky world-writable folder (/var/tmp, /tmp) or one of
 * our own: nobody else can then replace the entry we made between mkdir and chown, and a
 * folder (or symlink) planted there by another user is refused.
 */
export function preparePrivateDir(dir: string, user: ServiceUser | undefined): void {
  try {
    mkdirSync(dir, { mode: 0o700 });
    if (user) chownSync(dir, user.uid, user.gid);
    return;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  checkPrivateDir(dir, user);
}

/** Throws unless `dir` is a real folder (not a symlink) of the server's user that nobody else can enter. */
export function checkPrivateDir(dir: string, user: ServiceUser | undefined): void {
  const stat = lstatSync(dir);
  if (!stat.isDirectory() || stat.uid !== serverUid(user) || (stat.mode & 0o077) !== 0) {
    throw new DatabaseError(
      `${dir} exists but is not a private folder (mode 0700) of user "${user?.name ?? "you"}"; remove it so the embedded Postgres can use it`,
    );
  }
}

/**
 * The last `bytes` of a file of the server's user, read without following a symlink and only
 * if that user owns it: as root, the log is the server's user's to replace, and must not make
 * root read (and print) some other file.
 */
export function readOwnedTail(path: string, user: ServiceUser | undefined, bytes: number): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile() || stat.uid !== serverUid(user)) return undefined;
    const length = Math.min(bytes, stat.size);
    const buffer = Buffer.alloc(length);
    const read = readSync(fd, buffer, 0, length, stat.size - length);
    return buffer.toString("utf8", 0, read);
  } finally {
    closeSync(fd);
  }
}
