import { chmodSync, existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { connect } from "../../src/postgres/connection.js";
import { embeddedServer, embeddedUrl } from "../../src/postgres/embedded.js";
import { SPSA_BIN, spsa } from "../support/cli.js";

const homes: string[] = [];

/** A new, empty SPSA_HOME (reachable by the server's user when we are root). */
function newHome(): string {
  const home = mkdtempSync(join(tmpdir(), "spsa-home-"));
  chmodSync(home, 0o755);
  homes.push(home);
  return home;
}

const envFor = (home: string) => ({ SPSA_HOME: home, DATABASE_URL: "" });

async function query(home: string): Promise<number> {
  const sql = connect(embeddedUrl(embeddedServer(home)), 1);
  const [row] = await sql<{ n: number }[]>`select count(*)::int as n from spsa_iteration`;
  await sql.end();
  return row?.n ?? -1;
}

afterEach(async () => {
  for (const home of homes.splice(0)) {
    await spsa(["db", "stop"], { env: envFor(home) });
    // As root the server's files are in a private folder under /var/tmp.
    const server = embeddedServer(home);
    if (server.outsideHome) rmSync(server.serverDir, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  }
});

describe("embedded Postgres", () => {
  it("starts from nothing, is reused when running, and stops", async () => {
    const home = newHome();
    const first = await spsa(["db", "status"], { env: envFor(home) });
    expect(first.exitCode, first.all).toBe(0);
    expect(first.stdout).toMatch(/embedded Postgres 18\.\d+, running/);
    expect(first.stdout).toContain(join(embeddedServer(home).serverDir, "data"));
    expect(await query(home)).toBe(0);

    const again = await spsa(["db", "start"], { env: envFor(home) });
    expect(again.exitCode, again.all).toBe(0);
    // Printed without the password: psql gets it from `spsa db psql` or `spsa db env`.
    const url = (await spsa(["db", "url"], { env: envFor(home) })).stdout.trim();
    expect(url).toMatch(/^postgres:\/\/spsa@localhost:\d+\/postgres\?host=%2F\S+$/);

    const stop = await spsa(["db", "stop"], { env: envFor(home) });
    expect(stop.stdout).toContain("embedded Postgres stopped");
    const status = await spsa(["db", "stop"], { env: envFor(home) });
    expect(status.stdout).toContain("was not running (stopped)");
  });

  it("listens on a Unix socket in a 0700 folder only (TCP when asked) and refuses a wrong password", async () => {
    const home = newHome();
    expect((await spsa(["db", "start"], { env: envFor(home) })).exitCode).toBe(0);
    const url = embeddedUrl(embeddedServer(home));
    const socketDir = decodeURIComponent(/host=([^&]+)/.exec(url)?.[1] ?? "");
    expect(statSync(socketDir).mode & 0o777).toBe(0o700);
    const sql = connect(url, 1);
    const [settings] = await sql<{ listen: string; auth: string }[]>`
      select current_setting('listen_addresses') as listen, current_setting('password_encryption') as auth`;
    await sql.end();
    expect(settings).toEqual({ listen: "", auth: "scram-sha-256" });
    const wrong = connect(url.replace(/spsa:[^@]+@/, "spsa:wrong@"), 1, { connect_timeout: 5 });
    await expect(wrong`select 1`).rejects.toThrow(/password authentication failed/);
    await wrong.end();

    // --listen adds TCP (kept in the connection file for later starts); --no-listen removes it.
    const tcp = await spsa(["db", "start", "--listen", "127.0.0.1"], { env: envFor(home) });
    expect(tcp.stdout, tcp.all).toMatch(/and on TCP 127\.0\.0\.1 port (\d+)/);
    const port = Number(/port (\d+)/.exec(tcp.stdout)?.[1]);
    const password = decodeURIComponent(new URL(url).password);
    const overTcp = connect(`postgres://spsa:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`, 1);
    expect(await overTcp`select 1 as one`).toEqual([{ one: 1 }]);
    await overTcp.end();
    await spsa(["db", "stop"], { env: envFor(home) });
    expect((await spsa(["db", "start"], { env: envFor(home) })).stdout).toContain("and on TCP 127.0.0.1");
    expect((await spsa(["db", "start", "--no-listen"], { env: envFor(home) })).stdout).not.toContain("TCP");
    const closed = connect(`postgres://spsa:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`, 1, {
      connect_timeout: 5,
    });
    await expect(closed`select 1`).rejects.toThrow(/ECONNREFUSED/);
    await closed.end();
  });

  it("serves two processes that start it at the same moment", async () => {
    const home = newHome();
    const [a, b] = await Promise.all([
      spsa(["db", "status"], { env: envFor(home) }),
      spsa(["db", "status"], { env: envFor(home) }),
    ]);
    expect(a.exitCode, a.all).toBe(0);
    expect(b.exitCode, b.all).toBe(0);
    expect(await query(home)).toBe(0);
  });

  it("starts after the process that was starting it was killed with -9", async () => {
    const home = newHome();
    const starter = execa("node", [SPSA_BIN, "db", "start"], { env: envFor(home), reject: false });
    // Kill it while it holds the start lock and initdb is writing the data folder.
    const { dataDir } = embeddedServer(home);
    while (!existsSync(join(dataDir, "PG_VERSION")) && starter.exitCode === undefined) {
      await new Promise((r) => setImmediate(r));
    }
    starter.kill("SIGKILL");
    await starter;
    const after = await spsa(["db", "status"], { env: envFor(home) });
    expect(after.exitCode, after.all).toBe(0);
    expect(await query(home)).toBe(0);
  });

  it("keeps running after the process that started it was killed with -9", async () => {
    const home = newHome();
    const starter = execa("node", [SPSA_BIN, "db", "status"], { env: envFor(home), reject: false });
    while (!existsSync(join(home, "pg", "connection.json"))) await new Promise((r) => setImmediate(r));
    starter.kill("SIGKILL");
    await starter;
    const after = await spsa(["db", "status"], { env: envFor(home) });
    expect(after.exitCode, after.all).toBe(0);
  });
});
