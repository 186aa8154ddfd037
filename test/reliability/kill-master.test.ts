import { copyFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  expectExactCounts,
  expectRunFinal,
  iterationsOf,
  replayTheta,
  startMaster,
  startWorker,
} from "../support/processes.js";
import { useRunFixture } from "../support/run-fixture.js";

const CRASH_POINTS = ["build-started", "iteration-inserted", "waiting", "iteration-committed"] as const;

describe("the master killed with -9 at chosen points of its loop", () => {
  const fixture = useRunFixture({ iterations: 3, games: 8, batchSize: 2, moveLimit: "nodes = 500" });

  it("continues after each kill, and θ follows the formulas as in an uninterrupted run", async () => {
    const { setup, env, sql } = fixture;
    const initialParams = join(setup.dir, "initial-params.toml");
    copyFileSync(setup.paramsFile, initialParams);
    const workers = [startWorker(setup, env, "a"), startWorker(setup, env, "b")];
    try {
      for (const point of CRASH_POINTS) {
        const crashed = await startMaster(setup, { ...env, SPSA_CRASH_AT: point }, "restarts", ["--seed", "r"]);
        expect(crashed.signal, `${point}: ${crashed.all}`).toBe("SIGKILL");
      }
      const finished = await startMaster(setup, env, "restarts", ["--seed", "r"]);
      expect(finished.exitCode, finished.all).toBe(0);
    } finally {
      for (const worker of workers) worker.kill("SIGTERM");
      await Promise.all(workers);
    }

    const rows = await iterationsOf(sql, "restarts");
    expect(rows.map((r) => r.iteration_number)).toEqual([1, 2, 3]);
    expectExactCounts(rows, expect);
    const final = replayTheta(setup, initialParams, "r", rows, expect);
    await expectRunFinal(sql, setup, "restarts", final, expect);
  });
});
