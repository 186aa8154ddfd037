import { openDatabase } from "../postgres/connection.js";
import { backoffSocketFactory } from "../postgres/reconnect-backoff.js";
import { isLoopback } from "../dashboard/access.js";
import { startDashboard } from "../dashboard/server.js";
import { readDashboardToken, TOKEN_ENV } from "../dashboard/token.js";
import { InputError } from "../core/errors.js";
import { databaseOptionsFrom } from "./database-options.js";

export interface DashboardCommandOptions {
  config?: string;
  host?: string;
  port?: number;
  /** The token's file; without it, $SPSA_DASHBOARD_TOKEN (from `env`) if set. */
  tokenFile?: string;
  env?: NodeJS.ProcessEnv;
  /** `--token` was given: refused (a command line is visible to every local user). */
  tokenOnCommandLine?: boolean;
  allowHosts?: readonly string[];
  maxClients?: number;
  log?: (line: string) => void;
  /** Stops the server. */
  signal?: AbortSignal;
}

/** `spsa dashboard`: a read-only live web page about the runs, until stopped. */
export async function dashboardCommand(options: DashboardCommandOptions = {}): Promise<void> {
  const log = options.log ?? console.log;
  const host = options.host ?? "127.0.0.1";
  const port = options.port ?? 8080;
  if (options.tokenOnCommandLine)
    throw new InputError(
      "--token",
      `every local user sees a command line (ps): put the token in $${TOKEN_ENV} or in a file for --token-file`,
    );
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new InputError("--port", `must be 0 … 65535, got ${port}`);
  const token = readDashboardToken(options.tokenFile, options.env);
  if (!isLoopback(host) && token === undefined) {
    throw new InputError(
      "--host",
      `${host} is reachable from other machines: set a token first ($${TOKEN_ENV} or --token-file FILE)`,
    );
  }
  // The reconnect loop spaces its attempts out: a stopped server is not hammered, nor a stand-in on its port.
  const database = await openDatabase({
    ...databaseOptionsFrom(options.config),
    socket: backoffSocketFactory(),
    applicationName: "spsa-dashboard",
  });
  try {
    const dashboard = await startDashboard({
      sql: database.sql,
      host,
      port,
      token,
      allowHosts: options.allowHosts,
      maxClients: options.maxClients,
    });
    const access =
      token === undefined ? "" : "; open it once as ?token=TOKEN (then a cookie) or send Authorization: Bearer TOKEN";
    log(`dashboard at ${dashboard.url} (read-only${access}; Ctrl-C stops it)`);
    await new Promise<void>((resolve) => {
      if (options.signal?.aborted) resolve();
      options.signal?.addEventListener("abort", () => resolve(), { once: true });
    });
    await dashboard.close();
  } finally {
    await database.close();
  }
}
