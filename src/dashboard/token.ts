import { closeSync, constants, fstatSync, openSync, readFileSync } from "node:fs";
import { InputError } from "../errors.js";

/** The environment variable that holds the dashboard's token (a command line is visible to every local user in `ps`). */
export const TOKEN_ENV = "SPSA_DASHBOARD_TOKEN";
const MIN_LENGTH = 8;

/** The token from `--token-file`, else from $SPSA_DASHBOARD_TOKEN, else none. */
export function readDashboardToken(tokenFile: string | undefined, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (tokenFile !== undefined) return checked(readTokenFile(tokenFile), tokenFile);
  const value = env[TOKEN_ENV];
  return value === undefined || value === "" ? undefined : checked(value, TOKEN_ENV);
}

/**
 * One line, from a regular file of this user that no one else can read. Opened without
 * following a symbolic link, and checked on the open descriptor, so that what is checked is
 * what is read.
 */
function readTokenFile(file: string): string {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (error) {
    throw new InputError(file, `cannot open the token file: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new InputError(file, "the token file is not a regular file");
    if (process.getuid !== undefined && stat.uid !== process.getuid()) throw new InputError(file, "the token file belongs to another user");
    if ((stat.mode & 0o077) !== 0) throw new InputError(file, `others can read the token file (mode ${(stat.mode & 0o777).toString(8)}): chmod 600 ${file}`);
    const lines = readFileSync(fd, "utf8").replace(/\r?\n$/, "").split(/\r?\n/);
    if (lines.length !== 1) throw new InputError(file, "the token file must hold one line: the token");
    return lines[0]!;
  } finally {
    closeSync(fd);
  }
}

function checked(token: string, where: string): string {
  if (token.length < MIN_LENGTH || /\s/.test(token)) throw new InputError(where, `the token must be at least ${MIN_LENGTH} characters, without spaces`);
  return token;
}
