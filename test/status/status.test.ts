import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/config.js";
import { loadParams } from "../../src/params/params.js";
import { claimBatch, reportBatch } from "../../src/db/batches.js";
import { foldIteration } from "../../src/db/fold.js";
import { applyMigrations, connect } from "../../src/postgres/connection.js";
import { recordConcurrency, recordSpeed } from "../../src/db/workers.js";
import { writeSyntheticRun } from "../support/synthetic-run.js";
import type { RunStatus } from "../../src/status/snapshot.js";
import { spsa } from "../support/cli.js";
import { freshDatabase } from "../support/database.js";
import { noFaults, type FaultCounts } from "../../src/types/faults.js";
import type { Pentanomial } from "../../src/types/play.js";

const oneMinusCrash = (): [FaultCounts, FaultCounts] => [noFaults(), { ...noFaults(), crash: 1 }];

describe("spsa status", () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let sql: postgres.Sql;
  let env: Record<string, string>;
  const params = loadParams("params.toml");

  beforeAll(async () => {
    database = await freshDatabase();
    await applyMigrations(database.url);
    sql = connect(database.url, 2);
    env = { DATABASE_URL: database.url };
    const config = loadConfig("config.toml");
    // An older run, so that the default (no --name) has to choose.
    await writeSyntheticRun(sql, {
      name: "older",
      config,
      params,
      iterations: 3,
      workerName: "w0",
      endedAt: new Date(Date.now() - 86_400_000),
    });
    const { open } = await writeSyntheticRun(sql, {
      name: "synthetic",
      config,
      params,
      iterations: 30,
      open: true,
      workerName: "w1",
    });
    const batch = await claimBatch(sql, "w1", 8);
    expect(batch?.iterationId).toBe(open?.id);
    const [plus, minus] = oneMinusCrash();
    // Besides its crash, plus lost 1 game and minus 2 to delays outside the engines; 5 games were replayed.
    const faults: [FaultCounts, FaultCounts] = [
      { ...plus, delay: 1 },
      { ...minus, delay: 2 },
    ];
    const report = {
      batchId: batch!.batchId,
      workerName: "w1",
      wins: 3,
      losses: 2,
      draws: 3,
      pairs: [0, 1, 1, 2, 0] as Pentanomial,
      faults,
      replays: 5,
      replayLimitPairs: 1,
    };
    expect(await reportBatch(sql, report)).toBe("accepted");
    // What the run's master does on its next poll: status reads the folded counters.
    await foldIteration(sql, batch!.iterationId);
    await recordConcurrency(
      sql,
      { name: "w1", sessionId: "w1" },
      1,
      "lowered from 2 to 1: 5 of 40 games hit by delays outside the engines",
    );
    // w1 measured its engine under reference_nps; w0 never did.
    await recordSpeed(sql, { name: "w1", sessionId: "w1" }, 654_321.5, 1.52832);
  });
  afterAll(async () => {
    await sql.end();
    await database.drop();
  });

  it("--json: iteration, games, faults, delays outside the engines, workers and every parameter with its sampled history", async () => {
    const result = await spsa(["status", "--json"], { env });
    expect(result.exitCode, result.all).toBe(0);
    const status = JSON.parse(result.stdout) as RunStatus;
    expect(status.run).toMatchObject({ name: "synthetic", status: "active" });
    expect(status.iteration).toEqual({
      latest: 31,
      completed: 30,
      // max_iterations 100 of 64 games at the default gain_share: 90 of the tuner's and 39 gain iterations.
      max: 129,
      latestStatus: "in_progress",
      current: 31,
      ahead: 0,
      gamesPlayed: 8,
      targetGames: 64,
    });
    expect(status.games.total).toBe(30 * 64 + 8);
    // The synthetic iterations end a minute apart up to now: the last ten minutes hold ten of them.
    expect(status.games.perMinute).toBeGreaterThan(0);
    expect(status.games.etaSeconds).toBeGreaterThan(0);
    expect(status.faults).toBe(1);
    expect(status.faultKinds).toEqual({ crashes: 1, timeLosses: 0, illegalMoves: 0 });
    expect(status.recent.map((it) => it.iteration)).toEqual([31, 30, 29, 28, 27, 26, 25, 24]);
    // w0 played only the older run.
    expect(status.workers.map((w) => w.name)).toEqual(["w1"]);
    expect(status.delays).toEqual({ losses: 3, replays: 5, replayLimitPairs: 1 });
    expect(status.recent[0]).toMatchObject({
      iteration: 31,
      faults: 1,
      delayLosses: 3,
      replays: 5,
      replayLimitPairs: 1,
    });
    expect(status.recent[1]).toMatchObject({ delayLosses: 0, replays: 0 });
    expect(status.workers[0]).toMatchObject({
      host: "synthetic",
      concurrency: 1,
      concurrencyNote: "lowered from 2 to 1: 5 of 40 games hit by delays outside the engines",
      delayLosses: 3,
      replays: 5,
      measuredNps: 654_321.5,
      timeFactor: 1.52832,
    });
    expect(status.workers[0]!.games).toBe(30 * 64 + 8);

    const [run] = await sql<
      { current: Record<string, number> }[]
    >`select current_parameters as current from spsa_run where name = 'synthetic'`;
    const bases = await sql<{ k: number; base: Record<string, number> }[]>`
      select iteration_number as k, base_parameters as base from spsa_iteration i join spsa_run r on r.id = i.run_id where r.name = 'synthetic'`;
    const thetaAfter = (x: number) => (x === 30 ? run!.current : bases.find((b) => b.k === x + 1)!.base);
    expect(status.parameters.map((p) => p.name)).toEqual(params.map((p) => p.name).sort());
    for (const p of params) {
      const shown = status.parameters.find((s) => s.name === p.name)!;
      const now = run!.current[p.name]!;
      expect(shown).toMatchObject({ start: p.value, now, min: p.min, max: p.max, step: p.step, type: p.type });
      expect(shown.steps).toBeCloseTo((now - p.value) / p.step, 12);
      expect(shown.built).toBe(p.type === "int" ? Math.round(now) : now);
      // 31 points (θ after 0 … 30 iterations) sampled down to 24, both ends kept.
      expect(shown.history).toHaveLength(24);
      expect(shown.history[0]).toEqual({ iteration: 0, value: p.value });
      expect(shown.history.at(-1)).toEqual({ iteration: 30, value: now });
      for (const point of shown.history)
        expect(point.value, `${p.name} after ${point.iteration}`).toBe(thetaAfter(point.iteration)[p.name]);
    }
  });

  it("text: one screen with the run, the workers and a sparkline per parameter", async () => {
    // The master that has its lease (src/master/run-lease.ts), as one on host "box" records itself.
    await sql`update spsa_run set master_session = 's', master_host = 'box', master_pid = 4242, master_since = now() - interval '1 hour',
      master_seen_at = now(), master_expires_at = now() + interval '30 seconds' where name = 'synthetic'`;
    const result = await spsa(["status", "--name", "synthetic"], { env });
    await sql`update spsa_run set master_session = null, master_host = null, master_pid = null, master_since = null, master_seen_at = null, master_expires_at = null where name = 'synthetic'`;
    expect(result.exitCode, result.all).toBe(0);
    const lines = result.stdout.split("\n");
    expect(lines[0]).toMatch(/^run synthetic \(active, seed [0-9a-f]+, started \d{4}-\d\d-\d\d \d\d:\d\d\)$/);
    expect(lines[1]).toMatch(/^master: pid 4242 on box since \d{4}-\d\d-\d\d \d\d:\d\d \(seen \d+s ago\)$/);
    expect(lines[2]).toBe("iteration 31 of 129 (30 complete, 8/64 games played)");
    expect(lines[3]).toMatch(
      /^games 1928 done, \d+\.\d\/min over the last \S+ \(\d+\.\d\/min overall\), run ETA \S+, iteration ETA \S+$/,
    );
    expect(lines[4]).toMatch(
      /^Elo of the last iterations \(plus vs minus\): (#\d+ [+-]\d+\.\d {2}){6}#24 [+-]\d+\.\d$/,
    );
    expect(lines[5]).toBe("faults: 1 crash by the engines (latest in iteration 31)");
    expect(lines[6]).toBe(
      "delays outside the engines: 3 time losses scored, 5 games replayed, 1 pair out of replays (latest in iteration 31)",
    );
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^w1 +synthetic +1 +1928 +\d+\/\d+\/\d+ +1 +3 +5 +654322 +1\.528 +\d+\.\d +\S+ ago +- +- +0 +too few games shared with the pool to judge$/,
      ),
    );
    expect(result.stdout).not.toMatch(/^w0 /m);
    expect(lines).toContain("w1: concurrency lowered from 2 to 1: 5 of 40 games hit by delays outside the engines");
    const row = lines.find((line) => line.startsWith("LMR_BASE "));
    expect(row).toMatch(/^LMR_BASE +0\.75 {2}→ +[\d.]+ +[+-]\d+\.\d\d +\[0, 2\] +0\.1 +[▁▂▃▄▅▆▇█]{24}$/);
    expect(lines.filter((line) => /[▁▂▃▄▅▆▇█]{24}$/.test(line))).toHaveLength(params.length);
  });

  it("an unknown run name is bad input, with the nearest name suggested", async () => {
    const result = await spsa(["status", "--name", "synthetc"], { env });
    expect(result.exitCode).toBe(2);
    expect(result.stderr.trim()).toBe(
      'error: --name: no run named "synthetc" (did you mean `synthetic`?) (runs: synthetic, older)',
    );
  });
});

describe("spsa status on an empty database", () => {
  it("says there is no run and how to start one", async () => {
    const database = await freshDatabase();
    try {
      const result = await spsa(["status"], { env: { DATABASE_URL: database.url } });
      expect(result.exitCode).toBe(1);
      expect(result.stderr.trim()).toBe(
        "error: no tuning run in the database: start one with spsa master or spsa demo",
      );
    } finally {
      await database.drop();
    }
  });
});
