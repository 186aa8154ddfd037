import { rmSync } from "node:fs";
import type postgres from "postgres";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/config.js";
import { loadParams } from "../../src/params/params.js";
import { claimBatch, reportBatch } from "../../src/db/batches.js";
import { foldIteration } from "../../src/db/fold.js";
import { applyMigrations, connect } from "../../src/postgres/connection.js";
import { writeSyntheticRun } from "../support/synthetic-run.js";
import { freshDatabase } from "../support/database.js";
import { startMaster, startWorker } from "../support/processes.js";
import { tuningSetup, type TuningSetup } from "../support/tuning-setup.js";
import { openDashboard, type DashboardBrowser } from "../support/dashboard-browser.js";
import { registerTestWorker, seedIteration } from "../support/iterations.js";
import { writeSyntheticOptionRun } from "../support/synthetic-option-run.js";
import { noFaults, type FaultCounts } from "../../src/types/faults.js";
import type { Pentanomial } from "../../src/types/play.js";

const TOKEN = "test-token-4f1c";
const COMPLETED = 12;
/** The real run's iterations: minnow's games at a node limit, so θ moves the same way every time. */
const REAL_ITERATIONS = 4;

/**
 * The dashboard as a real process, a real Chromium, a synthetic run of 12 iterations with
 * the 13th open, and a real run of minnow played by a seeded worker.
 */
describe("spsa dashboard in a browser", () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let real: TuningSetup;
  let realOptions: TuningSetup;
  let sql: postgres.Sql;
  let url: string;
  let dashboard: DashboardBrowser | undefined;
  let page: Page;
  const params = loadParams("params.toml");

  beforeAll(async () => {
    database = await freshDatabase();
    await applyMigrations(database.url);
    sql = connect(database.url, 2);
    // With a ship check of two games a match, so the page shows a verdict.
    real = tuningSetup({
      iterations: REAL_ITERATIONS,
      games: 8,
      batchSize: 2,
      moveLimit: "nodes = 1000",
      extraConfig: "[ship]\nnodes = 300\nelimination_games = 2\nmax_games = 2\n",
    });
    const env = { DATABASE_URL: database.url };
    const worker = startWorker(real, env, "real-worker", ["--seed", "w"]);
    try {
      const master = await startMaster(real, env, "tuned", ["--seed", "v"]);
      if (master.exitCode !== 0) throw new Error(`the real run's master failed: ${master.all}`);
    } finally {
      worker.kill("SIGTERM");
      await worker;
    }
    // A real UCI-option run of minnow (one binary, θ as option values), played by another seeded worker.
    realOptions = tuningSetup({ mode: "options", iterations: 6, games: 8, batchSize: 2, moveLimit: "nodes = 1000" });
    const optionsWorker = startWorker(realOptions, env, "options-worker", ["--seed", "o"]);
    try {
      const master = await startMaster(realOptions, env, "uci-tuned", ["--seed", "u"]);
      if (master.exitCode !== 0) throw new Error(`the real UCI-option run's master failed: ${master.all}`);
    } finally {
      optionsWorker.kill("SIGTERM");
      await optionsWorker;
    }
    // Written after the real run, whose worker would otherwise take the open iteration's games.
    await writeSyntheticRun(sql, {
      name: "live",
      config: loadConfig("config.toml"),
      params,
      iterations: COMPLETED,
      open: true,
      workerName: "w1",
    });
    dashboard = await openDashboard({ DATABASE_URL: database.url, SPSA_DASHBOARD_TOKEN: TOKEN });
    ({ url, page } = dashboard);
  });
  afterAll(async () => {
    await dashboard?.close();
    await sql.end();
    await database.drop();
    if (real) rmSync(real.dir, { recursive: true, force: true });
    if (realOptions) rmSync(realOptions.dir, { recursive: true, force: true });
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
    const links = page.locator("a.run-link");
    await expect.poll(async () => (await links.allTextContents()).sort()).toEqual(["live", "tuned", "uci-tuned"]);
    await links.filter({ hasText: "live" }).click();
    await page.waitForURL(/\/run\/live$/);
    const charts = page.locator("figure.param-chart");
    await charts.first().waitFor();
    expect(await charts.count()).toBe(params.length);
    // θ after 0, 1, …, 12 iterations: 13 points in each chart's line.
    const points = await page.$$eval("figure.param-chart polyline.theta", (lines) =>
      lines.map((l) => l.getAttribute("points")?.trim().split(/\s+/).length),
    );
    expect(points).toEqual(params.map(() => COMPLETED + 1));
    // Twelve iterations moved no parameter near its bounds: none drawn.
    expect(await page.locator("figure.param-chart line.bound").count()).toBe(0);
    expect(await page.locator("#elo-chart circle.elo").count()).toBe(COMPLETED);
    await expect.poll(() => page.locator("#live").textContent()).toBe("live");
    // max_iterations 100 of 64 games with the default gain_share's 39 gain iterations: 129.
    expect(await page.locator("#progress").textContent()).toContain("iteration 13 of 129 · 0/64 games");

    // A marker on the window survives only if the page is not reloaded.
    await page.evaluate("window.notReloaded = true");
    const batch = await claimBatch(sql, "w1", 8);
    expect(batch).toBeDefined();
    // Plus lost 1 game and minus 2 to delays outside the engines; 4 games were replayed.
    const faults: [FaultCounts, FaultCounts] = [
      { ...noFaults(), delay: 1 },
      { ...noFaults(), delay: 2 },
    ];
    const report = {
      batchId: batch!.batchId,
      workerName: "w1",
      wins: 3,
      losses: 1,
      draws: 4,
      pairs: [0, 0, 2, 2, 0] as Pentanomial,
      faults,
      replays: 4,
      replayLimitPairs: 1,
    };
    expect(await reportBatch(sql, report)).toBe("accepted");
    // The master folds it into the iteration on its next poll.
    expect(await foldIteration(sql, batch!.iterationId)).toBe(true);
    // The batch shows without a reload (pushed by NOTIFY → server-sent event). The bound is
    // generous so a busy CI machine cannot fail it; how fast it shows is for a benchmark.
    await page.locator("#progress", { hasText: "8/64 games" }).waitFor({ timeout: 10_000 });
    expect(await page.evaluate("window.notReloaded")).toBe(true);
    // Delays outside the engines show apart from the engines' faults: run, iteration and worker.
    expect(await page.locator("#progress").textContent()).toContain("delays outside the engines: 3 lost, 4 replayed");
    const rows = await page.$$eval("tbody tr", (trs) =>
      trs.map((tr) => [...tr.children].map((cell) => cell.textContent)),
    );
    expect(rows).toContainEqual(["13", "0", "0", "0", "0", "0", "0", "1", "2", "4", "1"]);
    // Its worker's row holds its games in this run, results in percent, faults, delays (lost, replayed),
    // and among the columns of "details" its host and games at once.
    const w1 = rows.find((row) => row[0] === "w1");
    expect(w1?.slice(1, 5)).toEqual([
      String(COMPLETED * 64 + 8),
      expect.stringMatching(/^\d+\/\d+\/\d+$/),
      "0",
      "3 lost, 4 replayed",
    ]);
    expect(w1?.slice(8, 10)).toEqual(["synthetic", "2"]);
  });

  it("fits the workers' table to a laptop (8 columns, more on demand), names one playing, explains: '?'", async () => {
    await page.goto(`${url}run/live`);
    await page.locator("#workers tbody tr").first().waitFor();
    const visibleHeaders = () =>
      page.$$eval("#workers th", (ths) => ths.filter((th) => th.checkVisibility()).map((th) => th.textContent));
    expect(await visibleHeaders()).toEqual([
      "worker",
      "games",
      "+W/=D/−L %",
      "faults",
      "delays",
      "last seen",
      "playing",
      "verdict",
    ]);
    // The table fits the 1280-pixel window: no sideways scrolling.
    const width = await page.locator("#workers table").evaluate((t) => t.getBoundingClientRect().width);
    expect(width).toBeLessThanOrEqual(1280);
    await page.locator("#worker-details").click();
    const all = await visibleHeaders();
    expect(all.length).toBeGreaterThan(8);
    expect(all).toContain("score (pool)");
    await page.locator("#worker-details").click();
    expect(await visibleHeaders()).toHaveLength(8);

    // A worker that claimed a batch and reported nothing: named, with what it plays, once the master's fold
    // (here the test's) tells the page.
    await registerTestWorker(sql, "w-new");
    const batch = await claimBatch(sql, "w-new", 8);
    expect(batch).toBeDefined();
    await foldIteration(sql, batch!.iterationId);
    const newRow = page.locator("#workers tbody tr", { hasText: "w-new" });
    await newRow.waitFor({ timeout: 10_000 });
    const cells = await newRow.evaluate((tr) => [...tr.children].slice(0, 8).map((cell) => cell.textContent));
    expect(cells).toEqual([
      "w-new",
      "0",
      "",
      "0",
      "",
      "",
      expect.stringMatching(
        new RegExp(`^batch ${batch!.batchId} \\(8 games of iteration ${COMPLETED + 1}\\) for \\d+s$`),
      ),
      "nothing reported yet",
    ]);

    // "?" (the button, or the key) opens the legend: a line for every column of the table.
    const legend = page.locator("#legend");
    expect(await legend.isVisible()).toBe(false);
    await page.locator("#legend-toggle").click();
    expect(await legend.isVisible()).toBe(true);
    const terms = await page.$$eval("#legend dt", (dts) => dts.map((dt) => dt.textContent));
    await page.locator("#worker-details").click();
    for (const header of await visibleHeaders()) expect(terms, `legend of "${header}"`).toContain(header);
    await page.locator("#worker-details").click();
    expect(terms).toContain("(capped)");
    await page.keyboard.press("?");
    expect(await legend.isVisible()).toBe(false);

    // The run list counts iterations as the master does: the one being played, not those opened.
    await page.goto(url);
    const live = page.locator("tbody tr", { hasText: "live" });
    await live.waitFor();
    expect(await live.evaluate((tr) => [...tr.children].slice(1, 4).map((cell) => cell.textContent))).toEqual([
      "active",
      `${COMPLETED + 1} of 129 (${COMPLETED} complete)`,
      String(COMPLETED * 64 + 8),
    ]);
  });

  it("renders the run page's known content in its first response: without the page's script it reads the run's status, its numbers psql's", async () => {
    // The first paint alone: the page's script never runs.
    await page.route("**/static/app.js", (route) => route.abort());
    try {
      await page.goto(`${url}run/tuned`);
      const text = (await page.locator("#first-paint").textContent()) ?? "";
      const [games] = await sql<{ games: number }[]>`
        select sum(b.games)::int as games from spsa_batch b join spsa_iteration i on i.id = b.iteration_id join spsa_run r on r.id = i.run_id
        where r.name = 'tuned' and b.worker_name = 'real-worker' and b.status = 'done'`;
      expect(text).toMatch(/^run tuned \(complete, seed /);
      expect(text).toContain(`games ${games!.games} done`);
      expect(text).toMatch(new RegExp(`^real-worker +\\S+ +\\d+ +${games!.games} `, "m"));
      expect(await page.locator("h1").textContent()).toBe("Run tuned");
    } finally {
      await page.unroute("**/static/app.js");
    }
  });

  it("draws a real run's moving parameters as lines that climb or fall across the chart, from a marked start, with a scale in steps", async () => {
    const detail = (await (
      await fetch(`${url}api/runs/tuned`, { headers: { authorization: `Bearer ${TOKEN}` } })
    ).json()) as {
      status: { parameters: { name: string; step: number; history: { value: number }[] }[] };
    };
    // Four iterations at the default gains move θ by hundredths of a step (an even score moves
    // nothing; the seeded games are not even): that must show as movement.
    const moved = detail.status.parameters.filter((p) => {
      const values = p.history.map((h) => h.value);
      return (Math.max(...values) - Math.min(...values)) / p.step >= 0.01;
    });
    expect(moved.length, "no parameter of the real run moved a hundredth of a step").toBeGreaterThan(0);

    await page.goto(`${url}run/tuned`);
    await page.locator("figure.param-chart").first().waitFor();
    for (const { name } of moved) {
      const drawn = await page.locator(`figure.param-chart[data-parameter="${name}"] svg`).evaluate((svg) => {
        const ys = (svg.querySelector("polyline.theta")?.getAttribute("points") ?? "")
          .trim()
          .split(/\s+/)
          .map((point: string) => Number(point.split(",")[1]));
        const axis = svg.querySelector("line.y-axis");
        const start = svg.querySelector("line.start");
        return {
          span: Math.max(...ys) - Math.min(...ys),
          height: Math.abs(Number(axis?.getAttribute("y2")) - Number(axis?.getAttribute("y1"))),
          firstY: ys[0],
          startY: start === null ? null : Number(start.getAttribute("y1")),
          steps: [...svg.querySelectorAll(".right-axis text.right-label")].map((label) => label.textContent),
        };
      });
      // The line spans at least a quarter of the plot's height (over [min, max] it was a flat line).
      expect(
        drawn.span / drawn.height,
        `${name}: drawn ${drawn.span.toFixed(2)} of ${drawn.height}`,
      ).toBeGreaterThanOrEqual(0.25);
      // The start is marked where the line begins, and the right scale reads steps from it.
      expect(drawn.startY, name).toBeCloseTo(drawn.firstY ?? Number.NaN, 1);
      expect(drawn.steps, name).toContain("0");
      expect(drawn.steps.length, name).toBeGreaterThanOrEqual(2);
      for (const label of drawn.steps) expect(label, name).toMatch(/^(0|[+−]\d+(\.\d+)?)$/);
    }
    expect(await page.locator("#elo-chart circle.elo").count()).toBe(REAL_ITERATIONS);
    // Two games cannot decide the SPRT: the ship check's line says so, marked as not passed.
    expect(await page.locator("#ship.not-passed").textContent()).toMatch(
      /^ship check at 300 nodes per move: .* vs start θ, undecided at max_games \[0, 5\], Elo [+-]\d+\.\d \(1 pair: too few for an error bar\), 2 games/,
    );
    expect((await page.locator("#elo-chart polyline.mean").getAttribute("points"))?.trim().split(/\s+/)).toHaveLength(
      REAL_ITERATIONS,
    );
    if (process.env.SPSA_DASHBOARD_SCREENSHOT) await page.screenshot({ path: process.env.SPSA_DASHBOARD_SCREENSHOT });
  });

  it("shows a real UCI-option run: its worker's games in it as psql counts them, its latest batches with W/D/L and the worker", async () => {
    await page.goto(`${url}run/uci-tuned`);
    await page.locator("#workers tbody tr").first().waitFor();
    const [played] = await sql<{ games: number }[]>`
      select sum(b.games)::int as games from spsa_batch b join spsa_iteration i on i.id = b.iteration_id join spsa_run r on r.id = i.run_id
      where r.name = 'uci-tuned' and b.worker_name = 'options-worker' and b.status = 'done' and b.held_at is null`;
    expect(played!.games).toBe(6 * 8);
    const workers = await page.$$eval("#workers tbody tr", (trs) =>
      trs.map((tr) => [...tr.children].map((cell) => cell.textContent)),
    );
    expect(workers.map((row) => [row[0], row[1]])).toEqual([["options-worker", String(played!.games)]]);
    const batches = await page.$$eval("#batches tbody tr", (trs) =>
      trs.map((tr) => [...tr.children].map((cell) => cell.textContent)),
    );
    expect(batches.length).toBeGreaterThan(0);
    for (const row of batches) {
      expect(row[2]).toBe("options-worker");
      expect(row[3]).toMatch(/^\+\d -\d =\d$/);
    }
    expect(await page.locator("figure.param-chart").count()).toBe(4);
    if (process.env.SPSA_DASHBOARD_OPTIONS_SCREENSHOT)
      await page.screenshot({ path: process.env.SPSA_DASHBOARD_OPTIONS_SCREENSHOT });
  });

  it("fits the θ axis to the path, widened to a bound only when the path comes near it, and averages Elo over the latest points", async () => {
    // The page's own module, as the browser runs it (a string: vitest would rewrite an import() in a function).
    const results = (await page.evaluate(`import("/static/charts.js").then((charts) => ({
      nearMin: charts.thetaAxis([0.1, 0.3, 0.2], { start: 0.1, min: 0.05, max: 2, step: 0.1 }),
      farFromBoth: charts.thetaAxis([1, 1.2], { start: 1, min: 0, max: 2, step: 0.1 }),
      unmoved: charts.thetaAxis([5, 5], { start: 5, min: 1, max: 10, step: 1 }),
      ticks: charts.niceTicks(-0.024, 0.324, 4).map((tick) => tick.label),
      mean: charts.runningMean([{ elo: 10, games: 2 }, { elo: -20, games: 6 }, { elo: 40, games: 4 }], 2),
    }))`)) as Record<"nearMin" | "farFromBoth" | "unmoved", { domain: [number, number]; bounds: unknown[] }> & {
      ticks: string[];
      mean: number[];
    };
    // min is 0.05 below a path 0.2 tall: drawn, and the axis reaches it (with 8 % margins); max is far.
    expect(results.nearMin.bounds).toEqual([{ label: "min", value: 0.05 }]);
    expect(results.nearMin.domain[0]).toBeCloseTo(0.03, 9);
    expect(results.nearMin.domain[1]).toBeCloseTo(0.32, 9);
    expect(results.farFromBoth.bounds).toEqual([]);
    expect(results.farFromBoth.domain[0]).toBeCloseTo(0.984, 9);
    // An unmoved parameter: a hundredth of a step around it, its line flat in the middle.
    expect(results.unmoved.bounds).toEqual([]);
    expect(results.unmoved.domain[0]).toBeCloseTo(5 - 0.005 - 0.0008, 9);
    expect(results.ticks).toEqual(["0", "0.1", "0.2", "0.3"]);
    // Games-weighted, over the last two points.
    expect(results.mean).toEqual([10, -12.5, 4]);
  });

  it("shows a UCI-option run by its batches and games: Elo per window of batches with error bars and mean, games per hour, no stray text", async () => {
    // 48 iterations of 16 games in batches of 4: windows of 16 games, 4 batches each; 10 batches played in the last 50 s.
    const config = loadConfig("config.toml");
    config.spsa.maxIterations = 48;
    config.games.gamesPerIteration = 16;
    config.games.batchSize = 4;
    const wins = Array.from({ length: 10 }, (_, n) => n % 3);
    await writeSyntheticOptionRun(sql, {
      name: "options",
      config,
      params,
      workerName: "w-options",
      wins,
      startedAt: new Date(Date.now() - 50_000),
      batchSeconds: 5,
      slots: 1,
    });
    // With the token: the test needs no cookie from the ones before it.
    await page.goto(`${url}run/options?token=${TOKEN}`);
    await page.locator("#progress").waitFor();
    const progress = await page.locator("#progress").textContent();
    expect(progress).toMatch(
      /^UCI-option run: 10 batches applied, 0 in flight · 40\/768 games · 40 games in total · \d+\.\d games\/min over the last \S+ · run ETA \S+ · /,
    );
    expect(
      await page.locator("h2", { hasText: "Elo per 16 games of batches (plus vs minus, 95 % error bars" }).count(),
    ).toBe(1);
    // Batches 1–4, 5–8 and 9–10: three points and the running mean through them; error bars on the first two
    // (8 pairs each), none on the last window's 4 pairs (too few for one).
    expect(await page.locator("#elo-chart circle.elo").count()).toBe(3);
    expect(await page.locator("#elo-chart line.error").count()).toBe(2);
    expect((await page.locator("#elo-chart polyline.mean").getAttribute("points"))?.trim().split(/\s+/)).toHaveLength(
      3,
    );
    expect(await page.locator("#elo-chart circle.elo title").first().textContent()).toMatch(/^batches 1–4: /);
    // Games per minute by when their batches were reported, in buckets since the run's start: all 40 games in them, the axis in time since the start.
    const bars = await page.locator("#games-chart rect.bar title").allTextContents();
    for (const bar of bars) expect(bar).toMatch(/^\+\S+ to \+\S+ \(\d+ games\), games per minute: \d+(\.\d)?$/);
    expect(bars.reduce((sum, bar) => sum + Number(/\((\d+) games\)/.exec(bar)![1]), 0)).toBe(40);
    expect(await page.locator("#games-chart svg > text").allTextContents()).toContain("+0s");
    const rows = await page.$$eval("#batches tbody tr", (trs) => trs.map((tr) => tr.children[1]?.textContent));
    expect(rows).toEqual(Array.from({ length: 8 }, () => "4"));
    // Nothing but elements under the page's root: no text such as a stray "null" between them.
    expect(
      await page
        .locator("#app")
        .evaluate((app) => [...app.childNodes].filter((node) => node.nodeType !== 1).map((node) => node.textContent)),
    ).toEqual([]);
  });

  it("charts a run of many parameters 24 at a time: the most moved first, a search box and pages; a refresh asks only what changed, for those charts", async () => {
    const config = loadConfig("config.toml");
    config.spsa.maxIterations = 8;
    config.games.gamesPerIteration = 16;
    config.games.batchSize = 4;
    const many = Array.from({ length: 60 }, (_, i) => ({
      ...params[0]!,
      name: `P_${String(i).padStart(2, "0")}`,
      constant: `P_${i}`,
      index: [],
      option: `P_${i}`,
      value: 10,
      min: 0,
      max: 100,
      step: 1,
      type: "int" as const,
    }));
    const { runId } = await writeSyntheticOptionRun(sql, {
      name: "many",
      config,
      params: many,
      workerName: "w-many",
      wins: [1, 2, 0],
      startedAt: new Date(Date.now() - 30_000),
      batchSeconds: 5,
      slots: 1,
    });
    // P_07 moved most, then P_42: the first page starts with them.
    await sql`update spsa_run set current_parameters = current_parameters || '{"P_07": 14, "P_42": 12.5}'::jsonb where id = ${runId}`;
    await page.goto(`${url}run/many`);
    await page.locator("figure.param-chart").first().waitFor();
    const shown = () =>
      page.$$eval("figure.param-chart", (figures) => figures.map((f) => f.getAttribute("data-parameter")));
    expect((await shown()).slice(0, 2)).toEqual(["P_07", "P_42"]);
    expect(await shown()).toHaveLength(24);
    const moves = await page.locator("#moves").textContent();
    expect(moves).toMatch(
      /^60 parameters, 2 moved from their start\. Moves in steps: ≤ -2: 0 · .* · 0: 58 · .* · ≥ 2: 2$/,
    );
    expect(await page.locator("#charts-page").textContent()).toContain("page 1 of 3");
    await page.locator("#charts-next").click();
    await expect.poll(async () => (await shown())[0]).not.toBe("P_07");
    expect(await page.locator("#charts-page").textContent()).toContain("page 2 of 3");
    await page.locator("#parameter-search").fill("P_4");
    await expect.poll(shown).toEqual(["P_42", "P_40", "P_41", "P_43", "P_44", "P_45", "P_46", "P_47", "P_48", "P_49"]);
    // A notification: the page asks what changed since its cursor, for the charts it shows, and keeps the search.
    const refresh = page.waitForResponse((response) => response.url().includes("/api/runs/many?since="));
    await sql`select pg_notify('spsa_progress', '')`;
    const response = await refresh;
    expect(new URL(response.url()).searchParams.getAll("chart")).toEqual([
      "P_42",
      "P_40",
      "P_41",
      "P_43",
      "P_44",
      "P_45",
      "P_46",
      "P_47",
      "P_48",
      "P_49",
    ]);
    expect((await response.body()).length).toBeLessThan(20_000);
    expect(await page.locator("#parameter-search").inputValue()).toBe("P_4");
    expect(await shown()).toHaveLength(10);
  });

  it("shows a reference-mode run: its reference engine, each side's results and score against it, the reference's faults", async () => {
    await registerTestWorker(sql, "w-versus");
    const reference = { path: "/nonexistent/reference", sha256: "3".repeat(64) };
    const { run, iteration } = await seedIteration(sql, { runName: "versus", targetGames: 4, reference });
    await sql`update spsa_run set reference = 'start', reference_path = ${reference.path}, reference_sha256 = ${reference.sha256} where id = ${run.id}`;
    const others = await sql<
      { id: number }[]
    >`select id from spsa_iteration where id <> ${iteration.id} and status <> 'complete'`;
    const batch = await claimBatch(sql, "w-versus", 4, { skip: others.map((o) => o.id) });
    expect(batch?.iterationId).toBe(iteration.id);
    const report = {
      batchId: batch!.batchId,
      workerName: "w-versus",
      wins: 0,
      losses: 0,
      draws: 0,
      pairs: [0, 1, 0, 1, 0] as Pentanomial,
      faults: [noFaults(), noFaults(), { ...noFaults(), crash: 1 }] as const,
      replays: 0,
      replayLimitPairs: 0,
      reference: { plus: { wins: 1, draws: 1, losses: 0 }, minus: { wins: 0, draws: 1, losses: 1 } },
    };
    expect(await reportBatch(sql, report)).toBe("accepted");
    await foldIteration(sql, iteration.id);
    await page.goto(`${url}run/versus`);
    await page.locator("#iterations").waitFor();
    expect(await page.locator("#reference").textContent()).toBe(
      "Reference mode: θ+ and θ− each play θ₀, built at the run's start (sha256 333333333333).",
    );
    const rows = await page.$$eval("#iterations tbody tr", (trs) =>
      trs.map((tr) => [...tr.children].map((cell) => cell.textContent)),
    );
    expect(rows).toEqual([["1", "in_progress", "4/4", "θ+ +1 -0 =1 (75.0%) · θ− +0 -1 =1 (25.0%)", ""]]);
    expect(await page.locator("h2", { hasText: "Elo per iteration (θ+ vs reference − θ− vs reference" }).count()).toBe(
      1,
    );
    const headers = await page.$$eval("th", (ths) => ths.map((th) => th.textContent));
    expect(headers).toContain("reference crashes");
  });
});
