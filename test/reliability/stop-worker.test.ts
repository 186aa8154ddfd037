import { describe, expect, it } from "vitest";
import type postgres from "postgres";
import { engineFaultSum } from "../../src/db/fault-columns.js";
import { expectExactCounts, iterationsOf, startMaster, startWorker, waitFor } from "../support/processes.js";
import { expectConsistentRun } from "../support/options-run.js";
import { useRunFixture } from "../support/run-fixture.js";
import { childProcesses, stillAlive, type ProcessEntry } from "../support/stray-processes.js";

// A long lease: the games a stopped worker held can come back in time only if it hands them back.
const LEASE_SECONDS = 120;

/** The engines a worker runs: its children started from its engine cache. */
function enginesOf(pid: number): ProcessEntry[] {
  return childProcesses(pid).filter((child) => child.cmdline.includes("engine-cache"));
}

/** Waits until the worker holds a batch and plays it: its engines are running. */
async function midBatch(sql: postgres.Sql, name: string, pid: number): Promise<ProcessEntry[]> {
  let engines: ProcessEntry[] = [];
  await waitFor(
    async () => {
      const [held] = await sql<
        { n: number }[]
      >`select count(*)::int as n from spsa_batch where worker_name = ${name} and status = 'claimed'`;
      engines = enginesOf(pid);
      return (held?.n ?? 0) > 0 && engines.length >= 2;
    },
    300_000,
    `worker ${name} playing a batch`,
  );
  return engines;
}

/** Engine faults in the run's iterations and in its reported batches (`sum`). */
async function engineFaults(sql: postgres.Sql, runName: string): Promise<{ iterations: number; batches: number }> {
  const [row] = await sql<{ iterations: number; batches: number }[]>`
    select (select coalesce(sum(${engineFaultSum(sql)}), 0)::int from spsa_iteration i join spsa_run r on r.id = i.run_id where r.name = ${runName}) as iterations,
      (select coalesce(sum(v.value::int), 0)::int from spsa_batch b join spsa_iteration i on i.id = b.iteration_id join spsa_run r on r.id = i.run_id,
         jsonb_each_text(b.faults) v where r.name = ${runName} and b.status = 'done' and v.key !~ 'DelayLosses$') as batches`;
  return row!;
}

describe.each([
  { mode: "build" as const, stop: "Ctrl-C" as const },
  { mode: "options" as const, stop: "Ctrl-C" as const },
  { mode: "build" as const, stop: "SIGTERM" as const },
])("a worker stopped mid-batch by $stop ($mode mode)", ({ mode, stop }) => {
  // Node-limited games of a second or more: no clock, so no time loss on a busy machine can pass
  // for a fault, and a batch lasts long enough to be caught in play.
  const fixture = useRunFixture({
    iterations: 1,
    games: 8,
    batchSize: 4,
    leaseSeconds: LEASE_SECONDS,
    moveLimit: "nodes = 5000",
    mode,
  });

  it(
    "scores none of the games it cut short, hands its batch back at once, and every game counts once",
    { timeout: 600_000 },
    async () => {
      const { setup, env, sql } = fixture;
      const run = `stopped-${mode}`;
      const master = startMaster(setup, env, run, ["--seed", "s"]);
      // Started as a terminal starts a foreground job: the leader of its own process group.
      const stopped = startWorker(setup, env, "stopped", ["-c", "2"], { groupLeader: true });
      const engines = await midBatch(sql, "stopped", stopped.pid!);
      // The engines are in process groups of their own, so a Ctrl-C reaches only the worker.
      for (const engine of engines) expect(engine.pgid, engine.cmdline).not.toBe(stopped.pid);
      const [held] = await sql<{ batches: number; games: number }[]>`
      select count(*)::int as batches, sum(games)::int as games from spsa_batch where worker_name = 'stopped' and status = 'claimed'`;

      // A terminal's Ctrl-C goes to the whole foreground group; a service manager's SIGTERM to the worker alone.
      if (stop === "Ctrl-C") process.kill(-stopped.pid!, "SIGINT");
      else stopped.kill("SIGTERM");
      const result = await stopped;
      expect(result.exitCode, result.all).toBe(0);
      expect(result.all).toContain(
        `worker stopped: stopped; ${held!.batches} batch${held!.batches === 1 ? "" : "es"} (${held!.games} games) it had not finished or reported went back to the pool`,
      );
      expect(result.all).not.toMatch(/engine faults|failed/);
      expect(await stillAlive(engines.map((engine) => engine.pid))).toEqual([]);
      // What it held is back in the pool, long before its lease would have ended: expired, never
      // reported, so none of its cut games can count.
      const mine = await sql<{ status: string; leaseLeft: number }[]>`
      select status, extract(epoch from lease_expires_at - now())::float8 as "leaseLeft" from spsa_batch where worker_name = 'stopped'`;
      expect(mine.length).toBeGreaterThan(0);
      for (const batch of mine) expect(batch.status).toBe("expired");
      expect(Math.min(...mine.map((batch) => batch.leaseLeft))).toBeGreaterThan(0);

      // Another worker plays the rest, the stopped worker's games again.
      const finisher = startWorker(setup, env, "finisher", ["-c", "2"]);
      try {
        const finished = await master;
        expect(finished.exitCode, finished.all).toBe(0);
      } finally {
        finisher.kill("SIGTERM");
        await finisher;
      }
      expectExactCounts(await iterationsOf(sql, run), expect);
      expect(await engineFaults(sql, run)).toEqual({ iterations: 0, batches: 0 });
      if (mode === "options") await expectConsistentRun(sql, run, "s");
    },
  );
});

describe("a worker killed with -9", () => {
  const fixture = useRunFixture({
    iterations: 1,
    games: 8,
    batchSize: 4,
    leaseSeconds: 30,
    moveLimit: "nodes = 5000",
  });

  it("leaves no engine running", { timeout: 600_000 }, async () => {
    const { setup, env, sql } = fixture;
    const master = startMaster(setup, env, "killed", ["--seed", "k"]);
    const worker = startWorker(setup, env, "killed", ["-c", "2"], { groupLeader: true });
    try {
      const engines = await midBatch(sql, "killed", worker.pid!);
      worker.kill("SIGKILL");
      await worker;
      // Not in the worker's group and with no one to quit them, they die with it (setpriv --pdeathsig).
      expect(await stillAlive(engines.map((engine) => engine.pid))).toEqual([]);
    } finally {
      master.kill("SIGTERM");
      await master;
    }
  });
});
