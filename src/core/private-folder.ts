import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readFileSync, realpathSync } from "node:fs";
import { dirname } from "node:path";
import { InputError } from "./errors.js";

/** The sticky bit: in such a folder (/tmp) only an entry's owner may rename or remove it. */
const STICKY = 0o1000;

/**
 * A folder only this process's user can write (`what` names it in messages), made 0700 if
 * missing. It must be ours, mode 0700, and no symbolic link; and no folder above it may let
 * another user rename it away (each is root's or ours, and writable by others only with the
 * sticky bit, as /tmp): what is checked here is then what a later path through it reaches.
 */
export function privateFolder(folder: string, what: string): string {
  try {
    mkdirSync(folder, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new InputError(folder, `cannot make the ${what}: ${(error as Error).message}`);
  }
  const uid = process.getuid?.();
  const stat = lstatSync(folder);
  const fix = `remove it (it is made again, 0700) or point SPSA_HOME elsewhere`;
  if (stat.isSymbolicLink()) throw new InputError(folder, `the ${what} is a symbolic link: ${fix}`);
  if (!stat.isDirectory()) throw new InputError(folder, `the ${what} is not a folder: ${fix}`);
  if (uid !== undefined && stat.uid !== uid)
    throw new InputError(
      folder,
      `the ${what} belongs to another user (uid ${stat.uid}, this process runs as ${uid}): ${fix}`,
    );
  if ((stat.mode & 0o777) !== 0o700)
    throw new InputError(folder, `the ${what} has mode ${(stat.mode & 0o777).toString(8)}, not 700: ${fix}`);
  for (let above = realpathSync(dirname(folder)); ; above = dirname(above)) {
    const parent = lstatSync(above);
    const othersWrite = (parent.mode & 0o022) !== 0 && (parent.mode & STICKY) === 0;
    if ((uid !== undefined && parent.uid !== 0 && parent.uid !== uid) || othersWrite) {
      throw new InputError(
        folder,
        `another user could replace the ${what}: ${above} belongs to uid ${parent.uid} with mode ` +
          `${(parent.mode & 0o7777).toString(8)}; point SPSA_HOME to a folder of your own`,
      );
    }
    if (above === dirname(above)) return folder;
  }
}

/**
 * The whole content of a regular file of at most `maxBytes`, read once (undefined if there is
 * none): not through a symbolic link when `noFollow`, and never blocking on a FIFO or device
 * planted in its place.
 */
export function readRegularFile(path: string, noFollow: boolean, maxBytes: number): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | (noFollow ? constants.O_NOFOLLOW : 0));
  } catch {
    return undefined;
  }
  try {
    const stat = fstatSync(fd);
    return stat.isFile() && stat.size <= maxBytes ? readFileSync(fd) : undefined;
  } finally {
    closeSync(fd);
  }
}
