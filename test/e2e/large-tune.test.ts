import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { loadParams } from "../../src/params/params.js";
import type { RunStatus } from "../../src/status/snapshot.js";
import { readRunDetail, readRunUpdate } from "../../src/dashboard/run-detail.js";
import { findRun } from "../../src/db/run-status.js";
import { spsa } from "../support/cli.js";
import { TEST_HOME } from "../support/database.js";
import { buildExtraOptionsEngine, EXTRA_OPTION, extraOptionParams } from "../support/extra-options-engine.js";
import { expectConsistentRun, OPTION_PARAMS, perturbationsOf } from "../support/options-run.js";
import { expectExactCounts, iterationsOf, startMaster, startWorker } from "../support/processes.js";
import { useRunFixture } from "../support/run-fixture.js";

/** Extra options of minnow (the search never reads them), thousands of them. */
const EXTRA = 3000;
/** Parameters of the run: the extra options, and four that change minnow's play (so that θ moves: at a node limit two equal engines split every pair). */
const COUNT = EXTRA + 4;
/** 64 games in batches of 4: 16 batches, θ stored after the 12th (every ⌈3004 · 8 / 2048⌉). */
const GAMES = 64;
const BATCH = 4;

describe(`a UCI-option run of ${COUNT} parameters, end to end`, () => {
  // No curvature pilot: every game is in the applied chain whose rows this test sizes (test/master/options-pilot.test.ts has the pilot).
  const fixture = useRunFixture({
    mode: "options",
    iterations: GAMES / 16,
    games: 16,
    batchSize: BATCH,
    moveLimit: "nodes = 300",
    spsaLines: "adapt_pilot = 0",
  });
  beforeAll(async () => {
    const engine = await buildExtraOptionsEngine(join(TEST_HOME, "extra-options-engines"), EXTRA);
    writeFileSync(fixture.setup.paramsFile, `${OPTION_PARAMS}\n${extraOptionParams(EXTRA)}`);
    const config = readFileSync(fixture.setup.configFile, "utf8").replace(
      'mode = "options"',
      `mode = "options"\nbinary = "${engine.binary}"`,
    );
    writeFileSync(fixture.setup.configFile, config);
  }, 300_000);

  it("plays every game once, applies every batch once, keeps rows of a few hundred bytes, and θ replays from them to the run's", async () => {
    const { setup, env, sql } = fixture;
    const workers = [startWorker(setup, env, "big-1"), startWorker(setup, env, "big-2")];
    const master = await startMaster(setup, env, "big", ["--seed", "b"]);
    for (const worker of workers) worker.kill("SIGTERM");
    const workerOutput = (await Promise.all(workers)).map((w) => w.all).join("\n");
    expect(master.exitCode, `${master.all}\n${workerOutput}`).toBe(0);

    expectExactCounts(await iterationsOf(sql, "big"), expect);
    const rows = await perturbationsOf(sql, "big");
    const applied = rows.filter((r) => r.report_order !== null);
    expect(applied.reduce((n, r) => n + r.games, 0)).toBe(GAMES);
    expect(applied).toHaveLength(GAMES / BATCH);
    const [optionRun] = await sql<
      { names: string[]; every: number }[]
    >`select parameter_names as names, theta_every as every from spsa_option_run`;
    expect(optionRun?.names).toEqual([
      "LMR_BASE",
      "LMR_MIN_DEPTH",
      "KNIGHT_VALUE_MG",
      "ALPHA_PRUNE_MARGINS_1",
      ...Array.from({ length: EXTRA }, (_, i) => `${EXTRA_OPTION}_${i}`),
    ]);
    expect(optionRun?.every).toBe(12);
    // Each applied row: its signs, one bit per parameter, and a few numbers; θ in one of them, the 12th.
    const sizes = await sql<{ applied: number; bytes: number; stored: boolean }[]>`
      select applied_number as applied, pg_column_size(p.*) as bytes, theta_after is not null as stored
      from spsa_perturbation p where applied_number is not null order by applied_number`;
    expect(sizes.filter((s) => s.stored).map((s) => s.applied)).toEqual([12]);
    for (const size of sizes.filter((s) => !s.stored))
      expect(size.bytes, `row of batch ${size.applied}`).toBeLessThan(COUNT / 8 + 400);

    // Drawn again from the stored rows, step by step, the chain gives the run's θ and params.toml's.
    const final = await expectConsistentRun(sql, "big", "b");
    const written = Object.fromEntries(loadParams(setup.paramsFile).map((p) => [p.name, p.value]));
    expect(written).toEqual(final);
    expect(Object.values(final).filter((value) => value !== 0).length).toBeGreaterThan(COUNT / 2);
  }, 600_000);

  it("spsa status fits a screen (the most moved, how many moved, a histogram), every parameter with --all", async () => {
    const { setup, env } = fixture;
    const text = await spsa(["--config", setup.configFile, "status", "--name", "big"], { env });
    expect(text.exitCode, text.all).toBe(0);
    const lines = text.stdout.split("\n");
    expect(lines).toContainEqual(
      expect.stringMatching(new RegExp(`^${COUNT} parameters, \\d+ moved from their start; moves in steps:$`)),
    );
    expect(lines).toContain("the 20 that moved most (spsa status --all lists every one):");
    expect(lines.filter((line) => /^[A-Z_0-9]+ +-?[\d.]+ {2}→ /.test(line))).toHaveLength(20);
    expect(lines.length).toBeLessThan(60);
    const json = JSON.parse(
      (await spsa(["--config", setup.configFile, "status", "--name", "big", "--json"], { env })).stdout,
    ) as RunStatus;
    expect(json.parameterSummary).toMatchObject({ count: COUNT, frozen: 0, listed: "most moved" });
    expect(json.parameterSummary.histogram.reduce((n, bin) => n + bin.count, 0)).toBe(COUNT);
    const moves = json.parameters.map((p) => Math.abs(p.steps ?? 0));
    expect(moves).toEqual([...moves].sort((a, b) => b - a));
    const all = JSON.parse(
      (await spsa(["--config", setup.configFile, "status", "--name", "big", "--json", "--all"], { env })).stdout,
    ) as RunStatus;
    expect(all.parameters).toHaveLength(COUNT);
    expect(all.parameterSummary.listed).toBe("all");
    // The sparkline's points: the start, the one stored θ, and θ now.
    expect(all.parameters[0]?.history.map((h) => h.iteration)).toEqual([0, 12, GAMES / BATCH]);
  }, 120_000);

  it("the dashboard's run page loads a page of charts with an index of every parameter, and a refresh carries the charts' new points only", async () => {
    const run = (await findRun(fixture.sql, "big"))!;
    const detail = await readRunDetail(fixture.sql, run);
    expect(detail.status.parameters).toHaveLength(24);
    expect(detail.parameterIndex?.names).toHaveLength(COUNT);
    expect(detail.cursor).toBe(GAMES / BATCH);
    const charts = detail.status.parameters
      .slice(0, 3)
      .map((p) => p.name)
      .sort();
    const nothingNew = await readRunUpdate(fixture.sql, run, detail.cursor, charts);
    expect(nothingNew.status.parameters.map((p) => [p.name, p.history])).toEqual(charts.map((name) => [name, []]));
    const since = await readRunUpdate(fixture.sql, run, 12, charts);
    expect(since.status.parameters.map((p) => [p.name, p.history.map((h) => h.iteration)])).toEqual(
      charts.map((name) => [name, [GAMES / BATCH]]),
    );
    expect(JSON.stringify(since).length).toBeLessThan(JSON.stringify(detail).length / 10);
  }, 120_000);
});
