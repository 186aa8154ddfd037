import { execFileSync } from "node:child_process";
import { chownSync, closeSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa, type ResultPromise } from "execa";
import { connect } from "../../src/postgres/connection.js";
import { freePort } from "../../src/postgres/embedded.js";
import { serverUser } from "../../src/postgres/run-as.js";
import { waitFor } from "./processes.js";

/** Whether pgbouncer is installed (.ci/run installs it); the reason to skip when not. */
export const pgbouncerInstalled = (() => {
  try {
    execFileSync("pgbouncer", ["--version"], { stdio: "pipe" });
    return true;
  } catch {
    return false;
  }
})();
export const noPgbouncerReason = "pgbouncer is not installed (apt-get install -y pgbouncer)";

export interface PgBouncer {
  /** The pooler's URL for the same user, password and database as the server's. */
  url: string;
  /** pgbouncer's log so far, for assertion messages. */
  log: () => string;
  stop(): Promise<void>;
}

/**
 * The PgBouncer configuration of docs/scaling-out.md: transaction mode, SCRAM, the server
 * reached over its Unix socket. `auth_file` holds the server's SCRAM verifier, not the
 * password: with it PgBouncer checks the client's proof and logs in to the server with the
 * keys that proof reveals (PgBouncer ≥ 1.14), so no file holds the password.
 */
export function pgbouncerIni(options: {
  port: number;
  socketDir: string;
  serverPort: number;
  database: string;
  authFile: string;
  maxClients: number;
}): string {
  return `[databases]
spsa = host=${options.socketDir} port=${options.serverPort} dbname=${options.database}

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = ${options.port}
unix_socket_dir =
auth_type = scram-sha-256
auth_file = ${options.authFile}
pool_mode = transaction
max_client_conn = ${options.maxClients}
default_pool_size = 20
max_db_connections = 40
server_reset_query =
ignore_startup_parameters = extra_float_digits
`;
}

/**
 * Starts pgbouncer as a child process in front of the embedded server at `serverUrl`, on a
 * free port, with its ini and auth files created 0600 in a temp folder (as root it runs as
 * the server's user, as pgbouncer refuses root and only that user reaches the socket).
 */
export async function startPgBouncer(serverUrl: string, maxClients = 100): Promise<PgBouncer> {
  const server = new URL(serverUrl);
  const socketDir = server.searchParams.get("host");
  if (!socketDir) throw new Error("startPgBouncer expects the embedded server's URL (?host=/socket/folder)");
  const database = decodeURIComponent(server.pathname.slice(1));
  const user = decodeURIComponent(server.username);
  const admin = connect(serverUrl, 1);
  const [row] = await admin<
    { verifier: string }[]
  >`select rolpassword as verifier from pg_authid where rolname = current_user`;
  await admin.end();
  if (!row?.verifier.startsWith("SCRAM-SHA-256$")) throw new Error("the server's role has no SCRAM verifier");

  const owner = process.getuid?.() === 0 ? serverUser() : undefined;
  const dir = mkdtempSync(join(tmpdir(), "spsa-pgbouncer-"));
  if (owner) chownSync(dir, owner.uid, owner.gid);
  const write = (name: string, text: string) => {
    const path = join(dir, name);
    const fd = openSync(path, "wx", 0o600);
    try {
      if (owner) chownSync(path, owner.uid, owner.gid);
      writeSync(fd, text);
    } finally {
      closeSync(fd);
    }
    return path;
  };
  const authFile = write("userlist.txt", `"${user}" "${row.verifier}"\n`);
  const port = await freePort();
  const ini = write(
    "pgbouncer.ini",
    pgbouncerIni({ port, socketDir, serverPort: Number(server.port), database, authFile, maxClients }),
  );
  const command = owner
    ? ["setpriv", `--reuid=${owner.uid}`, `--regid=${owner.gid}`, "--clear-groups", "pgbouncer", ini]
    : ["pgbouncer", ini];
  const child: ResultPromise<{ reject: false; all: true }> = execa(command[0]!, command.slice(1), {
    reject: false,
    all: true,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
    extendEnv: false,
  });
  let output = "";
  child.all?.on("data", (chunk: Buffer | string) => (output += chunk.toString()));
  const url = new URL(serverUrl);
  url.hostname = "127.0.0.1";
  url.port = String(port);
  url.pathname = "/spsa";
  url.search = "";
  const probe = connect(url.toString(), 1);
  try {
    await waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`pgbouncer exited: ${output}`);
        return probe`select 1`.then(
          () => true,
          () => false,
        );
      },
      20_000,
      `pgbouncer on port ${port}: ${output}`,
    );
  } finally {
    await probe.end();
  }
  return {
    url: url.toString(),
    log: () => output,
    stop: async () => {
      child.kill("SIGTERM");
      await child;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
