import type postgres from "postgres";
import type { Response } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/config.js";
import { loadParams } from "../../src/params/params.js";
import { applyMigrations, connect } from "../../src/postgres/connection.js";
import { playedGainBlocks } from "../../src/db/gain-blocks.js";
import { DEFAULT_GAIN_OPTIONS, readGain } from "../../src/spsa/gain-so-far.js";
import { freshDatabase } from "../support/database.js";
import { openDashboard, type DashboardBrowser } from "../support/dashboard-browser.js";
import { writeGainBlocks, writeSyntheticOptionRun } from "../support/synthetic-option-run.js";

const TOKEN = "test-token-gain-chart";

/**
 * θ against θ₀ in blocks of 16 games, the first two all won (their window's score too near 100 %
 * for an upper end), the later ones mixed: drawn every 24 games from 20 on, among 80 games of
 * plus-vs-minus batches.
 */
const BLOCKS = [
  [16, 0, 0],
  [16, 0, 0],
  [8, 4, 4],
  [7, 5, 4],
  [9, 3, 4],
  [8, 4, 4],
  [10, 2, 4],
  [9, 3, 4],
].map(([wins, losses, draws], i) => ({ at: 20 + 24 * i, wins: wins!, losses: losses!, draws: draws! }));

/**
 * The run page's chart of the Elo gained so far: a real dashboard process and a real Chromium on
 * synthetic UCI-option runs, one with gain blocks and one without.
 */
describe("the dashboard's chart of the Elo gained so far", () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let sql: postgres.Sql;
  let dashboard: DashboardBrowser;
  let gained: { runId: number; iterationId: number };
  const params = loadParams("params.toml");

  beforeAll(async () => {
    database = await freshDatabase();
    await applyMigrations(database.url);
    sql = connect(database.url, 2);
    // 48 iterations of 16 games in batches of 4: a budget of 768 games.
    const config = loadConfig("config.toml");
    config.spsa.maxIterations = 48;
    config.games.gamesPerIteration = 16;
    config.games.batchSize = 4;
    const run = (name: string, gainBlocks?: typeof BLOCKS) =>
      writeSyntheticOptionRun(sql, {
        name,
        config,
        params,
        workerName: `w-${name}`,
        wins: Array.from({ length: 20 }, (_, n) => n % 3),
        startedAt: new Date(Date.now() - 100_000),
        batchSeconds: 5,
        slots: 1,
        ...(gainBlocks && { gainBlocks }),
      });
    gained = await run("gained", BLOCKS);
    await run("no-blocks");
    dashboard = await openDashboard({ DATABASE_URL: database.url, SPSA_DASHBOARD_TOKEN: TOKEN });
  });
  afterAll(async () => {
    await dashboard?.close();
    await sql?.end();
    await database?.drop();
  });

  /** The chart's points as the page drew them: the gain's games, Elo and ends (an infinite one null). */
  const drawn = () =>
    dashboard.page.$$eval("#gain-chart circle.gain-point", (dots) =>
      dots.map((dot) => {
        const end = (name: string) => (dot.getAttribute(name) === "" ? null : Number(dot.getAttribute(name)));
        return {
          at: Number(dot.getAttribute("data-at")),
          elo: end("data-elo"),
          low: end("data-low"),
          high: end("data-high"),
        };
      }),
    );

  /** readGain over the run's stored blocks at each block's end, ends as the page keeps them. */
  const expected = async () => {
    const blocks = await playedGainBlocks(sql, gained.runId);
    return blocks.map((b) => {
      const at = b.at + b.result.plusWins + b.result.minusWins + b.result.draws;
      const { gain } = readGain(blocks, at, at, DEFAULT_GAIN_OPTIONS)!;
      const finite = (v: number) => (Number.isFinite(v) ? v : null);
      return { at, elo: gain.elo, low: finite(gain.low), high: finite(gain.high) };
    });
  };

  it("draws the gain at each block's end as readGain reads the stored blocks there, open above where θ won every game, the rest projected at the budget", async () => {
    const { page, url } = dashboard;
    await page.goto(`${url}run/gained?token=${TOKEN}`);
    await page.locator("#gain-chart circle.gain-point").first().waitFor();
    const points = await drawn();
    expect(points).toEqual(await expected());
    expect(points).toHaveLength(BLOCKS.length);
    // The first two windows hold only won games: no upper end, drawn as one arrow off the chart's top, not a number.
    expect(points.map((p) => p.high === null)).toEqual([true, true, false, false, false, false, false, false]);
    const arrows = await page.locator("#gain-chart path.open-end title").allTextContents();
    expect(arrows).toEqual(["no upper end: θ's score against θ₀ too near 100 % to bound it"]);
    // The rest of the budget: the status's projection, a dashed interval at the budget (the chart's right edge).
    const now = 80 + 16 * BLOCKS.length;
    const blocks = await playedGainBlocks(sql, gained.runId);
    const rest = readGain(blocks, now, 768, DEFAULT_GAIN_OPTIONS)!.rest!;
    const interval = page.locator("#gain-chart line.projection-interval");
    expect(await interval.getAttribute("x1")).toBe(String(640 - 40));
    expect(await interval.locator("title").textContent()).toBe(
      `the rest of the budget (${now} → 768 games) projected to add ${rest.elo >= 0 ? "+" : "−"}${Number(Math.abs(rest.elo).toPrecision(4))} Elo (95 %: ` +
        [rest.low, rest.high].map((v) => `${v >= 0 ? "+" : "−"}${Number(Math.abs(v).toPrecision(4))}`).join(" … ") +
        ") to the gain now",
    );
    // The status's line under the chart, as spsa status says it.
    expect(await page.locator("p.gain").first().textContent()).toMatch(/^gained so far: [+−]\d+ Elo \(95 %: /);
  });

  it("adds a block reported meanwhile on a refresh that asks only for the points after the page's last", async () => {
    const { page } = dashboard;
    const last = (await drawn()).at(-1)!.at;
    const added = 80 + 16 * BLOCKS.length;
    // Every refresh's answer: the gain chart's last point it asked from, the points it carried.
    const answers: Promise<{ gain: string | null; at: number[] }>[] = [];
    const listen = (response: Response) => {
      if (!response.url().includes("/api/runs/gained?since=")) return;
      const gain = new URL(response.url()).searchParams.get("gain");
      answers.push(
        response
          .json()
          .then((update: { gainSeries: { at: number }[] }) => ({ gain, at: update.gainSeries.map((p) => p.at) })),
      );
    };
    page.on("response", listen);
    try {
      await writeGainBlocks(sql, { ...gained, params, workerName: "w-gained", reported: new Date() }, [
        { at: added, wins: 9, losses: 3, draws: 4 },
      ]);
      await sql`select pg_notify('spsa_progress', '')`;
      await expect.poll(async () => (await drawn()).length).toBe(BLOCKS.length + 1);
    } finally {
      page.off("response", listen);
    }
    expect(await drawn()).toEqual(await expected());
    // The new point came alone, in answer to a refresh from the page's last point.
    const seen = await Promise.all(answers);
    expect(seen.flatMap((a) => a.at)).toEqual([added + 16]);
    expect(seen.find((a) => a.at.length > 0)?.gain).toBe(String(last));
  });

  it("draws no chart for a run without gain blocks", async () => {
    const { page, url } = dashboard;
    await page.goto(`${url}run/no-blocks`);
    await page.locator("#elo-chart").waitFor();
    expect(await page.locator("#gain-chart").count()).toBe(0);
    const detail = (await (
      await fetch(`${url}api/runs/no-blocks`, { headers: { authorization: `Bearer ${TOKEN}` } })
    ).json()) as { gainSeries: unknown[] };
    expect(detail.gainSeries).toEqual([]);
  });
});
