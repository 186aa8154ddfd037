import { closeSync, constants, fstatSync, openSync, readFileSync } from "node:fs";
import { InputError } from "./errors.js";

/**
 * A secret file (`what` names it in messages): a regular file of this user that no one else can
 * read. Opened without following a symbolic link and checked on the open descriptor, so that
 * what is checked is what is read. Undefined if the file does not exist.
 */
export function readPrivateFile(path: string, what: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return undefined;
    throw new InputError(path, `cannot open the ${what}: ${code ?? (error as Error).message}`);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new InputError(path, `the ${what} is not a regular file`);
    if (process.getuid !== undefined && stat.uid !== process.getuid())
      throw new InputError(path, `the ${what} belongs to another user (uid ${stat.uid})`);
    if ((stat.mode & 0o077) !== 0)
      throw new InputError(
        path,
        `others can read the ${what} (mode ${(stat.mode & 0o777).toString(8)}): chmod 600 ${path}, or make a new one`,
      );
    return readFileSync(fd, "utf8");
  } finally {
    closeSync(fd);
  }
}
