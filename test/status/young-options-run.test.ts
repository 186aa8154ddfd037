import { describe, expect, it } from "vitest";
import { findRun } from "../../src/db/run-status.js";
import { renderStatus } from "../../src/status/render.js";
import { readRunStatus } from "../../src/status/snapshot.js";
import { applyReports } from "../../src/uci-tune/apply-reports.js";
import { useMigratedDatabase } from "../support/database.js";
import { registerTestWorker } from "../support/iterations.js";
import { playOptionBatch, seedOptionRun } from "../support/options-run.js";

/** Two slots of a worker at -c 2, each a batch of 8 games every 5 s: 192 games a minute. */
const SLOTS = 2;
const BATCH_GAMES = 8;
const BATCH_SECONDS = 5;
const SPEED = (SLOTS * BATCH_GAMES * 60) / BATCH_SECONDS;
/** The run started this long ago; its batches end at 5 s, 10 s, …, 55 s. */
const AGE_SECONDS = 58;

describe("spsa status of a UCI-option run a minute old", () => {
  const database = useMigratedDatabase(2);

  it("a UCI-option run a minute old playing 192 games a minute is rated within 20 % of it, and its ETA too", async () => {
    const { sql } = database;
    const target = 4800;
    const { run, iteration } = await seedOptionRun(sql, "young", target, 64, BATCH_GAMES);
    await registerTestWorker(sql, "fast");
    // Real claims, draws, reports and folds; then their times set to those of the speed above.
    const [{ start } = { start: new Date() }] = await sql<{ start: Date }[]>`select now() - make_interval(secs => ${AGE_SECONDS}) as start`;
    const at = (seconds: number) => new Date(start.getTime() + seconds * 1000);
    const rounds = Math.floor(AGE_SECONDS / BATCH_SECONDS);
    for (let n = 0; n < rounds; n++) {
      for (let slot = 0; slot < SLOTS; slot++) {
        const batch = await playOptionBatch(sql, "fast", iteration.id, BATCH_GAMES, 1);
        await sql`update spsa_batch set claimed_at = ${at(n * BATCH_SECONDS)}, reported_at = ${at((n + 1) * BATCH_SECONDS)} where id = ${batch.batchId}`;
      }
    }
    await sql`update spsa_iteration set created_at = ${start} where id = ${iteration.id}`;
    expect(await applyReports(sql, run.id)).toBe(rounds * SLOTS);

    const record = await findRun(sql, "young");
    const status = await readRunStatus(sql, record!, { samples: 24 });
    const played = rounds * SLOTS * BATCH_GAMES;
    expect(status.games.total).toBe(played);
    // Not the games of a minute spread over the ten-minute window: the minute the run has lasted.
    expect(status.games.rateSeconds).toBeGreaterThanOrEqual(AGE_SECONDS);
    expect(status.games.rateSeconds).toBeLessThan(AGE_SECONDS + 30);
    expect(status.games.perMinute).toBeGreaterThan(0.8 * SPEED);
    expect(status.games.perMinute).toBeLessThan(1.2 * SPEED);
    expect(status.games.overallPerMinute).toBeGreaterThan(0.8 * SPEED);
    expect(status.workers.find((w) => w.name === "fast")?.gamesPerMinute).toBeGreaterThan(0.8 * SPEED);
    // The games left are the carrier iteration's: the ETA at the true speed, within 20 %.
    const truth = ((target - played) / SPEED) * 60;
    expect(status.games.etaSeconds).toBeGreaterThan(0.8 * truth);
    expect(status.games.etaSeconds).toBeLessThan(1.2 * truth);

    // Progress in batches and games; Elo per window of an iteration's games (8 batches), the latest first.
    const lines = renderStatus(status).split("\n");
    expect(lines[1]).toBe(`UCI-option run: ${rounds * SLOTS} batches applied, 0 in flight (${played}/${target} games played)`);
    expect(lines[2]).toMatch(/^games 176 done, \d+\.\d\/min over the last \S+ \(\d+\.\d\/min overall\), ETA \S+$/);
    // Every batch: one pair won and drawn, three drawn; 56.25 % is +43.7 Elo.
    expect(lines[3]).toMatch(/^Elo per 64 games \(plus vs minus, 95 %\): batches 17–22 \+43\.7 ± \d+\.\d {2}batches 9–16 \+43\.7 ± \d+\.\d {2}batches 1–8 \+43\.7 ± \d+\.\d$/);
    expect(status.eloWindows?.recent.map((w) => w.games)).toEqual([48, 64, 64]);
  });
});
