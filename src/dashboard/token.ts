import { InputError } from "../core/errors.js";
import { readPrivateFile } from "../core/read-private.js";

/**
 * The environment variable that holds the dashboard's token (a command line is visible to every
 * local user in `ps`).
 */
export const TOKEN_ENV = "SPSA_DASHBOARD_TOKEN";
const MIN_LENGTH = 8;

/** The token from `--token-file`, else from $SPSA_DASHBOARD_TOKEN, else none. */
export function readDashboardToken(
  tokenFile: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  if (tokenFile !== undefined) return checked(readTokenFile(tokenFile), tokenFile);
  const value = env[TOKEN_ENV];
  return value === undefined || value === "" ? undefined : checked(value, TOKEN_ENV);
}

/** One line, from a file of this user that no one else can read. */
function readTokenFile(file: string): string {
  const content = readPrivateFile(file, "token file");
  if (content === undefined) throw new InputError(file, "cannot open the token file: ENOENT");
  const lines = content.replace(/\r?\n$/, "").split(/\r?\n/);
  if (lines.length !== 1) throw new InputError(file, "the token file must hold one line: the token");
  return lines[0]!;
}

function checked(token: string, where: string): string {
  if (token.length < MIN_LENGTH || /\s/.test(token))
    throw new InputError(where, `the token must be at least ${MIN_LENGTH} characters, without spaces`);
  return token;
}
