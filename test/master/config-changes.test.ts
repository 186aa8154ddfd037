import { readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { loadParams } from "../../src/params/params.js";
import { recordedParams } from "../../src/config/iteration-settings.js";
import { update } from "../../src/spsa/math.js";
import { startMaster, startWorker } from "../support/processes.js";
import { recordedIterations } from "../support/iterations.js";
import { useRunFixture } from "../support/run-fixture.js";

describe("config.toml and params.toml edited between a kill and a restart", () => {
  const fixture = useRunFixture({ iterations: 2, games: 4, batchSize: 2, timelow: 0.005, timehigh: 0.01 });

  it("completes the interrupted iteration with what it recorded and applies the edits from the next one", async () => {
    const { setup, env, sql } = fixture;
    // The barrier: killed while waiting for iteration 1, the master has not opened iteration 2
    // yet, so the edits apply from it (in flight they apply from the next iteration opened, as the master's line says).
    writeFileSync(
      setup.configFile,
      readFileSync(setup.configFile, "utf8").replace("[spsa]\n", "[spsa]\nmax_staleness = 0\n"),
    );
    const workers = [startWorker(setup, env, "a")];
    try {
      const crashed = await startMaster(setup, { ...env, SPSA_CRASH_AT: "waiting" }, "edits", ["--seed", "e"]);
      expect(crashed.signal, crashed.all).toBe("SIGKILL");
      // The edits: larger gains and one more iteration, games at 2000 nodes a move; LMR_BASE's step doubled, KING_ATTACK_SCALE frozen.
      const config = readFileSync(setup.configFile, "utf8");
      expect(config).toContain("timelow = 0.005\ntimehigh = 0.01\n");
      writeFileSync(
        setup.configFile,
        config
          .replace("max_iterations = 2", "max_iterations = 3\nc_end = 2\nr_end = 0.01")
          .replace("timelow = 0.005\ntimehigh = 0.01\n", "nodes = 2000\n"),
      );
      const params = readFileSync(setup.paramsFile, "utf8");
      writeFileSync(
        setup.paramsFile,
        params
          .replace(/(\[LMR_BASE\][^[]*?step = )0\.1/, "$10.2")
          .replace(/(\[KING_ATTACK_SCALE\][^[]*?step = \d+)/, "$1\nfrozen = true") +
          "\n[DELTA_PRUNE_MARGIN]\nvalue = 200\nmin = 100\nmax = 400\nstep = 20\n",
      );
      const finished = await startMaster(setup, env, "edits", ["--seed", "e"]);
      expect(finished.exitCode, finished.all).toBe(0);
      expect(finished.all).toContain("changed since iteration 1: [spsa] c_end: 3 → 2 (applies from iteration 2)");
      expect(finished.all).toContain(
        "changed since iteration 1: [time_control] nodes: (default) → 2000 (applies from iteration 2)",
      );
      expect(finished.all).not.toContain("[time_control] timelow");
      expect(finished.all).toContain("[LMR_BASE] step: 0.1 → 0.2");
      expect(finished.all).toContain("[KING_ATTACK_SCALE] frozen: false → true");
      expect(finished.all).toContain('DELTA_PRUNE_MARGIN joins run "edits" at 200');
      expect(finished.all).toContain("[DELTA_PRUNE_MARGIN] added");
    } finally {
      for (const worker of workers) worker.kill("SIGTERM");
      await Promise.all(workers);
    }

    const rows = await recordedIterations(sql, "edits");
    expect(rows.map((r) => r.iteration_number)).toEqual([1, 2, 3]);
    const [first, second] = rows;
    if (!first || !second) throw new Error("missing iterations");
    // Iteration 1 was played with the old settings, and its update used exactly those.
    expect(first.settings.spsa.cEnd).toBe(3);
    expect(first.settings.parameters.LMR_BASE?.step).toBe(0.1);
    const replayed = update(
      recordedParams(first.settings, first.base_parameters),
      {
        ak: first.a_k,
        plus: first.plus_parameters,
        minus: first.minus_parameters,
        ...(first.settings.stepScale && { scale: first.settings.stepScale }),
      },
      { plusWins: first.plus_wins, minusWins: first.minus_wins, draws: first.draws },
      first.settings.spsa,
    );
    for (const [name, value] of Object.entries(replayed.newValues))
      expect(second.base_parameters[name], name).toBeCloseTo(value, 12);
    // Iteration 2 records and plays the new settings: the frozen parameter is not perturbed.
    expect(second.settings.spsa.cEnd).toBe(2);
    expect(second.settings.parameters.LMR_BASE?.step).toBe(0.2);
    // The running worker played iterations 2 and 3 at the node limit its claims carried (test/worker/worker.test.ts shows the `go nodes`).
    expect(first.settings.moveLimit).toBeUndefined();
    expect(rows.slice(1).map((r) => r.settings.moveLimit)).toEqual([{ nodes: 2000 }, { nodes: 2000 }]);
    expect(rows.map((r) => r.games_played)).toEqual([4, 4, 4]);
    expect(second.settings.parameters.KING_ATTACK_SCALE?.frozen).toBe(true);
    expect(second.plus_parameters.KING_ATTACK_SCALE).toBe(second.minus_parameters.KING_ATTACK_SCALE);
    // The added parameter is played from iteration 2 on, starting at its value.
    expect(first.base_parameters.DELTA_PRUNE_MARGIN).toBeUndefined();
    expect(second.base_parameters.DELTA_PRUNE_MARGIN).toBe(200);
    expect(second.plus_parameters.DELTA_PRUNE_MARGIN).not.toBe(second.minus_parameters.DELTA_PRUNE_MARGIN);
    // The frozen parameter keeps its θ from then on.
    expect(rows[2]?.base_parameters.KING_ATTACK_SCALE).toBe(second.base_parameters.KING_ATTACK_SCALE);
    const written = loadParams(setup.paramsFile).find((p) => p.name === "KING_ATTACK_SCALE");
    expect(written?.frozen).toBe(true);
  });
});
