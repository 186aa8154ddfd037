import { hostname } from "node:os";
import { execa } from "execa";
import {
  applyMigrations,
  connect,
  libpqVariables,
  openDatabase,
  redactUrl,
  resolveDatabaseUrl,
  withoutPassword,
} from "../postgres/connection.js";
import { existsSync } from "node:fs";
import { dirname } from "node:path";
import {
  binaries,
  embeddedEndpoint,
  embeddedPassFile,
  embeddedServer,
  embeddedState,
  embeddedUrl,
  ensureEmbeddedServer,
  removeEmbeddedServer,
  setEmbeddedListen,
  stopEmbeddedServer,
  type EmbeddedServer,
} from "../postgres/embedded.js";
import { listServerFolders, removeServerFolder, type ServerFolder } from "../postgres/server-folders.js";
import { serverRoot } from "../postgres/server-files.js";
import { databaseOverview } from "../db/overview.js";
import { serverUser } from "../postgres/run-as.js";
import { inheritedFromPublic, issueWorkerLogin, revokeWorkerLogin, workerLoginRole } from "../postgres/worker-role.js";
import { InputError, SpsaError } from "../core/errors.js";
import { writeFileAtomic } from "../core/write-atomic.js";
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
    log(
      `runs:       ${runs.length === 0 ? "none yet" : runs.map((r) => `${r.name} (${r.status}, ${r.iterations} iterations)`).join(", ")}`,
    );
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
  if (options.listen !== undefined)
    await setEmbeddedListen(server, options.listen === false ? undefined : options.listen);
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
  log(
    (await stopEmbeddedServer(server))
      ? "embedded Postgres stopped"
      : `embedded Postgres was not running (${await embeddedState(server)})`,
  );
}

/**
 * `spsa db remove`: the embedded server and its data removed for good (stopped first). Without
 * `yes` it only says what would go (exit 2); it is refused while other clients are connected
 * (a worker or a master would lose its database under it). Nothing to do with DATABASE_URL set.
 */
export async function dbRemove(options: DbCommandOptions & { yes?: boolean } = {}): Promise<void> {
  const log = options.log ?? console.log;
  if (usesExternal(options)) {
    log(`${externalNote}; nothing to remove`);
    return;
  }
  const server = embeddedServer();
  const state = await embeddedState(server);
  if (state === "absent" && !existsSync(server.connectionFile)) {
    log(`no embedded Postgres in ${server.home}: nothing to remove`);
    return;
  }
  const what =
    `the embedded Postgres of ${server.home} and every run in it ` +
    `(${server.outsideHome ? server.serverDir : dirname(server.connectionFile)})`;
  if (!options.yes) throw new InputError("--yes", `spsa db remove deletes ${what}; run it again with --yes`);
  if (state === "running") {
    const clients = await otherClients(embeddedUrl(server));
    if (clients.length > 0) {
      throw new SpsaError(
        `${clients.length} other connection${clients.length > 1 ? "s are" : " is"} open on the ` +
          `embedded Postgres (${[...new Set(clients)].join(", ")}): stop ` +
          `${clients.length > 1 ? "them" : "it"} (workers, masters, the dashboard), then remove it`,
      );
    }
  }
  const removed = await removeEmbeddedServer(server);
  log(`removed the embedded Postgres of ${server.home}: ${removed.join(", ")}`);
}

/** The application names of the other sessions on the server (`?` for one that gave none). */
async function otherClients(url: string): Promise<string[]> {
  const sql = connect(url, 1);
  try {
    const rows = await sql<{ name: string }[]>`
      select coalesce(nullif(application_name, ''), '?') as name from pg_stat_activity
      where backend_type = 'client backend' and pid <> pg_backend_pid()`;
    return rows.map((row) => row.name);
  } finally {
    await sql.end();
  }
}

/**
 * `spsa db orphans`: the embedded servers' folders under the server root (as root: /var/tmp)
 * whose home (checkout or SPSA_HOME) is gone, and those of older versions that do not say
 * whose they are; with `remove`, the orphans are stopped and removed (with `unmarked`, the
 * unmarked ones too, unless their server runs: their checkout may still use it).
 */
export async function dbOrphans(
  options: { remove?: boolean; unmarked?: boolean; log?: (line: string) => void } = {},
): Promise<void> {
  const log = options.log ?? console.log;
  const root = serverRoot();
  const folders = await listServerFolders(root);
  const size = (bytes: number | undefined) =>
    bytes === undefined ? "size unknown" : `${(bytes / 1024 ** 2).toFixed(1)} MB`;
  const server = (folder: ServerFolder) =>
    folder.serverPid === undefined ? "no server running" : `its server runs (pid ${folder.serverPid})`;
  const inUse = folders.filter((f) => f.state === "in use").length;
  const listed = folders.filter((f) => f.state !== "in use");
  for (const folder of listed) {
    const why =
      folder.state === "orphaned"
        ? `its home ${folder.home} is gone`
        : "made by a version whose folders do not name their home";
    log(`${folder.state}  ${folder.path}  ${why}; ${size(folder.bytes)}, ${server(folder)}`);
  }
  const orphans = listed.filter((f) => f.state === "orphaned");
  const unmarked = listed.filter((f) => f.state === "unmarked");
  log(`${root}: ${orphans.length} orphaned, ${unmarked.length} unmarked, ${inUse} in use`);
  if (!options.remove) {
    if (orphans.length > 0 || unmarked.length > 0)
      log("remove them with `spsa db orphans --remove` (add --unmarked for the unmarked ones)");
    return;
  }
  const failed: string[] = [];
  for (const folder of [...orphans, ...(options.unmarked ? unmarked : [])]) {
    if (folder.state === "unmarked" && folder.serverPid !== undefined) {
      log(`kept ${folder.path}: unmarked and its server runs, so its checkout may still use it (stop it first)`);
      continue;
    }
    try {
      const { stopped } = await removeServerFolder(folder.path);
      log(`removed ${folder.path} (${size(folder.bytes)}${stopped ? ", its server stopped first" : ""})`);
    } catch (error) {
      failed.push(`${folder.path}: ${(error as Error).message}`);
    }
  }
  if (failed.length > 0) throw new SpsaError(`could not remove ${failed.join("; ")}`);
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
  const result = await execa("psql", [withoutPassword(url), ...(options.args ?? [])], {
    stdio: "inherit",
    reject: false,
    env,
    extendEnv: false,
  });
  if (result.failed && result.exitCode === undefined) {
    throw new SpsaError("psql is not installed: install the PostgreSQL client (apt-get install postgresql-client)");
  }
  process.exitCode = result.exitCode ?? 1;
}

/** Our environment without libpq's variables, so that psql sees only the ones we give it. */
function cleanLibpqEnv(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(process.env).filter(
      (entry): entry is [string, string] =>
        entry[1] !== undefined && !entry[0].startsWith("PG") && entry[0] !== "DATABASE_URL",
    ),
  );
}

function shellQuote(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
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
      const { dropped, sessionsEnded, released } = await revokeWorkerLogin(database.sql, options.name);
      note(
        !dropped
          ? `no database role ${role}: nothing to revoke`
          : `dropped database role ${role}: its URL no longer connects, ${released} claimed batches ` +
              `went back to the pool and its worker names are free`,
      );
      if (!sessionsEnded)
        note(
          `this database role may not end ${role}'s open sessions: stop that worker, or end them as ` +
            `a superuser (pg_terminate_backend)`,
        );
      return;
    }
    const { password, created } = await issueWorkerLogin(database.sql, options.name);
    for (const extra of await inheritedFromPublic(database.sql, role)) note(`warning: ${role} can ${extra}`);
    const reach = database.embedded ? embeddedReach(options.host) : externalReach(database.url, options.host);
    const url = workerUrl(database.url, role, password, reach.tcp);
    if (options.output) writeFileAtomic(options.output, `${url}\n`, { mode: 0o600 });
    else log(url);
    const where = options.output ? `written to ${options.output} (mode 0600)` : "printed above";
    note(
      `${created ? "created database role" : "new password for database role"} ${role}: the worker URL is ${where}; ` +
        `give it to that machine only (DATABASE_URL=... compete ` +
        `--spsa)${created ? "" : "; its previous URL no longer connects"}`,
    );
    if (reach.note) note(reach.note);
  } finally {
    await database.close();
  }
}

interface Reach {
  /** The TCP host and port workers connect to; undefined: the owner's URL's. */
  tcp: { host?: string; port?: number };
  /** What the user must know or do so that workers get there. */
  note?: string;
}

/** The owner's URL with the worker's login role and password, at the host and port workers reach. */
export function workerUrl(ownerUrl: string, role: string, password: string, tcp: Reach["tcp"]): string {
  const url = new URL(ownerUrl);
  url.username = encodeURIComponent(role);
  url.password = encodeURIComponent(password);
  if (tcp.host !== undefined) {
    url.hostname = tcp.host.includes(":") && !tcp.host.startsWith("[") ? `[${tcp.host}]` : tcp.host;
    // A Unix socket folder (`?host=/…`) is this machine's: the worker connects over TCP.
    url.searchParams.delete("host");
  }
  if (tcp.port !== undefined) url.port = String(tcp.port);
  return url.href;
}

const ANY_ADDRESS = new Set(["0.0.0.0", "::", "*"]);

/**
 * The embedded server as workers reach it: over TCP (`spsa db start --listen`), at --host or the
 * address it listens on.
 */
function embeddedReach(host: string | undefined): Reach {
  const { listen, port } = embeddedEndpoint(embeddedServer());
  if (!listen) {
    return {
      tcp: { host: host ?? "localhost", port },
      note:
        "the embedded server listens on its Unix socket only: run `spsa db start --listen ADDR` " +
        "(an address of this machine that the workers reach) before they connect",
    };
  }
  const specific = listen
    .split(",")
    .map((address) => address.trim())
    .find((address) => !ANY_ADDRESS.has(address));
  if (host !== undefined || specific !== undefined) return { tcp: { host: host ?? specific, port } };
  return {
    tcp: { host: hostname(), port },
    note:
      `the embedded server listens on every address (${listen}): the URL names this machine ` +
      `${hostname()}; give --host ADDR for another name`,
  };
}

/** A server of DATABASE_URL: its own host, or --host; a Unix socket URL reaches this machine only. */
function externalReach(ownerUrl: string, host: string | undefined): Reach {
  const socket = new URL(ownerUrl).searchParams.get("host")?.startsWith("/") ?? false;
  return {
    tcp: { host },
    note:
      socket && host === undefined
        ? "the URL names a Unix socket of this machine: give --host ADDR for workers elsewhere"
        : undefined,
  };
}
