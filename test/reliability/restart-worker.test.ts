import { describe, expect, it } from "vitest";
import { compete } from "../support/cli.js";
import { expectExactCounts, iterationsOf, startMaster, startWorker, waitFor } from "../support/processes.js";
import { expectConsistentRun } from "../support/options-run.js";
import { useRunFixture } from "../support/run-fixture.js";

const LEASE_SECONDS = 120;

describe.each(["build", "options"] as const)("a worker restarted under its name (%s mode)", (mode) => {
  // A long lease: games the dead worker held could come back only through the restart.
  const fixture = useRunFixture({
    iterations: 1,
    games: 4,
    batchSize: 4,
    leaseSeconds: LEASE_SECONDS,
    // Games at a node limit, long enough for the first worker to be killed while it plays them.
    moveLimit: "nodes = 3000",
    mode,
  });

  it("after kill -9 gets its predecessor's games replayed well before the lease runs out", async () => {
    const { setup, env, sql } = fixture;
    const master = startMaster(setup, env, "restarted-worker", ["--seed", "r"]);
    const first = startWorker(setup, env, "phoenix", ["-c", "2"]);
    let held: number | undefined;
    await waitFor(
      async () => {
        const [batch] = await sql<
          { id: number }[]
        >`select id::int as id from spsa_batch where worker_name = 'phoenix' and status = 'claimed'`;
        held = batch?.id;
        return held !== undefined;
      },
      60_000,
      "the first worker's claim",
    );
    first.kill("SIGKILL");
    await first;
    const killedAt = Date.now();
    // What the dead process held (the iteration's plan may have given it more than one batch).
    const [dead] = await sql<{ batches: number; games: number }[]>`
      select count(*)::int as batches, sum(games)::int as games from spsa_batch where worker_name = 'phoenix' and status = 'claimed'`;

    const second = startWorker(setup, env, "phoenix", ["-c", "2"]);
    const result = await master;
    const elapsedSeconds = (Date.now() - killedAt) / 1000;
    second.kill("SIGTERM");
    const secondResult = await second;
    expect(result.exitCode, result.all).toBe(0);
    expect(elapsedSeconds).toBeLessThan(LEASE_SECONDS / 4);
    expect(secondResult.all).toContain(
      `worker phoenix: returned ${dead!.batches} batches (${dead!.games} games) of an earlier process of this name to the pool`,
    );

    const [killed] = await sql<{ status: string }[]>`select status from spsa_batch where id = ${held!}`;
    expect(killed?.status).toBe("expired");
    expectExactCounts(await iterationsOf(sql, "restarted-worker"), expect);
    // A UCI-option batch that expired moved nothing; the replayed games' batch did.
    if (mode === "options") await expectConsistentRun(sql, "restarted-worker", "r");
  });
});

describe("a worker name held by a live process", () => {
  // A short lease: the worker heartbeats every third of it, so the first one meets the takeover within 2 s.
  const fixture = useRunFixture({ iterations: 1, games: 4, batchSize: 4, leaseSeconds: 6 });

  it("is refused while the first process of that name is alive, and takes the name over with --force", async () => {
    const { setup, env, sql } = fixture;
    const first = startWorker(setup, env, "twin");
    await waitFor(
      async () => {
        const [row] = await sql<{ pid: number }[]>`select pid from spsa_worker where name = 'twin'`;
        return row?.pid === first.pid;
      },
      60_000,
      "the first worker's registration",
    );

    const refused = await compete(["--spsa", "-c", "1", "--config", setup.configFile, "--name", "twin"], { env });
    expect(refused.exitCode, refused.all).toBe(2);
    expect(refused.stderr).toMatch(
      /^error: --name: worker "twin" is running \(pid \d+ on \S+, seen \d+ s ago\); stop it, choose another name, or pass --force to take the name over$/,
    );

    const forced = await compete(
      ["--spsa", "-c", "1", "--config", setup.configFile, "--name", "twin", "--force", "--idle-exit", "1"],
      { env },
    );
    expect(forced.exitCode, forced.all).toBe(0);
    expect(forced.stderr).toContain(`worker twin: took the name over from a live worker (pid ${first.pid} on`);
    // The first one learns it at its next heartbeat and stops by itself.
    const firstResult = await first;
    expect(firstResult.exitCode, firstResult.all).toBe(0);
    expect(firstResult.all).toContain("worker twin: another process took this name over (--force); stopping");
  });
});
