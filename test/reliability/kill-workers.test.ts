import { describe, expect, it } from "vitest";
import { expectExactCounts, iterationsOf, startMaster, startWorker, waitFor } from "../support/processes.js";
import { useRunFixture } from "../support/run-fixture.js";

const KILLS = 10;

describe("workers killed with -9 in the middle of batches", () => {
  // Short leases, so the dead workers' batches come back quickly.
  const fixture = useRunFixture({
    iterations: 2,
    games: 40,
    batchSize: 4,
    leaseSeconds: 2,
    // Games at a node limit: the subject is the kills, not the clock.
    moveLimit: "nodes = 500",
  });

  // The bound covers cargo building the engines twice on a busy machine; nothing waits for it.
  it("lose no game and count none twice", { timeout: 600_000 }, async () => {
    const { setup, env, sql } = fixture;
    const master = startMaster(setup, env, "killed-workers", ["--seed", "k"]);
    let serial = 0;
    const workers = new Map<string, ReturnType<typeof startWorker>>();
    const addWorker = () => {
      const name = `w${serial++}`;
      workers.set(name, startWorker(setup, env, name));
    };
    for (let i = 0; i < 3; i++) addWorker();
    let masterDone = false;
    void master.finally(() => (masterDone = true));

    const claimedBy = async () =>
      sql<
        { id: number; worker_name: string }[]
      >`select id, worker_name from spsa_batch where status = 'claimed' order by id`;
    const gamesFlowing = async () => {
      const [played] = await sql<{ n: number }[]>`select coalesce(sum(games_played), 0)::int as n from spsa_iteration`;
      return (played?.n ?? 0) > 0;
    };
    // Kills start once games are being reported, and each hits a live worker while it holds a
    // batch: the run cannot end before that lease expires and another worker plays the batch
    // again, so every kill finds a victim, however fast or slow the machine.
    await waitFor(async () => masterDone || (await gamesFlowing()), 300_000, "the first reported games");
    const killedBatches: number[] = [];
    while (!masterDone && killedBatches.length < KILLS) {
      let victim: string | undefined;
      await waitFor(
        async () => {
          victim = masterDone ? "" : (await claimedBy()).find((batch) => workers.has(batch.worker_name))?.worker_name;
          return victim !== undefined;
        },
        300_000,
        "a worker holding a batch",
      );
      if (!victim) break;
      const child = workers.get(victim)!;
      workers.delete(victim);
      child.kill("SIGKILL");
      await child;
      addWorker();
      // What it held when it died; a report that slipped in before the kill leaves nothing to count.
      killedBatches.push(
        ...(await claimedBy()).filter((batch) => batch.worker_name === victim).map((batch) => batch.id),
      );
    }
    const result = await master;
    for (const worker of workers.values()) worker.kill("SIGTERM");
    await Promise.all(workers.values());
    expect(result.exitCode, result.all).toBe(0);
    expect(killedBatches.length, "kills that caught a worker holding a batch").toBeGreaterThanOrEqual(KILLS);

    const rows = await iterationsOf(sql, "killed-workers");
    expect(rows).toHaveLength(2);
    expectExactCounts(rows, expect);
    // Every batch a dead worker held came back to the pool and was never counted.
    const killed = await sql<{ status: string; reported: boolean }[]>`
      select status, reported_at is not null as reported from spsa_batch where id in ${sql(killedBatches)}`;
    expect(killed).toEqual(killedBatches.map(() => ({ status: "expired", reported: false })));
  });
});
