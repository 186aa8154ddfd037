import { join } from "node:path";
import { execa } from "execa";
import { applyMigrations, openDatabase, redactUrl, resolveDatabaseUrl } from "../db/connection.js";
import { binaries, embeddedServer, embeddedState, ensureEmbeddedServer, stopEmbeddedServer, type EmbeddedServer } from "../db/embedded.js";
import { databaseOverview } from "../db/overview.js";
import { serverUser } from "../db/run-as.js";
import { inheritedFromPublic, issueWorkerLogin, revokeWorkerLogin, workerLoginRole } from "../db/worker-role.js";
import { SpsaError } from "../errors.js";
import { writeFileAtomic } from "../fs/write-atomic.js";
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

export interface WorkerUrlOptions extends DbCommandOptions {
  /** The worker machine: its login role is spsa_worker_NAME. */
  name: string;
  /** The database's host as workers reach it (default: the host of this machine's URL). */
  host?: string;
  /** Write the URL to this file (mode 0600) instead of stdout. */
  output?: string;
  /** Drop the machine's role instead (its URL stops working, its sessions end). */
  revoke?: boolean;
  /** Notes for the user (stderr): stdout carries only the URL. */
  note?: (line: string) => void;
}

/**
 * `spsa db worker-url --name NAME`: a database URL for one worker machine, whose login role can
 * claim, play and report games and nothing else (docs/worker-role.md). Each run gives the role a
 * new random password: the URL is printed (or written to --output) once and stored nowhere.
 */
export async function dbWorkerUrl(options: WorkerUrlOptions): Promise<void> {
  const log = options.log ?? console.log;
  const note = options.note ?? ((line: string) => process.stderr.write(`${line}\n`));
  const role = workerLoginRole(options.name);
  const database = await openDatabase(databaseOptionsFrom(options.config));
  try {
    if (options.revoke) {
      const { dropped, sessionsEnded } = await revokeWorkerLogin(database.sql, options.name);
      note(!dropped ? `no database role ${role}: nothing to revoke` : `dropped database role ${role}: its URL no longer connects`);
      if (!sessionsEnded) note(`this database role may not end ${role}'s open sessions: stop that worker, or end them as a superuser (pg_terminate_backend)`);
      return;
    }
    const { password, created } = await issueWorkerLogin(database.sql, options.name);
    for (const extra of await inheritedFromPublic(database.sql, role)) note(`warning: ${role} can ${extra}`);
    const url = workerUrl(database.url, role, password, options.host);
    if (options.output) writeFileAtomic(options.output, `${url}\n`, { mode: 0o600 });
    else log(url);
    const where = options.output ? `written to ${options.output} (mode 0600)` : "printed above";
    note(`${created ? "created database role" : "new password for database role"} ${role}: the worker URL is ${where}; ` +
      `give it to that machine only (DATABASE_URL=... compete --spsa)${created ? "" : "; its previous URL no longer connects"}`);
    const reach = reachNote(database.embedded, new URL(url).hostname);
    if (reach) note(reach);
  } finally {
    await database.close();
  }
}

/** The owner's URL with the worker's login role and password, and the host workers reach. */
export function workerUrl(ownerUrl: string, role: string, password: string, host: string | undefined): string {
  const url = new URL(ownerUrl);
  url.username = encodeURIComponent(role);
  url.password = encodeURIComponent(password);
  if (host !== undefined) url.hostname = host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
  return url.href;
}

/**
 * What the user must do so that workers reach the embedded server at `host`: it listens on
 * 127.0.0.1 only until started with --listen (the seam for `spsa db start --listen ADDR`).
 */
function reachNote(embedded: boolean, host: string): string | undefined {
  if (!embedded) return undefined;
  const loopback = ["127.0.0.1", "localhost", "[::1]"].includes(host);
  return loopback
    ? "the URL reaches the embedded server from this machine only: for workers elsewhere, give --host ADDR and start the server with `spsa db start --listen ADDR`"
    : `the embedded server listens on 127.0.0.1 only: run \`spsa db start --listen ${host}\` so that workers reach it at ${host}`;
}
