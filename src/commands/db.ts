import { execa } from "execa";
import { applyMigrations, libpqVariables, openDatabase, redactUrl, resolveDatabaseUrl, withoutPassword } from "../db/connection.js";
import { binaries, embeddedPassFile, embeddedServer, embeddedState, ensureEmbeddedServer, setEmbeddedListen, embeddedEndpoint, stopEmbeddedServer, type EmbeddedServer } from "../db/embedded.js";
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
  return `${server.dataDir} (private to user "${serverUser()?.name ?? "?"}"; binaries in ${binaries(server).native})`;
}

/**
 * `spsa db start`: starts the embedded server (and migrates it). `listen` (`--listen
 * ADDR[:PORT]`) makes it accept TCP connections too, for workers on other machines;
 * `false` (`--no-listen`) goes back to the socket only. Both are kept for later starts.
 */
export async function dbStart(options: DbCommandOptions & { listen?: string | false } = {}): Promise<void> {
  const log = options.log ?? console.log;
  if (usesExternal(options)) {
    log(`${externalNote}; nothing to start`);
    return;
  }
  const server = embeddedServer();
  if (options.listen !== undefined) await setEmbeddedListen(server, options.listen === false ? undefined : options.listen);
  const url = await ensureEmbeddedServer(server);
  await applyMigrations(url);
  const { listen, port } = embeddedEndpoint(server);
  log(`embedded Postgres running at ${redactUrl(url)}${listen ? `, and on TCP ${listen} port ${port}` : ""}`);
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

/** `spsa db url`: the URL without its password (psql and other tools take it from `spsa db env`'s PGPASSFILE). */
export async function dbUrl(options: DbCommandOptions = {}): Promise<void> {
  const log = options.log ?? console.log;
  const { url } = await resolveDatabaseUrl(databaseOptionsFrom(options.config));
  log(withoutPassword(url));
}

/**
 * `spsa db env`: libpq's variables for the database, as `export` lines for `eval`, so that
 * any Postgres tool finds it; the password is in a 0600 file (PGPASSFILE), never printed.
 */
export async function dbEnv(options: DbCommandOptions = {}): Promise<void> {
  const log = options.log ?? console.log;
  const { url, embedded } = await resolveDatabaseUrl(databaseOptionsFrom(options.config));
  const variables = libpqVariables(url);
  if (embedded) variables.PGPASSFILE = embeddedPassFile(embeddedServer());
  for (const [key, value] of Object.entries(variables)) log(`export ${key}=${shellQuote(value)}`);
}

/** `spsa db psql [args…]`: opens psql on the configured database, the password in psql's environment only. */
export async function dbPsql(options: DbCommandOptions & { args?: string[] } = {}): Promise<void> {
  const { url } = await resolveDatabaseUrl(databaseOptionsFrom(options.config));
  await applyMigrations(url);
  const password = decodeURIComponent(new URL(url).password);
  // A process's environment is readable by its user only; its command line by everyone (ps).
  const env = { ...cleanLibpqEnv(), ...(password === "" ? {} : { PGPASSWORD: password }) };
  const result = await execa("psql", [withoutPassword(url), ...(options.args ?? [])], { stdio: "inherit", reject: false, env, extendEnv: false });
  if (result.failed && result.exitCode === undefined) {
    throw new SpsaError("psql is not installed: install the PostgreSQL client (apt-get install postgresql-client)");
  }
  process.exitCode = result.exitCode ?? 1;
}

/** Our environment without libpq's variables, so that psql sees only the ones we give it. */
function cleanLibpqEnv(): Record<string, string> {
  return Object.fromEntries(Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined && !entry[0].startsWith("PG") && entry[0] !== "DATABASE_URL"));
}

function shellQuote(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}
