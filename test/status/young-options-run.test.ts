import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/config.js";
import { loadParams } from "../../src/params/params.js";
import { findRun } from "../../src/db/run-status.js";
import { writeSyntheticOptionRun } from "../support/synthetic-option-run.js";
import { renderStatus } from "../../src/status/render.js";
import { readRunStatus } from "../../src/status/snapshot.js";
import { useMigratedDatabase } from "../support/database.js";

/** Two slots of a worker at -c 2, each a batch of 8 games every 5 s: 192 games a minute. */
const SLOTS = 2;
const BATCH_GAMES = 8;
const BATCH_SECONDS = 5;
const SPEED = (SLOTS * BATCH_GAMES * 60) / BATCH_SECONDS;
/** The run started this long ago; its batches end at 5 s, 10 s, …, 55 s. */
const AGE_SECONDS = 58;

describe("spsa status of a UCI-option run a minute old", () => {
  const database = useMigratedDatabase(2);

  it("rates a run playing 192 games a minute within 20 % of it, ETA too, and shows its Elo per window of batches", async () => {
    const { sql } = database;
    // 75 iterations of 64 games in batches of 8; each batch plus wins one pair and draws three.
    const config = loadConfig("config.toml");
    config.spsa.maxIterations = 75;
    const target = 75 * 64;
    const rounds = Math.floor(AGE_SECONDS / BATCH_SECONDS);
    const [{ start } = { start: new Date() }] = await sql<
      { start: Date }[]
    >`select now() - make_interval(secs => ${AGE_SECONDS}) as start`;
    await writeSyntheticOptionRun(sql, {
      name: "young",
      config,
      params: loadParams("params.toml"),
      workerName: "fast",
      wins: Array.from({ length: rounds * SLOTS }, () => 1),
      startedAt: start,
      batchSeconds: BATCH_SECONDS,
      slots: SLOTS,
    });

    const status = await readRunStatus(sql, (await findRun(sql, "young"))!, { samples: 24 });
    const played = rounds * SLOTS * BATCH_GAMES;
    expect(status.games.total).toBe(played);
    expect(status.games.perMinute).toBeGreaterThan(0.8 * SPEED);
    expect(status.games.perMinute).toBeLessThan(1.2 * SPEED);
    // Not the games of a minute spread over the ten-minute window: the minute the run has lasted, to its last report (55 s).
    expect(status.games.rateSeconds).toBeGreaterThanOrEqual(rounds * BATCH_SECONDS);
    expect(status.games.rateSeconds).toBeLessThan(AGE_SECONDS + 30);
    expect(status.games.overallPerMinute).toBeGreaterThan(0.8 * SPEED);
    expect(status.workers.find((w) => w.name === "fast")?.gamesPerMinute).toBeGreaterThan(0.8 * SPEED);
    // The games left are the carrier iteration's: the ETA at the true speed, within 20 %.
    const truth = ((target - played) / SPEED) * 60;
    expect(status.games.etaSeconds).toBeGreaterThan(0.8 * truth);
    expect(status.games.etaSeconds).toBeLessThan(1.2 * truth);

    // Progress in batches and games; Elo per window of an iteration's games (8 batches), the latest first.
    const lines = renderStatus(status).split("\n");
    expect(lines[1]).toBe("master: none running");
    expect(lines[2]).toBe(
      `UCI-option run: ${rounds * SLOTS} batches applied, 0 in flight (${played}/${target} games played)`,
    );
    // A UCI-option run's one iteration is the run: one ETA.
    expect(lines[3]).toMatch(/^games 176 done, \d+\.\d\/min over the last \S+ \(\d+\.\d\/min overall\), run ETA \S+$/);
    expect(lines[4]).toBe("waiting: no master runs it: start spsa master to go on");
    // 56.25 % is +43.7 Elo.
    expect(lines[5]).toMatch(
      /^Elo per 64 games \(plus vs minus, 95 %\): batches 17–22 \+43\.7 ± \d+\.\d {2}batches 9–16 \+43\.7 ± \d+\.\d {2}batches 1–8 \+43\.7 ± \d+\.\d$/,
    );
    expect(status.eloWindows?.recent.map((w) => w.games)).toEqual([48, 64, 64]);

    // Between reports the rate holds still and the ETA counts down, where a rate to now would decay and the ETA grow.
    await sql`select pg_sleep(1.5)`;
    const later = await readRunStatus(sql, (await findRun(sql, "young"))!, { samples: 24 });
    expect(later.games.perMinute).toBeCloseTo(status.games.perMinute, 9);
    expect(later.games.etaSeconds!).toBeLessThan(status.games.etaSeconds!);
  });
});
