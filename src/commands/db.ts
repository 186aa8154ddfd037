import { join } from "node:path";
import { execa } from "execa";
import { applyMigrations, openDatabase, redactUrl, resolveDatabaseUrl } from "../db/connection.js";
import { binaries, embeddedServer, embeddedState, ensureEmbeddedServer, stopEmbeddedServer, type EmbeddedServer } from "../db/embedded.js";
import { databaseOverview } from "../db/overview.js";
import { serverUser } from "../db/run-as.js";
import { SpsaError } from "../errors.js";
import { databaseOptionsFrom } from "./database-options.js";

export interface DbCommandOptions {
  config?: string;
  log?: (line: string) => void;
}

const externalNote = "DATABASE_URL (or [database].url) is set: the embedded server is not used";

function usesExternal(options: DbCommandOptions): boolean {
  // The config is read even when DATABASE_URL decides: a broken file given is reported, not skipped.
  const { configUrl } = databaseOptionsFrom(options.config);
  return Boolean(process.env.DATABASE_URL || configUrl);
}

/** `spsa db status`: brings the database up (embedded) and reports what it holds. */
export async function dbStatus(options: DbCommandOptions = {}): Promise<void> {
  const log = options.log ?? console.log;
  const database = await openDatabase(databaseOptionsFrom(options.config));
  try {
    const { version, migrations, runs } = await databaseOverview(database.sql);
    log(`database:   ${database.embedded ? "embedded " : ""}Postgres ${version}, running`);
    log(`url:        ${redactUrl(database.url)}`);
    if (database.embedded) log(`data:       ${describeDataDir(embeddedServer())}`);
    log(`migrations: ${migrations} applied`);
    log(`runs:       ${runs.length === 0 ? "none yet" : runs.map((r) => `${r.name} (${r.status}, ${r.iterations} iterations)`).join(", ")}`);
  } finally {
    await database.close();
  }
}

function describeDataDir(server: EmbeddedServer): string {
  if (!server.outsideHome) return server.dataDir;
  return `${server.dataDir} (private to user "${serverUser()?.name ?? "?"}", who cannot reach ${join(server.home, "pg")}; ` +
    `binaries in ${binaries(server).native})`;
}

/** `spsa db start`: starts the embedded server (and migrates it). */
export async function dbStart(options: DbCommandOptions = {}): Promise<void> {
  const log = options.log ?? console.log;
  if (usesExternal(options)) {
    log(`${externalNote}; nothing to start`);
    return;
  }
  const url = await ensureEmbeddedServer(embeddedServer());
  await applyMigrations(url);
  log(`embedded Postgres running at ${redactUrl(url)}`);
}

/** `spsa db stop`: stops the embedded server; workers and masters using it will wait and reconnect. */
export async function dbStop(options: DbCommandOptions = {}): Promise<void> {
  const log = options.log ?? console.log;
  if (usesExternal(options)) {
    log(`${externalNote}; nothing to stop`);
    return;
  }
  const server = embeddedServer();
  log((await stopEmbeddedServer(server)) ? "embedded Postgres stopped" : `embedded Postgres was not running (${await embeddedState(server)})`);
}

/** `spsa db url`: the full URL (with password), for `psql "$(spsa db url)"` and for workers elsewhere. */
export async function dbUrl(options: DbCommandOptions = {}): Promise<void> {
  const log = options.log ?? console.log;
  const { url } = await resolveDatabaseUrl(databaseOptionsFrom(options.config));
  log(url);
}

/** `spsa db psql [args…]`: opens psql on the configured database. */
export async function dbPsql(options: DbCommandOptions & { args?: string[] } = {}): Promise<void> {
  const { url } = await resolveDatabaseUrl(databaseOptionsFrom(options.config));
  await applyMigrations(url);
  const result = await execa("psql", [url, ...(options.args ?? [])], { stdio: "inherit", reject: false });
  if (result.failed && result.exitCode === undefined) {
    throw new SpsaError("psql is not installed: install the PostgreSQL client (apt-get install postgresql-client)");
  }
  process.exitCode = result.exitCode ?? 1;
}
