import { createHash } from "node:crypto";
import {
  chownSync,
  closeSync,
  constants,
  existsSync,
  fstatSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readSync,
  realpathSync,
  statSync,
  writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { DatabaseError } from "../core/errors.js";
import { serverUid, type ServiceUser } from "./run-as.js";
import { writeFileAtomic } from "../core/write-atomic.js";

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
 * Where root's server folders go: `$SPSA_SERVER_ROOT`, else /var/tmp, which survives reboots
 * (unlike /tmp). It must be a folder only root can rename entries of: root's own, or a sticky
 * one as /var/tmp.
 */
export function serverRoot(): string {
  return process.env.SPSA_SERVER_ROOT ?? (existsSync("/var/tmp") ? "/var/tmp" : tmpdir());
}

/** A server folder's name: `spsa-pg-` and the key of its home's real path. */
export const SERVER_FOLDER = /^spsa-pg-([0-9a-f]{16})$/;

/**
 * The private folder for the `.spsa` folder `home`, keyed by its real path so that every
 * command (and every spelling of the path) finds the same one and two checkouts never share.
 */
export function privateServerDir(home: string): string {
  return join(serverRoot(), `spsa-pg-${keyOf(home)}`);
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
  if (!fits(short))
    throw new DatabaseError(
      `no folder short enough for the embedded Postgres socket (${short}); set TMPDIR to a shorter path`,
    );
  return short;
}

export function keyOf(path: string): string {
  return createHash("sha256").update(realPathOf(path)).digest("hex").slice(0, 16);
}

/** The real path of `path`, which may not exist yet: its deepest existing ancestor resolved. */
export function realPathOf(path: string): string {
  if (existsSync(path)) return realpathSync(path);
  const parent = dirname(path);
  return parent === path ? path : join(realPathOf(parent), basename(path));
}

/**
 * Creates `dir` owned by the server's user with mode 0700, or checks that an existing one is
 * such a folder. Only for folders in a sticky world-writable folder (/var/tmp, /tmp) or one of
 * our own: nobody else can then replace the entry we made between mkdir and chown, and a
 * folder (or symlink) planted there by another user is refused. `home`: the folder holds that
 * home's server, and says so in its marker (server-folders.ts), written while it is still ours.
 */
export function preparePrivateDir(dir: string, user: ServiceUser | undefined, home?: string): void {
  try {
    mkdirSync(dir, { mode: 0o700 });
    if (home !== undefined) writeOwnerMarker(dir, home);
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
      `${dir} exists but is not a private folder (mode 0700) of user "${user?.name ?? "you"}"; ` +
        `remove it so the embedded Postgres can use it`,
    );
  }
}

/**
 * The last `bytes` of a file of the server's user (undefined: ourselves), read without following
 * a symlink and only if that user owns it and it has no other link: as root, the log is the
 * server's user's to replace, and must not make root read (and print) some other file.
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
    if (!stat.isFile() || stat.uid !== serverUid(user) || stat.nlink !== 1) return undefined;
    const length = Math.min(bytes, stat.size);
    const buffer = Buffer.alloc(length);
    const read = readSync(fd, buffer, 0, length, stat.size - length);
    return buffer.toString("utf8", 0, read);
  } finally {
    closeSync(fd);
  }
}

/**
 * The marker of a server folder: the home (`.spsa` or $SPSA_HOME, its real path) whose server
 * it holds, so that a folder whose home is gone is known as an orphan (`spsa db orphans`).
 */
export const OWNER_MARKER = "owner.json";

interface OwnerMarker {
  home: string;
  created: string;
}

const markerText = (home: string) =>
  JSON.stringify({ home: realPathOf(home), created: new Date().toISOString() } satisfies OwnerMarker);

/** Writes the marker into a folder we just made and still own (by path: nobody else can enter it yet). */
function writeOwnerMarker(dir: string, home: string): void {
  writeFileAtomic(join(dir, OWNER_MARKER), markerText(home), { mode: 0o644 });
}

/**
 * Adds the marker to a server folder made by a version without markers, which its server's user
 * owns: through a descriptor of the folder (`/proc/self/fd/N/…` resolves from the folder itself,
 * not its path), created O_EXCL|O_NOFOLLOW, so a name that user planted is neither followed nor
 * replaced (the folder then stays unmarked). A folder with a marker is left as it is.
 */
export function adoptServerDir(dir: string, home: string): void {
  withFolder(dir, (at) => {
    if (readMarkerAt(at) !== undefined) return;
    let fd: number;
    try {
      fd = openSync(
        at(OWNER_MARKER),
        constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
        0o644,
      );
    } catch {
      return;
    }
    try {
      const bytes = Buffer.from(markerText(home));
      writeSync(fd, bytes);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  });
}

/**
 * The home a server folder's marker names, if the folder has a marker this tool wrote: a regular
 * file of ours (as root: root's, which the server's user cannot make) with one link, read through
 * a descriptor of the folder without following a symlink.
 */
export function readOwnerMarker(dir: string): string | undefined {
  return withFolder(dir, readMarkerAt);
}

function readMarkerAt(at: (name: string) => string): string | undefined {
  // Ours (as root: root's, which the server's user cannot make); a marker is far shorter than this.
  const text = readOwnedTail(at(OWNER_MARKER), undefined, 4096);
  try {
    const marker = JSON.parse(text ?? "") as Partial<OwnerMarker>;
    return typeof marker.home === "string" && marker.home.startsWith("/") ? marker.home : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Runs `work` with paths relative to the folder `dir` itself (opened without following a symlink):
 * undefined if it is no folder.
 */
function withFolder<T>(dir: string, work: (at: (name: string) => string) => T): T | undefined {
  let fd: number;
  try {
    fd = openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  } catch {
    return undefined;
  }
  try {
    return work((name) => `/proc/self/fd/${fd}/${name}`);
  } finally {
    closeSync(fd);
  }
}
