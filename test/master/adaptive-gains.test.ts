import { readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { recordedParams } from "../../src/config/iteration-settings.js";
import { stepScales } from "../../src/spsa/adaptive.js";
import { update } from "../../src/spsa/math.js";
import { startMaster, startWorker } from "../support/processes.js";
import { recordedIterations } from "../support/iterations.js";
import { replayChain } from "../support/replay-chain.js";
import { useRunFixture } from "../support/run-fixture.js";

describe("the master with adaptive gains", () => {
  // Games at a node limit from a seeded worker: the same results every time.
  const fixture = useRunFixture({ iterations: 4, games: 8, batchSize: 2, moveLimit: "nodes = 1000" });

  it("records each iteration's step scales, chosen from the completed iterations before it, and a killed master replays them", async () => {
    const { setup, env, sql } = fixture;
    writeFileSync(
      setup.configFile,
      readFileSync(setup.configFile, "utf8").replace(
        "max_iterations = 4",
        'max_iterations = 4\nadapt = "signal"\nadapt_window = 2\nadapt_floor = 0.5\nadapt_pilot = 0\nr_end = 0.02',
      ),
    );
    const workers = [startWorker(setup, env, "a", ["--seed", "w"])];
    try {
      const crashed = await startMaster(setup, { ...env, SPSA_CRASH_AT: "waiting" }, "adaptive", ["--seed", "v"]);
      expect(crashed.signal, crashed.all).toBe("SIGKILL");
      const finished = await startMaster(setup, env, "adaptive", ["--seed", "v"]);
      expect(finished.exitCode, finished.all).toBe(0);
    } finally {
      for (const worker of workers) worker.kill("SIGTERM");
      await Promise.all(workers);
    }

    const rows = await recordedIterations(sql, "adaptive");
    const [run] = await sql<
      { current_parameters: Record<string, number> }[]
    >`select current_parameters from spsa_run where name = 'adaptive'`;
    if (!run) throw new Error("no run");
    expect(rows.map((r) => r.iteration_number)).toEqual([1, 2, 3, 4]);
    const measured = rows.map((r) => ({
      elo: r.elo_diff ?? Number.NaN,
      result: { plusWins: r.plus_wins, minusWins: r.minus_wins, draws: r.draws },
    }));
    // Steps in order; an iteration opened in flight was drawn, and its scales chosen, `staleness` steps behind.
    const final = replayChain(
      rows,
      rows[0]!.base_parameters,
      (row) => row.settings.staleness ?? 0,
      (row, applied, theta) => {
        const names = Object.keys(row.settings.parameters);
        // The scales are those of the last two iterations completed when it opened (the floor at the first), as recorded.
        const expected = stepScales(measured.slice(Math.max(0, applied - 2), applied), names, {
          mode: "signal",
          window: 2,
          floor: 0.5,
        });
        expect(row.settings.stepScale, `step scales of iteration ${row.iteration_number}`).toEqual(expected);
        expect(row.settings.spsa.adaptive).toEqual({
          mode: "signal",
          window: 2,
          floor: 0.5,
          pilot: 0,
          widen: 1,
          lift: 1.5,
        });
        const outcome = { plusWins: row.plus_wins, minusWins: row.minus_wins, draws: row.draws };
        return update(
          recordedParams(row.settings, theta),
          { ak: row.a_k, plus: row.plus_parameters, minus: row.minus_parameters, scale: expected },
          outcome,
          row.settings.spsa,
        ).newValues;
      },
      expect,
    );
    for (const [name, value] of Object.entries(final))
      expect(run.current_parameters[name], `${name} at the end`).toBeCloseTo(value, 12);
    // Iterations 2–4 could open while the one before them played.
    expect(
      rows.some((r) => (r.settings.staleness ?? 0) > 0),
      "no iteration opened in flight",
    ).toBe(true);
    // Eight engine builds and two master starts: slower than most on a busy machine.
  }, 300_000);
});
