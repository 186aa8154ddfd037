import { chmodSync, lstatSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createServer } from "node:net";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { connect } from "../../src/postgres/connection.js";
import { embeddedEndpoint, embeddedServer, embeddedUrl } from "../../src/postgres/embedded.js";
import { serverUser } from "../../src/postgres/run-as.js";
import { COMPETE_BIN, SPSA_BIN, spsa } from "../support/cli.js";
import { canSwitchUser, findings, nodeAs, notRootReason } from "../support/other-user.js";
import { waitFor } from "../support/processes.js";

/**
 * The attacks of issue 24 on the embedded server, done for real by another local user
 * (nobody, or the server's own user) while root runs the tool: each needs root to switch users.
 */

const folders: string[] = [];
const homes: string[] = [];

/** A folder others can enter (the attacker's scripts and files live there). */
function openFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), "spsa-attack-"));
  chmodSync(dir, 0o755);
  folders.push(dir);
  return dir;
}

function newHome(): string {
  const home = openFolder();
  homes.push(home);
  return home;
}

const envFor = (home: string) => ({ SPSA_HOME: home, DATABASE_URL: "" });

function connectionOf(home: string): { port: number; password: string } {
  return JSON.parse(readFileSync(join(home, "pg", "connection.json"), "utf8")) as { port: number; password: string };
}

/** The password for the attacker's script to look for, in a file (on its command line, the script would find it in its own). */
function secretFile(dir: string, password: string): string {
  writeFileSync(join(dir, "password"), password, { mode: 0o644 });
  return join(dir, "password");
}

/** Waits for the next output of another user's script (its "ready", or what it saw). */
function nextLine(child: { stdout: NodeJS.ReadableStream | null }): Promise<void> {
  return new Promise((resolve) => child.stdout?.once("data", () => resolve()));
}
const ready = nextLine;

/**
 * Listens on a stopped server's socket path and closes every connection at once, until
 * `count` came (or a minute passed); then removes the socket. Returns how many came.
 */
async function attemptsOnSocket(path: string, count: number): Promise<number> {
  let attempts = 0;
  let enough = () => {};
  const server = createServer((socket) => {
    socket.destroy();
    if (++attempts === count) enough();
  });
  await new Promise<void>((resolve) => server.listen(path, resolve));
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, 60_000);
    enough = () => resolve(clearTimeout(timer));
  });
  await new Promise((resolve) => server.close(resolve));
  rmSync(path, { force: true });
  return attempts;
}

afterEach(async () => {
  for (const home of homes.splice(0)) {
    await spsa(["db", "stop"], { env: envFor(home) });
    const server = embeddedServer(home);
    if (server.outsideHome) rmSync(server.serverDir, { recursive: true, force: true });
  }
  for (const dir of folders.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!canSwitchUser)(
  `the embedded server against another local user (skipped unless ${notRootReason})`,
  () => {
    it("`spsa db psql -c` shows the password in no command line or environment another user can read", async () => {
      const home = newHome();
      expect((await spsa(["db", "start"], { env: envFor(home) })).exitCode).toBe(0);
      const { password } = connectionOf(home);
      const attack = openFolder();
      // Another user reads every /proc/*/cmdline and /proc/*/environ it can, until told to stop.
      const scanner = nodeAs(
        `
      import { existsSync, readdirSync, readFileSync } from "node:fs";
      const [passwordFile, stop] = process.argv.slice(1);
      const password = readFileSync(passwordFile, "utf8");
      let leaks = 0, psqlSeen = 0, reads = 0;
      // What psql's command line holds, made here: the text of this script (its own command line) must not hold it.
      const query = ["pg", "advisory", "lock(7)"].join("_");
      console.log("ready");
      while (!existsSync(stop)) {
        for (const pid of readdirSync("/proc").filter((name) => /^\\d+$/.test(name))) {
          for (const file of ["cmdline", "environ"]) {
            let text;
            try { text = readFileSync("/proc/" + pid + "/" + file, "latin1"); } catch { continue; }
            reads++;
            if (text.includes(password)) leaks++;
            if (file === "cmdline" && text.includes(query) && psqlSeen++ === 0) console.log("psql seen");
          }
        }
      }
      console.log(JSON.stringify({ leaks, psqlSeen, reads }));`,
        [secretFile(attack, password), join(attack, "stop")],
      );
      await ready(scanner);
      // psql waits for a lock the test holds until the scanner has seen it run, however slowly a busy machine scans.
      const holder = connect(embeddedUrl(embeddedServer(home)), 1);
      await holder`select pg_advisory_lock(7)`;
      const seen = nextLine(scanner);
      const running = spsa(["db", "psql", "-c", "select pg_advisory_lock(7), 'psql ran' as done"], {
        env: envFor(home),
      });
      await Promise.race([seen, running]);
      await holder`select pg_advisory_unlock(7)`;
      await holder.end();
      const psql = await running;
      const dashDash = await spsa(["db", "psql", "--", "-Atc", "select 'dash dash ' || 1"], { env: envFor(home) });
      writeFileSync(join(attack, "stop"), "");
      const { leaks, psqlSeen, reads } = findings<{ leaks: number; psqlSeen: number; reads: number }>(await scanner);
      expect(psql.exitCode, psql.all).toBe(0);
      expect(psql.stdout).toContain("psql ran");
      expect(dashDash.stdout.trim()).toBe("dash dash 1");
      // The scanner did see psql running (its command line is public), and never the password.
      expect(psqlSeen, `reads: ${reads}`).toBeGreaterThan(0);
      expect(leaks).toBe(0);
    });

    it("gives no password to a fake server that another user binds on the old TCP port", async () => {
      const home = newHome();
      expect((await spsa(["db", "start"], { env: envFor(home) })).exitCode).toBe(0);
      const { port, password } = connectionOf(home);
      const { socketDir } = embeddedEndpoint(embeddedServer(home));
      const socketPath = join(socketDir, `.s.PGSQL.${port}`);
      // Long-running clients, connected while the server runs: a dashboard and an idle worker.
      const dashboard = execa("node", [SPSA_BIN, "dashboard", "--port", "0"], {
        env: envFor(home),
        reject: false,
        all: true,
      });
      const worker = execa("node", [COMPETE_BIN, "--spsa", "--name", "fake-port", "-c", "1", "--idle-exit", "60"], {
        env: envFor(home),
        reject: false,
        all: true,
      });
      // Both connected before the server stops (the worker may still be starting when the dashboard is up).
      const admin = connect(embeddedUrl(embeddedServer(home)), 1);
      await waitFor(
        async () =>
          (
            await admin<{ n: number }[]>`select count(distinct application_name)::int as n from pg_stat_activity
              where application_name in ('spsa-dashboard', 'spsa-worker')`
          )[0]?.n === 2,
        60_000,
        "the dashboard and the worker to connect",
      );
      await admin.end();
      expect((await spsa(["db", "stop"], { env: envFor(home) })).stdout).toContain("stopped");

      // Another user binds the port and asks every client for its password in clear text, as Postgres may.
      const attack = openFolder();
      const fake = nodeAs(
        `
      import { existsSync, readFileSync } from "node:fs";
      import { createServer } from "node:net";
      const [port, passwordFile, stop] = process.argv.slice(1);
      const password = readFileSync(passwordFile, "utf8");
      let connections = 0, leaks = 0;
      const server = createServer((socket) => {
        connections++;
        let received = "";
        socket.on("error", () => {});
        socket.once("data", () => socket.write(Buffer.from([0x52, 0, 0, 0, 8, 0, 0, 0, 3])));
        socket.on("data", (chunk) => { received += chunk.toString("latin1"); if (received.includes(password)) leaks++; });
      });
      server.listen(Number(port), "127.0.0.1", () => console.log("ready"));
      const timer = setInterval(() => {
        if (!existsSync(stop)) return;
        clearInterval(timer);
        console.log(JSON.stringify({ connections, leaks }));
        process.exit(0);
      }, 50);`,
        [String(port), secretFile(attack, password), join(attack, "stop")],
      );
      await ready(fake);

      // The clients try to reconnect, on the server's socket: a listener there (as root) counts their
      // attempts and closes each, until they made a few; then a new command starts the server again.
      const reconnects = await attemptsOnSocket(socketPath, 3);
      const status = await spsa(["db", "status"], { env: envFor(home) });
      writeFileSync(join(attack, "stop"), "");
      const result = findings<{ connections: number; leaks: number }>(await fake);
      dashboard.kill("SIGTERM");
      worker.kill("SIGTERM");
      await Promise.all([dashboard, worker]);
      expect(status.exitCode, status.all).toBe(0);
      expect(reconnects).toBe(3);
      expect(result).toEqual({ connections: 0, leaks: 0 });
    });

    it("root follows no symlink the server's user plants in its folder (server.log to a root-only file)", async () => {
      const home = newHome();
      expect((await spsa(["db", "start"], { env: envFor(home) })).exitCode).toBe(0);
      expect((await spsa(["db", "stop"], { env: envFor(home) })).exitCode).toBe(0);
      const server = embeddedServer(home);
      const user = serverUser();
      if (!user) throw new Error("root has a server user");

      // A file only root may read or write, e.g. /etc/shadow.
      const vault = mkdtempSync(join(tmpdir(), "spsa-canary-"));
      folders.push(vault);
      const canary = join(vault, "canary");
      writeFileSync(canary, "root's secret canary\n", { mode: 0o600 });
      chmodSync(vault, 0o711);
      const plant = (links: string[]) =>
        execa(
          "setpriv",
          [
            `--reuid=${user.uid}`,
            `--regid=${user.gid}`,
            "--clear-groups",
            "sh",
            "-c",
            links.map((link) => `rm -f '${link}' && ln -s '${canary}' '${link}'`).join(" && "),
          ],
          { reject: false, all: true },
        );
      const planted = await plant([server.logFile, join(server.serverDir, "spsa_hba.conf")]);
      expect(planted.exitCode, planted.all).toBe(0);

      // Root runs the tool: the server's user cannot write the log through the link, so the start fails; nothing of root's is touched.
      const status = await spsa(["db", "status"], { env: envFor(home) });
      const start = await spsa(["db", "start"], { env: envFor(home) });
      for (const result of [status, start]) {
        expect(result.exitCode, result.all).toBe(3);
        expect(result.all).not.toContain("canary");
      }
      expect(readFileSync(canary, "utf8")).toBe("root's secret canary\n");
      expect(statSync(canary)).toMatchObject({ uid: 0, gid: 0 });
      expect(statSync(canary).mode & 0o777).toBe(0o600);
      expect(lstatSync(server.logFile).isSymbolicLink()).toBe(true);

      // Once the server's user removes its link, the server starts again with its data.
      await execa("setpriv", [`--reuid=${user.uid}`, `--regid=${user.gid}`, "--clear-groups", "rm", server.logFile]);
      const again = await spsa(["db", "status"], { env: envFor(home) });
      expect(again.exitCode, again.all).toBe(0);
      expect(lstatSync(server.logFile)).toMatchObject({ uid: user.uid });
      expect(lstatSync(server.logFile).mode & 0o777).toBe(0o600);
    });
  },
);
