import { openDatabase } from "../db/connection.js";
import { startDashboard } from "../dashboard/server.js";
import { InputError } from "../errors.js";
import { databaseOptionsFrom } from "./database-options.js";

export interface DashboardCommandOptions {
  config?: string;
  host?: string;
  port?: number;
  token?: string;
  log?: (line: string) => void;
  /** Stops the server. */
  signal?: AbortSignal;
}

const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);

/** `spsa dashboard`: a read-only live web page about the runs, until stopped. */
export async function dashboardCommand(options: DashboardCommandOptions = {}): Promise<void> {
  const log = options.log ?? console.log;
  const host = options.host ?? "127.0.0.1";
  const port = options.port ?? 8080;
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new InputError("--port", `must be 0 … 65535, got ${port}`);
  if (options.token !== undefined && options.token.length < 8) throw new InputError("--token", "must be at least 8 characters");
  const database = await openDatabase(databaseOptionsFrom(options.config));
  try {
    const dashboard = await startDashboard({ sql: database.sql, host, port, token: options.token });
    const query = options.token === undefined ? "" : `?token=${encodeURIComponent(options.token)}`;
    log(`dashboard at ${dashboard.url}${query} (read-only; Ctrl-C stops it)`);
    if (!LOOPBACK.has(host) && options.token === undefined) {
      log(`warning: listening on ${host} without --token: anyone who can reach this port can read the runs`);
    }
    await new Promise<void>((resolve) => {
      if (options.signal?.aborted) resolve();
      options.signal?.addEventListener("abort", () => resolve(), { once: true });
    });
    await dashboard.close();
  } finally {
    await database.close();
  }
}
