import { fileURLToPath } from "node:url";
import { drizzle } from "drizzle-orm/postgres-js";
import { readMigrationFiles } from "drizzle-orm/migrator";
import { migrate } from "drizzle-orm/postgres-js/migrator";
import postgres from "postgres";
import { DatabaseError } from "../core/errors.js";
import { embeddedServer, ensureEmbeddedServer } from "./embedded.js";
import { backoffDelay, type SocketFactory } from "./reconnect-backoff.js";
import { canGrantWorkerPrivileges, grantWorkerPrivileges } from "./worker-role.js";

export interface Database {
  url: string;
  /** True when the URL is the embedded server's (no DATABASE_URL, no [database].url). */
  embedded: boolean;
  /**
   * Queries are plain SQL through postgres.js (all of it in src/db/, one module per concern);
   * the drizzle schema defines the tables and generates the migrations. The client is not
   * shared with a drizzle instance, which would replace postgres.js's JSON serializers.
   */
  sql: postgres.Sql;
  /** Ends the client: queries still running get `timeoutSeconds` (default 5) to finish, then fail. */
  close(timeoutSeconds?: number): Promise<void>;
}

export interface DatabaseOptions {
  /** [database].url from config.toml; DATABASE_URL in the environment wins over it. */
  configUrl?: string | undefined;
  /** Where the embedded server lives (default: $SPSA_HOME or .spsa in the checkout). */
  home?: string | undefined;
  /** Connections in the pool. */
  max?: number;
  /**
   * A postgres.js socket factory (e.g. `backoffSocketFactory()`, for a client that must not hammer
   * a missing server).
   */
  socket?: SocketFactory;
  /**
   * Shown in pg_stat_activity.application_name (e.g. `spsa-worker`), so operators can count
   * connections per kind of process.
   */
  applicationName?: string;
}

const MIGRATIONS_FOLDER = fileURLToPath(new URL("../../migrations", import.meta.url));
/** Arbitrary, fixed key: every process of this tool migrates under the same advisory lock. */
const MIGRATION_LOCK_KEY = 0x5b5a_7e11;

/** The URL to use: DATABASE_URL, else the config's url, else the embedded server (started if needed). */
export async function resolveDatabaseUrl(options: DatabaseOptions): Promise<{ url: string; embedded: boolean }> {
  const external = process.env.DATABASE_URL || options.configUrl;
  if (external) return { url: external, embedded: false };
  return { url: await ensureEmbeddedServer(embeddedServer(options.home)), embedded: true };
}

/** Connects and applies pending migrations: every command that needs the database calls this. */
export async function openDatabase(options: DatabaseOptions = {}): Promise<Database> {
  const { url, embedded } = await resolveDatabaseUrl(options);
  await applyMigrations(url, options.applicationName);
  const sql = connect(url, options.max ?? 4, named(options.applicationName), options.socket);
  return { url, embedded, sql, close: (timeoutSeconds = 5) => sql.end({ timeout: timeoutSeconds }) };
}

/**
 * A client of `max` connections; `socket` as in DatabaseOptions. Statements are never
 * prepared (named): a named statement lives in one server session, and behind a pooler in
 * transaction mode (PgBouncer before 1.21) the next transaction may run on another, which
 * fails with "prepared statement does not exist". Always, not per URL: a forgotten option
 * would fail only once a pooler is put in front, and the saving is small (docs/scaling-out.md).
 * After a failed connection the next waits backoffDelay, as withRetry does: postgres.js's own
 * backoff grows to 20 s, and a query queued behind it (a heartbeat, a claim) waited as long for
 * its next attempt, and held a stopped process that long.
 */
export function connect(
  url: string,
  max: number,
  options: postgres.Options<Record<string, postgres.PostgresType>> = {},
  socket?: SocketFactory,
): postgres.Sql {
  const [plain, folder] = socketAware(url);
  const backoff = (failures: number) => backoffDelay(failures) / 1000;
  const all = { max, onnotice: () => {}, connect_timeout: 10, prepare: false, backoff, ...folder, ...options };
  // postgres.js takes a socket factory; its types do not list the option.
  return postgres(plain, socket === undefined ? all : Object.assign(all, { socket }));
}

/**
 * postgres.js takes a Unix socket folder only as its `host` option, and would send a `host`
 * query parameter to the server as a setting; libpq (psql) reads `?host=/folder` in the URL,
 * which is how the embedded server's URL names its socket. This moves it to the option.
 */
function socketAware(url: string): [string, { host?: string }] {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return [url, {}];
  }
  const host = parsed.searchParams.get("host");
  if (!host?.startsWith("/")) return [url, {}];
  parsed.searchParams.delete("host");
  return [parsed.toString(), { host }];
}

function named(applicationName: string | undefined): postgres.Options<Record<string, postgres.PostgresType>> {
  return applicationName === undefined ? {} : { connection: { application_name: applicationName } };
}

/**
 * drizzle's migrator takes no lock, and several processes migrating at once failed
 * (docs/design-notes.md); a transaction-level advisory lock serialises them. Not a session
 * lock: behind a pooler in transaction mode its unlock could run in another server session
 * and leave the lock held for good. The client is closed before the caller opens its own,
 * so a process never holds two connections.
 */
export async function applyMigrations(url: string, applicationName?: string): Promise<void> {
  const sql = connect(url, 1, named(applicationName));
  try {
    await sql.begin(async (tx) => {
      await tx`select pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`;
      // A worker role may not migrate (docs/worker-role.md), and needs not when the owner did.
      if (await migrationsPending(tx))
        await migrate(drizzle(nestable(tx, sql)), { migrationsFolder: MIGRATIONS_FOLDER });
      if (await canGrantWorkerPrivileges(tx)) await grantWorkerPrivileges(tx);
    });
  } catch (error) {
    const hint =
      (error as { code?: string }).code === "42501"
        ? " (a worker role cannot migrate: run `spsa db start` or the master with the owner's URL first)"
        : "";
    throw new DatabaseError(`cannot prepare the database at ${redactUrl(url)}: ${(error as Error).message}${hint}`, {
      cause: error,
    });
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/**
 * A transaction as drizzle's migrator wants a client: it opens its own transaction with
 * `begin`, which inside ours becomes a savepoint, so the migrations run under our lock; it
 * reads (and changes) the client's `options`, those of the migration-only client.
 */
function nestable(tx: postgres.TransactionSql, client: postgres.Sql): postgres.Sql {
  const begin = (fn: (inner: postgres.TransactionSql) => unknown) => tx.savepoint(fn);
  const own: Record<PropertyKey, unknown> = { begin, options: client.options };
  return new Proxy(tx, {
    get: (target, key) => (key in own ? own[key] : Reflect.get(target, key)),
  }) as unknown as postgres.Sql;
}

/** Whether the newest migration is newer than the last one applied (drizzle's own test). */
async function migrationsPending(sql: postgres.TransactionSql): Promise<boolean> {
  const newest = Math.max(...readMigrationFiles({ migrationsFolder: MIGRATIONS_FOLDER }).map((m) => m.folderMillis));
  const [table] = await sql<
    { exists: boolean }[]
  >`select to_regclass('drizzle.__drizzle_migrations') is not null as exists`;
  if (!table?.exists) return true;
  const [last] = await sql<
    { at: string | null }[]
  >`select max(created_at)::text as at from drizzle.__drizzle_migrations`;
  return Number(last?.at ?? 0) < newest;
}

/** The URL with no password at all: safe to print, and psql takes the password from its environment or PGPASSFILE. */
export function withoutPassword(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.password = "";
    return parsed.toString();
  } catch {
    return redactUrl(url);
  }
}

/** libpq's variables for a URL (PGHOST, PGPORT, PGUSER, PGDATABASE, PGSSLMODE), without the password. */
export function libpqVariables(url: string): Record<string, string> {
  const parsed = new URL(url);
  const entries: [string, string | null][] = [
    ["PGHOST", parsed.searchParams.get("host") ?? parsed.hostname],
    ["PGPORT", parsed.searchParams.get("port") ?? parsed.port],
    ["PGUSER", decodeURIComponent(parsed.username)],
    ["PGDATABASE", decodeURIComponent(parsed.pathname.slice(1))],
    ["PGSSLMODE", parsed.searchParams.get("sslmode")],
  ];
  return Object.fromEntries(entries.filter((entry): entry is [string, string] => Boolean(entry[1])));
}

/**
 * Where a URL points, for messages: its database, and the host or Unix socket folder and port
 * it is reached at (as libpq reads the URL: `?host=` and `?port=` win); never a user or password.
 */
export function describeDatabase(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "a database whose URL does not parse";
  }
  const name = decodeURIComponent(parsed.pathname.slice(1)) || decodeURIComponent(parsed.username) || "postgres";
  const host = parsed.searchParams.get("host") ?? (parsed.hostname || "localhost");
  const port = parsed.searchParams.get("port") ?? (parsed.port || "5432");
  return `database "${name}" on ${host.startsWith("/") ? `the Unix socket in ${host}` : host}, port ${port}`;
}

/** The URL with its password hidden, for messages and status output. */
export function redactUrl(url: string): string {
  return url.replace(/(\/\/[^:/@]+:)[^@]*@/, "$1***@");
}
