import { readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { spsaMathConfig } from "../../src/config/config.js";
import { loadParams } from "../../src/params/params.js";
import { recordedParams } from "../../src/config/iteration-settings.js";
import { gains, update } from "../../src/spsa/math.js";
import { previousMove, tailAverage } from "../../src/spsa/trajectory.js";
import { startMaster, startWorker } from "../support/processes.js";
import { recordedIterations } from "../support/iterations.js";
import { useRunFixture } from "../support/run-fixture.js";

describe("the master with the self-correcting schedule, momentum and tail averaging", () => {
  // Games at a node limit from a seeded worker: the same results every time, so the check
  // below that θ moved (an even score moves nothing) cannot fail by chance.
  const fixture = useRunFixture({ iterations: 4, games: 8, batchSize: 2, moveLimit: "nodes = 1000" });

  it("plays and updates from the recorded trajectory across a kill, and writes the averaged θ to params.toml", async () => {
    const { setup, env, sql } = fixture;
    writeFileSync(
      setup.configFile,
      readFileSync(setup.configFile, "utf8").replace(
        "max_iterations = 4",
        'max_iterations = 4\nschedule = "self-correcting"\nmomentum = 0.5\naverage_tail = 0.5\nr_end = 0.02',
      ),
    );
    const workers = [startWorker(setup, env, "a", ["--seed", "w"])];
    let finished;
    try {
      const crashed = await startMaster(setup, { ...env, SPSA_CRASH_AT: "waiting" }, "variants", ["--seed", "v"]);
      expect(crashed.signal, crashed.all).toBe("SIGKILL");
      finished = await startMaster(setup, env, "variants", ["--seed", "v"]);
      expect(finished.exitCode, finished.all).toBe(0);
    } finally {
      for (const worker of workers) worker.kill("SIGTERM");
      await Promise.all(workers);
    }

    const rows = await recordedIterations(sql, "variants");
    const [run] = await sql<
      { current_parameters: Record<string, number> }[]
    >`select current_parameters from spsa_run where name = 'variants'`;
    if (!run) throw new Error("no run");
    expect(rows.map((r) => r.iteration_number)).toEqual([1, 2, 3, 4]);
    const bases = rows.map((r) => r.base_parameters);
    const after = [...bases.slice(1), run.current_parameters];
    // Momentum is exercised only if some iteration before the last moved θ (an even score moves nothing).
    expect(
      bases.slice(1).some((theta, i) => Object.entries(theta).some(([name, value]) => value !== bases[i]?.[name])),
      "no iteration moved θ",
    ).toBe(true);
    for (const [i, row] of rows.entries()) {
      const k = row.iteration_number;
      const params = recordedParams(row.settings, row.base_parameters);
      // a_k is the self-correcting schedule's over θ of iterations 1..k (iteration 3's a_k is corrected after a block of 1).
      const expected = gains(spsaMathConfig(row.settings.spsa, row.target_games), k, {
        params,
        trajectory: bases.slice(0, k),
      });
      expect(row.a_k, `a_k of iteration ${k}`).toBeCloseTo(expected.ak, 12);
      // The update adds half the previous move, which the master took from the recorded rows.
      const replayed = update(
        params,
        {
          ak: row.a_k,
          plus: row.plus_parameters,
          minus: row.minus_parameters,
          ...(row.settings.stepScale && { scale: row.settings.stepScale }),
        },
        { plusWins: row.plus_wins, minusWins: row.minus_wins, draws: row.draws },
        row.settings.spsa,
        previousMove(bases, k),
      );
      for (const [name, value] of Object.entries(replayed.newValues))
        expect(after[i]?.[name], `${name} after iteration ${k}`).toBeCloseTo(value, 12);
    }
    // params.toml holds the mean of θ after iterations 3 and 4 (⌈0.5 · 4⌉ = 2); the run keeps its last θ.
    const averaged = tailAverage(after, 0.5);
    for (const p of loadParams(setup.paramsFile))
      expect(p.value, p.name).toBeCloseTo(averaged[p.name] ?? Number.NaN, 9);
    expect(finished.all).toContain("θ averaged over the last 2 of 4 iterations ([spsa] average_tail 0.5)");
    // Eight engine builds and two master starts: slower than most on a busy machine.
  }, 300_000);
});
