import type postgres from "postgres";
import { describe, expect, it } from "vitest";
import { optionRunOf } from "../../src/db/option-run.js";
import { findRun } from "../../src/db/run-status.js";
import { readRunDetail } from "../../src/dashboard/run-detail.js";
import { DEFAULT_GAIN_OPTIONS, readGain, type GainBlock } from "../../src/spsa/gain-so-far.js";
import { gainLine } from "../../src/spsa/gain-text.js";
import { scheduleStep } from "../../src/spsa/option-batches.js";
import type { RunStatus } from "../../src/status/snapshot.js";
import { spsa } from "../support/cli.js";
import { expectConsistentRun, perturbationsOf } from "../support/options-run.js";
import { expectExactCounts, iterationsOf, startMaster, startWorker, waitFor } from "../support/processes.js";
import { referenceGames } from "../support/reference-counts.js";
import { useRunFixture, type RunFixture } from "../support/run-fixture.js";

/**
 * 10 iterations of 16 games in batches of 8: the curvature pilot's 16, then at gain_share 0.5 one
 * block of 16 games of θ against θ₀ after every 16 of the tuner's: (160 − 16) / 32 = 4 blocks, the
 * tuner's 96 games planned as 6 iterations.
 */
const RUN = { iterations: 10, games: 16, batchSize: 8, moveLimit: "nodes = 300", mode: "options" } as const;

/** The run's played gain blocks as the rows hold them, read here (not through src/db/gain-blocks.ts). */
async function storedBlocks(sql: postgres.Sql, runName: string): Promise<GainBlock[]> {
  const rows = await sql<{ at: number; w: number; l: number; d: number }[]>`
    select b.games_before as at, b.ref_plus_wins + b.ref_minus_wins as w, b.ref_plus_losses + b.ref_minus_losses as l,
      b.ref_plus_draws + b.ref_minus_draws as d
    from spsa_perturbation p join spsa_batch b on b.id = p.batch_id join spsa_run r on r.id = p.run_id
    where r.name = ${runName} and p.gain and b.status = 'done' order by b.games_before`;
  return rows.map((r) => ({ at: r.at, result: { plusWins: r.w, minusWins: r.l, draws: r.d } }));
}

/**
 * A master and one worker play the run to its end; with `killAfterBlocks`, the first master is
 * killed (SIGKILL) once that many gain blocks are reported, and a second one resumes. The masters' log.
 */
async function playRun(fixture: RunFixture, runName: string, killAfterBlocks?: number): Promise<string> {
  const worker = startWorker(fixture.setup, fixture.env, `${runName}-w`, ["--seed", "w"]);
  let log = "";
  try {
    if (killAfterBlocks !== undefined) {
      const first = startMaster(fixture.setup, fixture.env, runName, ["--seed", "s"]);
      await waitFor(
        async () => (await storedBlocks(fixture.sql, runName)).length >= killAfterBlocks,
        180_000,
        `${killAfterBlocks} gain blocks reported`,
      );
      first.kill("SIGKILL");
      const killed = await first;
      expect(killed.signal, killed.all).toBe("SIGKILL");
      log += killed.all ?? "";
    }
    const master = await startMaster(fixture.setup, fixture.env, runName, ["--seed", "s"]);
    expect(master.exitCode, master.all).toBe(0);
    return log + (master.all ?? "");
  } finally {
    worker.kill("SIGTERM");
    await worker;
  }
}

describe("gain blocks in a UCI-option run on real engines", () => {
  // Any projection lies within ±10,000 Elo: the stop rule holds from the third block on, said once, and the run plays on.
  const fixture = useRunFixture({ ...RUN, spsaLines: "gain_share = 0.5\nstop_below = 10000" });

  it("plays θ against θ₀ where the plan puts the blocks, across a master's kill -9, moves θ no step with them, and spsa status reads the gain from them", async () => {
    const { sql, env, setup } = fixture;
    // The master killed once two blocks are in: the resumed one draws the rest where the plan puts them.
    const log = await playRun(fixture, "gain-uci", 2);
    expect(log).toContain("gain blocks: 4 of 16 games, θ against θ₀, one after every 16 of the tuner's games");
    expect(log).toContain("resumed run");
    const said = log.match(/nothing left to gain: .*/g) ?? [];
    expect(said, log).toHaveLength(1);
    expect(said[0]).toMatch(/below 10000\); playing on \(stop_early = false\)$/);

    // Every game counted once: the carrier's 160 are the applied batches', the pilot's and the blocks'.
    const rows = await iterationsOf(sql, "gain-uci");
    expectExactCounts(rows, expect);
    expect(rows.map((r) => [r.target_games, referenceGames(r)])).toEqual([[160, 16 + 64]]);
    const perturbations = await perturbationsOf(sql, "gain-uci");
    const blocks = perturbations.filter((p) => p.gain && p.status === "done");
    // Each after 16 more of the tuner's games (the pilot's 16 first), at the run's games given out then.
    expect(blocks.map((b) => [b.games, b.games_before])).toEqual([
      [16, 32],
      [16, 64],
      [16, 96],
      [16, 128],
    ]);
    const [run] = await sql<{ id: number; initial: Record<string, number> }[]>`
      select id, initial_parameters as initial from spsa_run where name = 'gain-uci'`;
    const optionRun = (await optionRunOf(sql, run!.id))!;
    for (const b of blocks) {
      // θ₀ is the opponent; never applied; drawn from θ as the applied batches had left it, in order.
      expect(b.reference_parameters).toEqual(optionRun.names.map((name) => run!.initial[name]));
      expect([b.report_order, b.a_k, b.c_k]).toEqual([null, 0, 0]);
    }
    expect(blocks.map((b) => b.drawn_from)).toEqual([...blocks.map((b) => b.drawn_from)].sort((x, y) => x! - y!));
    expect(blocks.at(-1)!.drawn_from).toBeGreaterThan(0);
    const applied = perturbations.filter((p) => p.report_order !== null);
    expect(applied.reduce((n, p) => n + p.games, 0)).toBe(160 - 16 - 64);
    // The tuner's schedule is its own games': planned for 96 of them, each draw placed by the tuner's games before it.
    expect(optionRun.gains.maxIterations).toBe(6);
    for (const p of applied) {
      expect(p.games_before).toBeLessThan(96);
      expect(p.k).toBe(scheduleStep(p.games_before, 16, 6));
    }
    // The chain of applied batches alone, replayed from θ₀, is the run's θ: the blocks moved it no step.
    await expectConsistentRun(sql, "gain-uci", "s");

    // spsa status: the gain read from the stored blocks at the run's 160 games of 160.
    const reading = readGain(await storedBlocks(sql, "gain-uci"), 160, 160, DEFAULT_GAIN_OPTIONS);
    expect(reading?.games).toBe(32);
    const json = JSON.parse(
      (await spsa(["status", "--name", "gain-uci", "--json"], { env, cwd: setup.dir })).stdout,
    ) as RunStatus;
    const finite = (x: number) => (Number.isFinite(x) ? x : null);
    expect(json.gain).toEqual({
      gain: { elo: reading!.gain.elo, low: finite(reading!.gain.low), high: finite(reading!.gain.high) },
      rest: null,
      games: 32,
      // At the budget nothing is left to project.
      stop: { below: 10000, early: false, nothingLeft: false },
    });
    const text = await spsa(["status", "--name", "gain-uci"], { env, cwd: setup.dir });
    expect(text.stdout).toContain(gainLine(reading!));
    // The dashboard's run page says it as the status does.
    const detail = await readRunDetail(sql, (await findRun(sql, "gain-uci"))!);
    expect(detail.gain).toEqual([gainLine(reading!)]);
    // The OpenBench export says it in its header comment.
    const exported = await spsa(["export", "--name", "gain-uci", "--format", "openbench"], { env, cwd: setup.dir });
    expect(exported.exitCode, exported.all).toBe(0);
    expect(exported.stdout.split("\n")[0]).toBe(`# ${gainLine(reading!)}`);
    const explained = await spsa(["status", "--name", "gain-uci", "--explain"], { env, cwd: setup.dir });
    expect(explained.stdout).toMatch(/\n {2}gained so far\n +the Elo of θ now against θ₀/);
  }, 400_000);
});

describe("the stop rule ending a UCI-option run early", () => {
  // Any projection lies within ±10,000 Elo: the rule holds as soon as the rest is projected (three blocks in the line).
  const fixture = useRunFixture({ ...RUN, spsaLines: "gain_share = 0.5\nstop_below = 10000\nstop_early = true" });

  it("says so in one line and ends the run with the games given out, each counted once", async () => {
    const { sql } = fixture;
    const log = await playRun(fixture, "stop-uci");
    const said = log.match(/nothing left to gain: .*/g) ?? [];
    expect(said, log).toHaveLength(1);
    expect(said[0]).toMatch(/below 10000\); stopping \(stop_early\)$/);
    const ended = /ended early at (\d+) of its 160 games/.exec(log);
    expect(ended, log).not.toBeNull();
    const rows = await iterationsOf(sql, "stop-uci");
    expectExactCounts(rows, expect);
    const target = Number(ended![1]);
    expect(rows.map((r) => r.target_games)).toEqual([target]);
    // The rest is projected from three blocks of the line's window: the third is in (drawn at 96), the run's end is not.
    expect(target).toBeGreaterThanOrEqual(112);
    expect(target).toBeLessThan(160);
    const blocks = await storedBlocks(sql, "stop-uci");
    expect(blocks.map((b) => b.at).slice(0, 3)).toEqual([32, 64, 96]);
    // The line said what the blocks read when it fired: a projection within ±10,000.
    expect(said[0]).toContain("nothing left to gain: the rest of the budget projected at ");
    const [run] = await sql<{ status: string }[]>`select status from spsa_run where name = 'stop-uci'`;
    expect(run?.status).toBe("complete");
    await expectConsistentRun(sql, "stop-uci", "s");
  }, 400_000);
});
