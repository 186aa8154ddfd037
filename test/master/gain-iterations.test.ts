import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readRunDetail } from "../../src/dashboard/run-detail.js";
import { findRun } from "../../src/db/run-status.js";
import { recordedParams } from "../../src/config/iteration-settings.js";
import { DEFAULT_GAIN_OPTIONS, readGain, type GainBlock } from "../../src/spsa/gain-so-far.js";
import { gainLine } from "../../src/spsa/gain-text.js";
import { builtValue } from "../../src/spsa/math.js";
import type { RunStatus } from "../../src/status/snapshot.js";
import type { Values } from "../../src/types/spsa.js";
import { spsa } from "../support/cli.js";
import { expectExactCounts, iterationsOf, startMaster, startWorker, waitFor } from "../support/processes.js";
import { useRunFixture } from "../support/run-fixture.js";
import { recordedStep, type RecordedIteration } from "../support/replay-chain.js";

/**
 * 5 iterations of 16 games (80), batches of 4: the curvature pilot's 16, then at gain_share 0.5 a
 * gain iteration of 16 games of θ against θ₀ after every 16 of the tuner's: (80 − 16) / 32 = 2 of
 * them, the tuner's 48 games planned as 3 iterations; iterations 1 (pilot), 2, 3 (gain), 4, 5 (gain).
 */
const RUN = { iterations: 5, games: 16, batchSize: 4, moveLimit: "nodes = 300" } as const;

interface Row extends RecordedIteration {
  iteration_number: number;
  status: string;
  c_k: number;
  base_parameters: Values;
  plus_engine_sha256: string;
  minus_engine_sha256: string;
  reference_engine_sha256: string | null;
  theta_after: Values;
  target_games: number;
}

describe("gain iterations in a build-mode run on real engines", () => {
  // Any projection lies within ±10,000 Elo: the stop rule's line is said once the rest is projected.
  const fixture = useRunFixture({ ...RUN, spsaLines: "gain_share = 0.5\nstop_below = 10000" });

  it("plays θ (one build) against θ₀ where the plan puts them, across a master's kill -9 mid-gain-iteration, moves θ no step, and spsa status reads the gain from them", async () => {
    const { sql, env, setup } = fixture;
    const worker = startWorker(setup, env, "gain-w", ["--seed", "w"]);
    let log = "";
    try {
      // Killed once the first gain iteration is open, before its games are all in.
      const first = startMaster(setup, env, "gain-build", ["--seed", "s"]);
      await waitFor(
        async () =>
          (
            await sql<{ n: number }[]>`
              select count(*)::int as n from spsa_iteration i join spsa_run r on r.id = i.run_id
              where r.name = 'gain-build' and i.settings->>'gain' = 'true' and i.status <> 'complete'`
          )[0]!.n > 0,
        120_000,
        "the first gain iteration open",
      );
      first.kill("SIGKILL");
      const killed = await first;
      expect(killed.signal, killed.all).toBe("SIGKILL");
      log += killed.all ?? "";
      const second = await startMaster(setup, env, "gain-build", ["--seed", "s"]);
      expect(second.exitCode, second.all).toBe(0);
      log += second.all ?? "";
    } finally {
      worker.kill("SIGTERM");
      await worker;
    }
    expect(log).toContain("gain iterations: 2 of 16 games, θ against θ₀ (3, 5, …), of 5");
    expect(log).toContain("resumed");
    expect(log).toMatch(/iteration 3 \(gain\): θ \+\d+ -\d+ =\d+ vs θ₀, Elo of θ over θ₀ -?\d+\.\d \(no step\)/);

    // Every game counted once.
    const checks = await iterationsOf(sql, "gain-build");
    expectExactCounts(checks, expect);
    const [run] = await sql<{ id: number; initial: Values; current: Values }[]>`
      select id, initial_parameters as initial, current_parameters as current from spsa_run where name = 'gain-build'`;
    const rows = await sql<Row[]>`
      select iteration_number, status, a_k, c_k, base_parameters, plus_parameters, minus_parameters, plus_engine_sha256,
        minus_engine_sha256, reference_engine_sha256, settings, plus_wins, minus_wins, draws, theta_after, target_games,
        case when reference_engine_sha256 is null then null else array[ref_plus_wins, ref_plus_losses, ref_plus_draws, ref_minus_wins, ref_minus_losses, ref_minus_draws] end as ref
      from spsa_iteration where run_id = ${run!.id} order by iteration_number`;
    // Where the plan puts them: after the pilot's 16 and every 16 of the tuner's games.
    expect(rows.map((r) => [r.iteration_number, r.settings.gain ?? false, r.target_games])).toEqual([
      [1, false, 16],
      [2, false, 16],
      [3, true, 16],
      [4, false, 16],
      [5, true, 16],
    ]);
    const pilot = rows[0]!;
    let chained = run!.initial;
    // θ after each iteration in order, from θ₀: an iteration opened in flight was drawn `staleness` steps behind.
    const after: Values[] = [run!.initial];
    for (const row of rows) {
      const start = { ...row.base_parameters, ...chained };
      if (row.settings.gain) {
        // θ on both sides, one binary, against the pilot's θ₀; θ after it is θ before it: no step.
        const built = Object.fromEntries(
          recordedParams(row.settings, row.base_parameters).map((p) => [p.name, builtValue(p)]),
        );
        expect(row.plus_parameters).toEqual(built);
        expect(row.minus_parameters).toEqual(built);
        expect(row.plus_engine_sha256).toBe(row.minus_engine_sha256);
        expect(row.reference_engine_sha256).toBe(pilot.reference_engine_sha256);
        expect([row.a_k, row.c_k]).toEqual([0, 0]);
        expect(row.base_parameters).toEqual(after[row.iteration_number - 1 - (row.settings.staleness ?? 0)]);
        expect(row.theta_after).toEqual(start);
        after.push(chained);
        continue;
      }
      // The other iterations' steps replay from their rows, as the bad-worker test's build mode does.
      chained = { ...start, ...recordedStep(row, start) };
      expect(row.theta_after, `iteration ${row.iteration_number}`).toEqual(chained);
      after.push(chained);
    }
    expect(run!.current).toEqual(chained);

    // spsa status --json: the gain read by readGain from the stored gain iterations at the run's 80 games of 80.
    const blocks: GainBlock[] = rows
      .filter((r) => r.settings.gain)
      .map((r) => ({
        at: rows.filter((e) => e.iteration_number < r.iteration_number).reduce((n, e) => n + e.target_games, 0),
        result: {
          plusWins: r.ref![0]! + r.ref![3]!,
          minusWins: r.ref![1]! + r.ref![4]!,
          draws: r.ref![2]! + r.ref![5]!,
        },
      }));
    expect(blocks.map((b) => b.at)).toEqual([32, 64]);
    const reading = readGain(blocks, 80, 80, DEFAULT_GAIN_OPTIONS);
    expect(reading?.games).toBeGreaterThan(0);
    const json = JSON.parse(
      (await spsa(["status", "--name", "gain-build", "--json"], { env, cwd: setup.dir })).stdout,
    ) as RunStatus;
    const finite = (x: number) => (Number.isFinite(x) ? x : null);
    expect(json.gain).toEqual({
      gain: { elo: reading!.gain.elo, low: finite(reading!.gain.low), high: finite(reading!.gain.high) },
      rest: null,
      games: reading!.games,
      stop: { below: 10000, early: false, nothingLeft: false },
    });
    expect(json.iteration.max).toBe(5);
    // Gain iterations are not the curvature pilot's, nor in the plus-vs-minus Elo.
    expect(json.pilot.map((it) => it.iteration)).toEqual([1]);
    const text = await spsa(["status", "--name", "gain-build"], { env, cwd: setup.dir });
    expect(text.stdout).toContain(gainLine(reading!));
    // The dashboard's run page says it as the status does.
    const detail = await readRunDetail(sql, (await findRun(sql, "gain-build"))!);
    expect(detail.gain).toEqual([gainLine(reading!)]);
    // Its chart: the gain read at each gain iteration's end, the last one the status's reading.
    expect(detail.gainSeries).toHaveLength(2);
    expect(detail.gainSeries.at(-1)?.elo).toBe(reading!.gain.elo);
    const exported = await spsa(["export", "--name", "gain-build", "--format", "openbench"], { env, cwd: setup.dir });
    expect(exported.exitCode, exported.all).toBe(0);
    expect(exported.stdout.split("\n")[0]).toBe(`# ${gainLine(reading!)}`);
  }, 300_000);
});

describe("the stop rule ending a build-mode run early", () => {
  // 10 iterations of 16 games: gain iterations 3, 5, 7 and 9. Any projection lies within ±10,000 Elo:
  // the rule holds once three of them are in and the budget is not spent: after iteration 7's step,
  // when (one iteration in flight at most) iteration 8 is the last opened.
  const fixture = useRunFixture({
    ...RUN,
    iterations: 10,
    spsaLines: "gain_share = 0.5\nstop_below = 10000\nstop_early = true\nmax_staleness = 1",
  });

  it("says so in one line and ends the run after the iterations opened, each game counted once", async () => {
    const { sql, env, setup } = fixture;
    const worker = startWorker(setup, env, "stop-w", ["--seed", "w"]);
    let log: string;
    try {
      const master = await startMaster(setup, env, "stop-build", ["--seed", "s"]);
      expect(master.exitCode, master.all).toBe(0);
      log = master.all ?? "";
    } finally {
      worker.kill("SIGTERM");
      await worker;
    }
    const said = log.match(/nothing left to gain: .*/g) ?? [];
    expect(said, log).toHaveLength(1);
    expect(said[0]).toMatch(/below 10000\); stopping \(stop_early\)$/);
    const ended = /ended early at (\d+) of its 160 games/.exec(log);
    expect(ended, log).not.toBeNull();
    const checks = await iterationsOf(sql, "stop-build");
    expectExactCounts(checks, expect);
    // The iterations opened when it fired, and no other.
    expect(checks.map((r) => r.iteration_number)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(Number(ended![1])).toBe(128);
    const [run] = await sql<{ status: string; ended: number }[]>`
      select status, ended_early_at as ended from spsa_run where name = 'stop-build'`;
    expect(run).toEqual({ status: "complete", ended: 8 });
  }, 300_000);

  it("keeps the early end across a master's kill -9, even when the master that resumes would not end it", async () => {
    const { sql, env, setup } = fixture;
    const worker = startWorker(setup, env, "restart-w", ["--seed", "w"]);
    const iteration7 = async () =>
      (
        await sql<{ in: boolean }[]>`
          select i.games_played = i.target_games as in from spsa_iteration i join spsa_run r on r.id = i.run_id
          where r.name = 'stop-restart' and i.iteration_number = 7`
      )[0]?.in ?? false;
    const endedAt = async () =>
      (
        await sql<{ ended: number | null }[]>`select ended_early_at as ended from spsa_run where name = 'stop-restart'`
      )[0]?.ended ?? null;
    let log = "";
    try {
      const first = startMaster(setup, env, "stop-restart", ["--seed", "s"]);
      // The worker stops once iteration 7's games are in, so iteration 8 is still playing when the
      // master decides, and when it is killed.
      await waitFor(iteration7, 240_000, "iteration 7's games in");
      worker.kill("SIGSTOP");
      await waitFor(async () => (await endedAt()) !== null, 60_000, "the early end recorded");
      first.kill("SIGKILL");
      log += (await first).all ?? "";
      expect(await endedAt()).toBe(8);
      // Resumed with a stop rule that never holds: without the recorded end it would play 9 and 10.
      const never = join(setup.dir, "never-stops.toml");
      writeFileSync(
        never,
        readFileSync(setup.configFile, "utf8").replace("stop_below = 10000", "stop_below = 0.000001"),
      );
      const second = startMaster({ ...setup, configFile: never }, env, "stop-restart", ["--seed", "s"]);
      worker.kill("SIGCONT");
      const resumed = await second;
      expect(resumed.exitCode, resumed.all).toBe(0);
      log += resumed.all ?? "";
    } finally {
      worker.kill("SIGCONT");
      worker.kill("SIGTERM");
      await worker;
    }
    expect(log).toContain('run "stop-restart": ended early by the stop rule at iteration 8: no later iteration opens');
    const checks = await iterationsOf(sql, "stop-restart");
    expectExactCounts(checks, expect);
    expect(checks.map((r) => r.iteration_number)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    const [run] = await sql<{ status: string }[]>`select status from spsa_run where name = 'stop-restart'`;
    expect(run?.status).toBe("complete");
  }, 420_000);
});
