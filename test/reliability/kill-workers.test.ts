import { describe, expect, it } from "vitest";
import { expectExactCounts, iterationsOf, startMaster, startWorker } from "../support/processes.js";
import { useRunFixture } from "../support/run-fixture.js";

describe("workers killed with -9 in the middle of batches", () => {
  // Short leases, so the dead workers' batches come back quickly.
  const fixture = useRunFixture({ iterations: 2, games: 40, batchSize: 4, leaseSeconds: 2, timelow: 0.005, timehigh: 0.01 });

  it("lose no game and count none twice", async () => {
    const { setup, env, sql } = fixture;
    const master = startMaster(setup, env, "killed-workers", ["--seed", "k"]);
    let serial = 0;
    const workers = Array.from({ length: 3 }, () => startWorker(setup, env, `w${serial++}`));
    let masterDone = false;
    void master.finally(() => (masterDone = true));

    let kills = 0;
    while (!masterDone && kills < 10) {
      await new Promise((resolve) => setTimeout(resolve, 400 + Math.random() * 1200));
      const [played] = await sql<{ n: number }[]>`select coalesce(sum(games_played), 0)::int as n from spsa_iteration`;
      if ((played?.n ?? 0) === 0 || masterDone) continue; // kill only once games are flowing
      const victim = Math.floor(Math.random() * workers.length);
      workers[victim]?.kill("SIGKILL");
      workers[victim] = startWorker(setup, env, `w${serial++}`);
      kills++;
    }
    const result = await master;
    for (const worker of workers) worker.kill("SIGTERM");
    await Promise.all(workers);
    expect(result.exitCode, result.all).toBe(0);
    expect(kills).toBe(10);

    const rows = await iterationsOf(sql, "killed-workers");
    expect(rows).toHaveLength(2);
    expectExactCounts(rows, expect);
    const [expired] = await sql<{ n: number }[]>`select count(*)::int as n from spsa_batch where status = 'expired'`;
    expect(expired?.n).toBeGreaterThan(0);
  });
});
