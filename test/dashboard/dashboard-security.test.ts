import { chmodSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { request, type IncomingMessage } from "node:http";
import { connect as netConnect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa, type ResultPromise } from "execa";
import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/config.js";
import { loadParams } from "../../src/params/params.js";
import { applyMigrations, connect } from "../../src/postgres/connection.js";
import { writeSyntheticRun } from "../support/synthetic-run.js";
import { DEFAULT_MAX_CLIENTS } from "../../src/dashboard/events.js";
import { ROOT, SPSA_BIN, spsa } from "../support/cli.js";
import { soonerThanBackoff, startCutProxy } from "../support/cut-proxy.js";
import { freshDatabase } from "../support/database.js";
import { PROGRESS_CHANNEL } from "../../src/postgres/channels.js";

const TOKEN = "secret-dashboard-token-7d1e";
/** A password planted in the stored run config, as a master that stored `[database] url` left it. */
const PLANTED_PASSWORD = "planted-db-password-93af";

type Child = ResultPromise<{ reject: false; all: true }>;

interface Reply {
  status: number;
  headers: IncomingMessage["headers"];
  body: string;
}

/** One HTTP GET with any headers (fetch refuses to set Host), the whole body read. */
function get(port: number, path: string, headers: Record<string, string> = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: "127.0.0.1", port, path, headers: { host: `127.0.0.1:${port}`, ...headers } },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (body += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on("error", reject);
    req.end();
  });
}

/** An event stream that is read: its status, and every event's text so far. */
interface Stream {
  status: number;
  text: () => string;
  close: () => void;
}

function openStream(port: number, headers: Record<string, string> = {}): Promise<Stream> {
  return new Promise((resolve, reject) => {
    let text = "";
    const req = request(
      { host: "127.0.0.1", port, path: "/events", headers: { host: `127.0.0.1:${port}`, ...headers } },
      (res) => {
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (text += chunk));
        res.on("error", () => {});
        resolve({ status: res.statusCode ?? 0, text: () => text, close: () => req.destroy() });
      },
    );
    req.on("error", reject);
    req.end();
  });
}

/** The dashboard as a real process; resolves with its port once it says where it listens. */
async function startDashboard(
  args: string[],
  env: Record<string, string>,
): Promise<{ child: Child; port: number; output: () => string }> {
  const child = execa("node", [SPSA_BIN, "dashboard", "--port", "0", ...args], {
    cwd: ROOT,
    env,
    reject: false,
    all: true,
  });
  let output = "";
  const port = await new Promise<number>((resolve, reject) => {
    child.all?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const match = /dashboard at http:\/\/127\.0\.0\.1:(\d+)\//.exec(output);
      if (match) resolve(Number(match[1]));
    });
    child.then((result) => reject(new Error(`the dashboard exited: ${result.all}`)), reject);
  });
  return { child, port, output: () => output };
}

async function stop(child: Child | undefined): Promise<void> {
  child?.kill("SIGTERM");
  await child;
}

describe("spsa dashboard under attack", () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let sql: postgres.Sql;
  const scratch = mkdtempSync(join(tmpdir(), "dashboard-security-"));

  beforeAll(async () => {
    database = await freshDatabase();
    await applyMigrations(database.url);
    sql = connect(database.url, 2);
    await writeSyntheticRun(sql, {
      name: "live",
      config: loadConfig("config.toml"),
      params: loadParams("params.toml"),
      iterations: 2,
      open: true,
      workerName: "w1",
    });
    // A run stored by a master that kept the database URL in its config (before it stopped doing so).
    await sql`update spsa_run set config = config || ${sql.json({ database: { url: `postgres://spsa:${PLANTED_PASSWORD}@127.0.0.1:5432/spsa`, pollIntervalMs: 1000 } })}`;
  });
  afterAll(async () => {
    await sql?.end();
    await database?.drop();
    rmSync(scratch, { recursive: true, force: true });
  });

  describe("without a token, on loopback", () => {
    let dashboard: Awaited<ReturnType<typeof startDashboard>>;
    beforeAll(async () => {
      dashboard = await startDashboard([], { DATABASE_URL: database.url });
    });
    afterAll(() => stop(dashboard?.child));

    it("a foreign Host header (DNS rebinding) gets 421 and no data; the dashboard's own names get the data", async () => {
      const { port } = dashboard;
      for (const host of [
        `attacker.example:${port}`,
        "attacker.example",
        `127.0.0.1:${port + 1}`,
        `localhost.attacker.example:${port}`,
      ]) {
        for (const path of ["/api/runs", "/api/runs/live", "/events", "/"]) {
          const reply = await get(port, path, { host });
          expect(reply.status, `${host} ${path}`).toBe(421);
          expect(reply.body).not.toContain("live");
        }
      }
      for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`]) {
        const reply = await get(port, "/api/runs", { host });
        expect(reply.status, host).toBe(200);
        expect(JSON.parse(reply.body)).toMatchObject([{ name: "live" }]);
      }
    });

    it("serves a stored run config without [database] and its password", async () => {
      const reply = await get(dashboard.port, "/api/runs/live");
      expect(reply.status).toBe(200);
      expect(reply.body).not.toContain(PLANTED_PASSWORD);
      const detail = JSON.parse(reply.body) as { config: Record<string, unknown> };
      expect(detail.config.database).toBeUndefined();
      expect(detail.config.spsa).toBeDefined();
    });

    it(`caps the event streams at ${DEFAULT_MAX_CLIENTS} by default: the next ones get 503, and a closed one frees its place`, async () => {
      const streams = await Promise.all(
        Array.from({ length: DEFAULT_MAX_CLIENTS + 8 }, () => openStream(dashboard.port)),
      );
      const accepted = streams.filter((s) => s.status === 200);
      const refused = streams.filter((s) => s.status === 503);
      expect([accepted.length, refused.length]).toEqual([DEFAULT_MAX_CLIENTS, 8]);
      accepted[0]!.close();
      await expect
        .poll(async () => {
          const again = await openStream(dashboard.port);
          again.close();
          return again.status;
        })
        .toBe(200);
      for (const s of streams) s.close();
    });
  });

  describe("with a token from the environment", () => {
    let dashboard: Awaited<ReturnType<typeof startDashboard>>;
    beforeAll(async () => {
      dashboard = await startDashboard([], { DATABASE_URL: database.url, SPSA_DASHBOARD_TOKEN: TOKEN });
    });
    afterAll(() => stop(dashboard?.child));

    it("without the cookie or the header: 401 and nothing served, the page and its scripts included", async () => {
      for (const path of ["/", "/run/live", "/static/app.js", "/api/runs", "/api/runs/live", "/events"]) {
        const reply = await get(dashboard.port, path);
        expect(reply.status, path).toBe(401);
        expect(reply.body).not.toContain("live");
        expect(reply.body).not.toContain("import");
      }
      expect((await get(dashboard.port, "/api/runs", { authorization: "Bearer wrong-token-00000" })).status).toBe(401);
      expect((await get(dashboard.port, "/api/runs", { cookie: "spsa_dashboard=forged" })).status).toBe(401);
      expect((await get(dashboard.port, "/?token=wrong-token-00000")).status).toBe(401);
    });

    it("?token= once becomes an HttpOnly SameSite=Strict cookie and a redirect to the address without it; the cookie opens the page and the data", async () => {
      const exchange = await get(dashboard.port, `/run/live?x=1&token=${TOKEN}`);
      expect(exchange.status).toBe(303);
      expect(exchange.headers.location).toBe("/run/live?x=1");
      const setCookie = exchange.headers["set-cookie"]?.[0] ?? "";
      expect(setCookie).toMatch(/^spsa_dashboard=[^;]+; HttpOnly; SameSite=Strict; Path=\/$/);
      expect(setCookie).not.toContain(TOKEN);
      const cookie = setCookie.split(";")[0]!;
      expect((await get(dashboard.port, "/run/live", { cookie })).status).toBe(200);
      expect((await get(dashboard.port, "/static/app.js", { cookie })).body).not.toContain("token=");
      expect(JSON.parse((await get(dashboard.port, "/api/runs", { cookie })).body)).toMatchObject([{ name: "live" }]);
      expect((await openStream(dashboard.port, { cookie })).status).toBe(200);
      // A path made to leave the site ("//host") stays on it.
      expect((await get(dashboard.port, `//attacker.example/?token=${TOKEN}`)).headers.location).toMatch(/^\/(?!\/)/);
    });

    it("the token is in no command line (/proc/PID/cmdline) and not in the dashboard's output", () => {
      const pid = dashboard.child.pid!;
      expect(readFileSync(`/proc/${pid}/cmdline`, "utf8")).not.toContain(TOKEN);
      expect(dashboard.output()).not.toContain(TOKEN);
    });
  });

  it("drops an event stream that stops reading, while a reading one keeps getting every event", async () => {
    // Two places: the slow stream's is freed when it is dropped, which a third stream sees.
    const dashboard = await startDashboard(["--max-clients", "2"], { DATABASE_URL: database.url });
    try {
      const reader = await openStream(dashboard.port);
      const slow: Socket = netConnect(dashboard.port, "127.0.0.1");
      await new Promise((resolve) => slow.once("connect", resolve));
      slow.write(`GET /events HTTP/1.1\r\nHost: 127.0.0.1:${dashboard.port}\r\n\r\n`);
      slow.pause(); // never reads again: the kernel's buffers fill, then the server's
      await expect
        .poll(async () => {
          const probe = await openStream(dashboard.port);
          probe.close();
          return probe.status;
        })
        .toBe(503);
      let sent = 0;
      let dropped = false;
      // 7 kB events, 50 per round, until the slow stream's place is free; at most 40 MB.
      while (!dropped && sent < 6000) {
        await sql`select pg_notify(${PROGRESS_CHANNEL}, repeat('x', 7000) || n) from generate_series(${sent + 1}::int, ${sent + 50}::int) n`;
        sent += 50;
        const probe = await openStream(dashboard.port);
        probe.close();
        dropped = probe.status === 200;
      }
      expect(dropped, `the slow stream was not dropped after ${sent} events of 7 kB`).toBe(true);
      console.log(`dashboard: the stream that stopped reading was dropped after ${sent} events of 7 kB`);
      await sql`select pg_notify(${PROGRESS_CHANNEL}, 'last')`;
      await expect.poll(() => reader.text().includes('"payload":"last"'), { timeout: 10_000 }).toBe(true);
      expect(reader.text().match(/^event: progress$/gm)).toHaveLength(sent + 1);
      reader.close();
      slow.destroy();
    } finally {
      await stop(dashboard.child);
    }
  });

  it("refuses --host 0.0.0.0 without a token, --token on the command line, and a token file others can read: exit 2, one line", async () => {
    const env = { DATABASE_URL: database.url };
    const wildcard = await spsa(["dashboard", "--port", "0", "--host", "0.0.0.0"], { env });
    expect(wildcard.exitCode, wildcard.all).toBe(2);
    expect(wildcard.stderr.trim().split("\n")).toEqual([
      "error: --host: 0.0.0.0 is reachable from other machines: set a token first ($SPSA_DASHBOARD_TOKEN or --token-file FILE)",
    ]);

    const argv = await spsa(["dashboard", "--port", "0", "--token", TOKEN], { env });
    expect(argv.exitCode, argv.all).toBe(2);
    expect(argv.stderr.trim().split("\n")).toHaveLength(1);
    expect(argv.stderr).toMatch(/^error: --token: every local user sees a command line/);

    const readable = join(scratch, "readable-token");
    writeFileSync(readable, `${TOKEN}\n`, { mode: 0o644 });
    chmodSync(readable, 0o644);
    const twoLines = join(scratch, "two-lines-token");
    writeFileSync(twoLines, `${TOKEN}\nmore\n`, { mode: 0o600 });
    const link = join(scratch, "link-token");
    symlinkSync(twoLines, link);
    for (const [file, message] of [
      [readable, `others can read the token file (mode 644): chmod 600 ${readable}, or make a new one`],
      [twoLines, "the token file must hold one line: the token"],
      [link, "cannot open the token file: ELOOP"],
    ] as const) {
      const result = await spsa(["dashboard", "--port", "0", "--host", "0.0.0.0", "--token-file", file], { env });
      expect(result.exitCode, result.all).toBe(2);
      expect(result.stderr.trim().split("\n")).toEqual([`error: ${file}: ${message}`]);
    }
  });

  it("reads the token from a 0600 file: required on every request, and not on the command line", async () => {
    const file = join(scratch, "token");
    writeFileSync(file, `${TOKEN}\n`, { mode: 0o600 });
    const dashboard = await startDashboard(["--token-file", file], { DATABASE_URL: database.url });
    try {
      expect((await get(dashboard.port, "/api/runs")).status).toBe(401);
      expect((await get(dashboard.port, "/api/runs", { authorization: `Bearer ${TOKEN}` })).status).toBe(200);
      expect(readFileSync(`/proc/${dashboard.child.pid}/cmdline`, "utf8")).not.toContain(TOKEN);
    } finally {
      await stop(dashboard.child);
    }
  });

  it("backs off while the database is gone: a few attempts in 6 s, and reconnects once it is back", async () => {
    const proxy = await startCutProxy(database.url);
    const dashboard = await startDashboard([], { DATABASE_URL: proxy.url });
    try {
      const reader = await openStream(dashboard.port);
      proxy.cut();
      // Four attempts, waited for (a busy machine makes them later, not more): 250 ms doubling,
      // jittered to 50–100 %, so each at least 125, 250, 500 and 1000 ms after the one before: some
      // 5 in 6 s (postgres.js alone retries a LISTEN at once: test/postgres/reconnect-backoff.test.ts).
      const whileCut = await proxy.attemptsAfterCut(4, 60_000);
      expect(whileCut).toHaveLength(4);
      expect(soonerThanBackoff(whileCut)).toEqual([]);
      proxy.restore();
      // Back: the LISTEN is made again (within the capped backoff) and events flow.
      await expect
        .poll(
          async () => {
            await sql`select pg_notify(${PROGRESS_CHANNEL}, 'back')`;
            return reader.text().includes('"payload":"back"');
          },
          { timeout: 40_000, interval: 1000 },
        )
        .toBe(true);
      console.log(
        `dashboard: ${whileCut.length} connection attempts in ${Math.round(whileCut.at(-1)!)} ms while the database was gone`,
      );
      reader.close();
    } finally {
      await stop(dashboard.child);
      proxy.close();
    }
  });
});
