import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import postgres from "postgres";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/config.js";
import { loadParams } from "../../src/config/params.js";
import { claimBatch, reportBatch } from "../../src/db/batches.js";
import { applyMigrations } from "../../src/db/connection.js";
import { writeSyntheticRun } from "../../src/db/synthetic-run.js";
import { ROOT, SPSA_BIN } from "../support/cli.js";
import { freshDatabase } from "../support/database.js";
import { noFaults, type FaultCounts } from "../../src/play/faults.js";
import type { Pentanomial } from "../../src/play/stats.js";

const TOKEN = "test-token-4f1c";
const COMPLETED = 12;
const CHROMIUM_ARGS = [
  "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync",
];

/** The dashboard as a real process, a real Chromium, and a run of 12 iterations with the 13th open. */
describe("spsa dashboard in a browser", () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let sql: postgres.Sql;
  let server: ReturnType<typeof execa>;
  let url: string;
  let profile: string;
  let context: BrowserContext;
  let page: Page;
  const params = loadParams("params.toml");

  beforeAll(async () => {
    database = await freshDatabase();
    await applyMigrations(database.url);
    sql = postgres(database.url, { max: 2, onnotice: () => {} });
    await writeSyntheticRun(sql, { name: "live", config: loadConfig("config.toml"), params, iterations: COMPLETED, open: true, workerName: "w1" });
    server = execa("node", [SPSA_BIN, "dashboard", "--port", "0"], { cwd: ROOT, env: { DATABASE_URL: database.url, SPSA_DASHBOARD_TOKEN: TOKEN }, reject: false, all: true });
    url = await new Promise<string>((resolve, reject) => {
      let output = "";
      server.stdout?.on("data", (chunk: Buffer) => {
        output += chunk.toString();
        const match = /dashboard at (http:\/\/127\.0\.0\.1:\d+\/) /.exec(output);
        if (match?.[1]) resolve(match[1]);
      });
      server.then((result) => reject(new Error(`the dashboard exited: ${result.all}`)), reject);
    });
    profile = mkdtempSync(join(tmpdir(), "spsa-chromium-"));
    context = await chromium.launchPersistentContext(profile, { executablePath: "/usr/bin/chromium", headless: true, args: CHROMIUM_ARGS, viewport: { width: 1280, height: 900 } });
    page = context.pages()[0] ?? (await context.newPage());
  });
  afterAll(async () => {
    await context?.close();
    server?.kill("SIGTERM");
    await server;
    await sql.end();
    await database.drop();
    rmSync(profile, { recursive: true, force: true });
  });

  it("refuses data without the token, and anything but GET", async () => {
    expect((await fetch(`${url}api/runs`)).status).toBe(401);
    expect((await fetch(`${url}events`)).status).toBe(401);
    const headers = { authorization: `Bearer ${TOKEN}` };
    expect((await fetch(`${url}api/runs`, { headers })).status).toBe(200);
    expect((await fetch(`${url}api/runs`, { method: "POST", headers })).status).toBe(405);
    expect((await fetch(`${url}static/..%2f..%2fpackage.json`, { headers })).status).toBe(404);
  });

  it("lists the run, draws one chart per parameter with a point per completed iteration, and shows a batch reported meanwhile without a reload", async () => {
    await page.goto(`${url}?token=${TOKEN}`);
    const link = page.locator("a.run-link");
    await expect.poll(() => link.allTextContents()).toEqual(["live"]);
    await link.click();
    await page.waitForURL(/\/run\/live$/);
    const charts = page.locator("figure.param-chart");
    await charts.first().waitFor();
    expect(await charts.count()).toBe(params.length);
    // θ after 0, 1, …, 12 iterations: 13 points in each chart's line.
    const points = await page.$$eval("figure.param-chart polyline.theta", (lines) => lines.map((l) => l.getAttribute("points")?.trim().split(/\s+/).length));
    expect(points).toEqual(params.map(() => COMPLETED + 1));
    expect(await page.locator("figure.param-chart").evaluateAll((figures) => figures.map((f) => f.querySelectorAll("line.bound").length))).toEqual(params.map(() => 2));
    expect(await page.locator("#elo-chart circle.elo").count()).toBe(COMPLETED);
    await expect.poll(() => page.locator("#live").textContent()).toBe("live");
    expect(await page.locator("#progress").textContent()).toContain("iteration 13 of 100 · 0/64 games");

    // A marker on the window survives only if the page is not reloaded.
    await page.evaluate("window.notReloaded = true");
    const batch = await claimBatch(sql, "w1", 8, 60);
    expect(batch).toBeDefined();
    // Plus lost 1 game and minus 2 to delays outside the engines; 4 games were replayed.
    const faults: [FaultCounts, FaultCounts] = [{ ...noFaults(), delay: 1 }, { ...noFaults(), delay: 2 }];
    const report = { batchId: batch!.batchId, workerName: "w1", wins: 3, losses: 1, draws: 4, pairs: [0, 1, 1, 2, 0] as Pentanomial, faults, replays: 4, replayLimitPairs: 1 };
    expect(await reportBatch(sql, report)).toBe("accepted");
    // The batch shows without a reload (pushed by NOTIFY → server-sent event). The bound is
    // generous so a busy CI machine cannot fail it; how fast it shows is for a benchmark.
    await page.locator("#progress", { hasText: "8/64 games" }).waitFor({ timeout: 10_000 });
    expect(await page.evaluate("window.notReloaded")).toBe(true);
    // Delays outside the engines show apart from the engines' faults: run, iteration and worker.
    expect(await page.locator("#progress").textContent()).toContain("delays outside the engines: 3 lost, 4 replayed");
    const rows = await page.$$eval("tbody tr", (trs) => trs.map((tr) => [...tr.children].map((cell) => cell.textContent)));
    expect(rows).toContainEqual(["13", "0", "0", "0", "0", "0", "0", "1", "2", "4", "1"]);
    expect(rows.find((row) => row[0] === "w1")?.slice(1, 6)).toEqual(["synthetic", "2", expect.any(String), "3", "4"]);
    if (process.env.SPSA_DASHBOARD_SCREENSHOT) await page.screenshot({ path: process.env.SPSA_DASHBOARD_SCREENSHOT });
  });
});
