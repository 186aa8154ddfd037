import { hostname } from "node:os";
import { describe, expect, it } from "vitest";
import { spsa } from "../support/cli.js";
import {
  expectExactCounts,
  iterationsOf,
  outputSoFar,
  isStopped,
  startMaster,
  startWorker,
  waitFor,
} from "../support/processes.js";
import { useRunFixture } from "../support/run-fixture.js";

/** The master process of a run, as spsa_run records it. */
async function holderOf(sql: import("postgres").Sql, run: string) {
  const [row] = await sql<{ pid: number | null; host: string | null; lapsed: boolean }[]>`
    select master_pid as pid, master_host as host, master_expires_at < now() as lapsed from spsa_run where name = ${run}`;
  return row;
}

const HELD = (pid: number) =>
  new RegExp(
    `^error: run "\\S+" is held by master pid ${pid} on ${hostname()} since \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d UTC \\(seen \\d+ s ago\\); stop that master first .*$`,
  );

describe.each(["build", "options"] as const)("one master per run (%s mode)", (mode) => {
  // A 3 s lease: the master heartbeats every second, and its hold lapses 3 s after its last one.
  const fixture = useRunFixture({
    iterations: 1,
    games: 4,
    batchSize: 2,
    leaseSeconds: 3,
    moveLimit: "nodes = 300",
    mode,
  });

  it("refuses a second master while the first lives (one line: host, pid, since; exit 6), and takes the run over after a kill -9", async () => {
    const { setup, env, sql } = fixture;
    const first = startMaster(setup, env, "held", ["--seed", "h"]);
    await waitFor(async () => (await holderOf(sql, "held"))?.pid === first.pid, 120_000, "the first master's hold");

    const second = await startMaster(setup, env, "held", ["--seed", "h"]);
    expect(second.exitCode, second.all).toBe(6);
    expect(second.stderr.trim()).toMatch(HELD(first.pid!));
    // Refused, --fresh too: a live master's run is not renamed under it.
    const fresh = await startMaster(setup, env, "held", ["--fresh"]);
    expect(fresh.exitCode, fresh.all).toBe(6);
    const status = await spsa(["--config", setup.configFile, "status", "--name", "held"], { env });
    expect(status.stdout).toMatch(
      new RegExp(`^master: pid ${first.pid} on ${hostname()} since .* \\(seen \\d+s ago\\)$`, "m"),
    );

    first.kill("SIGKILL");
    await first;
    const worker = startWorker(setup, env, "w", ["-c", "2"]);
    const takeover = await startMaster(setup, env, "held", ["--seed", "h"]);
    worker.kill("SIGTERM");
    await worker;
    expect(takeover.exitCode, takeover.all).toBe(0);
    expect(takeover.all).toMatch(
      new RegExp(
        `run "held": taken over from master pid ${first.pid} on ${hostname()} since .*: it is gone, or missed its heartbeats`,
      ),
    );
    expectExactCounts(await iterationsOf(sql, "held"), expect);
    // Released at its end: the next master starts at once.
    expect(await holderOf(sql, "held")).toEqual({ pid: null, host: null, lapsed: null });
  });
});

describe("a master that stalled and lost its run", () => {
  const fixture = useRunFixture({ iterations: 1, games: 4, batchSize: 2, leaseSeconds: 3, moveLimit: "nodes = 300" });

  it("stops before it builds, once another master took the run over", async () => {
    const { setup, env, sql } = fixture;
    // It stops itself (SIGSTOP) where it would build iteration 1, as a suspended machine would.
    const stalled = startMaster(setup, { ...env, SPSA_STOP_AT: "build-starting" }, "stall", ["--seed", "s"]);
    const stalledOutput = outputSoFar(stalled);
    await waitFor(async () => isStopped(stalled.pid!), 120_000, "the master's stop before its build");
    await waitFor(async () => (await holderOf(sql, "stall"))?.lapsed === true, 30_000, "its hold to lapse");

    const next = startMaster(setup, env, "stall", ["--seed", "s"]);
    await waitFor(
      async () => (await iterationsOf(sql, "stall")).length === 1,
      120_000,
      "the next master's iteration 1",
    );
    expect((await holderOf(sql, "stall"))?.pid).toBe(next.pid);

    stalled.kill("SIGCONT");
    const lost = await stalled;
    expect(lost.exitCode, lost.all).toBe(6);
    expect(lost.stderr).toMatch(
      new RegExp(
        `^error: run "stall" was taken over by master pid ${next.pid} on ${hostname()} since .* while this one stalled; this master stops$`,
        "m",
      ),
    );
    // It built nothing: no cargo of its own, no second iteration 1.
    expect(stalledOutput()).not.toMatch(/engines built|building plus and minus/);

    const worker = startWorker(setup, env, "w", ["-c", "2"]);
    const done = await next;
    worker.kill("SIGTERM");
    await worker;
    expect(done.exitCode, done.all).toBe(0);
    expect((await iterationsOf(sql, "stall")).map((row) => row.iteration_number)).toEqual([1]);
    expectExactCounts(await iterationsOf(sql, "stall"), expect);
  });
});
