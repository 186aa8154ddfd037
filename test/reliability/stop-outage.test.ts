import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spsa } from "../support/cli.js";
import { outputSoFar, startMaster, startWorker, waitFor } from "../support/processes.js";
import { childProcesses, stillAlive } from "../support/stray-processes.js";
import { tuningSetup, type TuningSetup } from "../support/tuning-setup.js";
import { connect } from "../../src/postgres/connection.js";
import { embeddedServer, embeddedUrl } from "../../src/postgres/embedded.js";

/** The documented bound on a stop while the database is down (docs/reliability.md). */
const STOP_BOUND_MS = 5000;

/** How long a process takes to exit once `send` has signalled it, and its result. */
async function timedStop<T>(child: Promise<T>, send: () => void): Promise<{ result: T; ms: number }> {
  const sent = Date.now();
  send();
  const result = await child;
  return { result, ms: Date.now() - sent };
}

describe("a stop while the database is down", () => {
  let home: string;
  let setup: TuningSetup;
  let env: Record<string, string>;

  beforeAll(async () => {
    // Its own embedded server, since this test stops it.
    home = mkdtempSync(join(tmpdir(), "spsa-stop-outage-"));
    chmodSync(home, 0o755);
    env = { SPSA_HOME: home, DATABASE_URL: "" };
    expect((await spsa(["db", "start"], { env })).exitCode).toBe(0);
    setup = tuningSetup({ iterations: 1, games: 16, batchSize: 4, leaseSeconds: 120, timelow: 0.05, timehigh: 0.1 });
  });
  afterAll(async () => {
    await spsa(["db", "stop"], { env });
    const server = embeddedServer(home);
    if (server.outsideHome) rmSync(server.serverDir, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
    rmSync(setup.dir, { recursive: true, force: true });
  });

  it(
    "ends the master and the workers within 5 s, each with its status and one line on what stays behind",
    { timeout: 600_000 },
    async () => {
      const sql = connect(embeddedUrl(embeddedServer(home)), 1);
      const master = startMaster(setup, env, "outage-stop", ["--seed", "o"]);
      const workers = {
        a: startWorker(setup, env, "a", ["-c", "2"], { groupLeader: true }),
        b: startWorker(setup, env, "b", ["-c", "2"], { groupLeader: true }),
      };
      const said = { master: outputSoFar(master), b: outputSoFar(workers.b) };
      const engines: number[] = [];
      try {
        // Both workers hold a batch and play it.
        for (const [name, worker] of Object.entries(workers)) {
          await waitFor(
            async () => {
              const [held] = await sql<
                { n: number }[]
              >`select count(*)::int as n from spsa_batch where worker_name = ${name} and status = 'claimed'`;
              const playing = childProcesses(worker.pid!).filter((child) => child.cmdline.includes("engine-cache"));
              if ((held?.n ?? 0) === 0 || playing.length < 2) return false;
              engines.push(...playing.map((engine) => engine.pid));
              return true;
            },
            300_000,
            `worker ${name} playing a batch`,
          );
        }
        await sql.end();
        expect((await spsa(["db", "stop"], { env })).stdout).toContain("stopped");
        await waitFor(async () => /database unreachable/.test(said.master()), 60_000, "the master to meet the outage");

        // SIGTERM to a worker: its games end unscored, and what it held stays claimed until the lease ends.
        const a = await timedStop(workers.a, () => workers.a.kill("SIGTERM"));
        expect(a.result.exitCode, a.result.all).toBe(3);
        expect(a.ms).toBeLessThan(STOP_BOUND_MS);
        expect(a.result.all).toMatch(
          /\nerror: worker a: stopped while the database is unreachable \(connect ENOENT [^\n]*, for \d+s\); (1 batch \(\d+ games\) stays claimed until its lease ends|\d+ batches \(\d+ games\) stay claimed until their leases end) \(within 120 s\), then returns? to the pool$/,
        );

        // Ctrl-C twice to the other: the second exits at once.
        process.kill(-workers.b.pid!, "SIGINT");
        await waitFor(
          async () => said.b().includes("stopping (press Ctrl-C again to exit at once)"),
          10_000,
          "worker b to start stopping",
        );
        const b = await timedStop(workers.b, () => process.kill(-workers.b.pid!, "SIGINT"));
        expect(b.result.exitCode, b.result.all).toBe(130);
        expect(b.ms).toBeLessThan(STOP_BOUND_MS);
        expect(b.result.all).toMatch(
          /\nexiting at once: the batches this worker held return to the pool when their leases end$/,
        );

        const m = await timedStop(master, () => master.kill("SIGTERM"));
        expect(m.result.exitCode, m.result.all).toBe(3);
        expect(m.ms).toBeLessThan(STOP_BOUND_MS);
        expect(m.result.all).toMatch(
          /\nerror: stopped while the database is unreachable \(connect ENOENT [^\n]*, for \d+s\); nothing is lost: the run is as the database last saw it, and the master resumes it when started again$/,
        );
        console.log(
          `stops with the database down: worker (SIGTERM) ${a.ms} ms, worker (second Ctrl-C) ${b.ms} ms, master (SIGTERM) ${m.ms} ms`,
        );

        expect(await stillAlive(engines)).toEqual([]);
      } finally {
        for (const child of [master, ...Object.values(workers)]) child.kill("SIGKILL");
        await Promise.allSettled([master, ...Object.values(workers)]);
      }

      // Back up: what the workers held is still claimed, nothing of it reported, so no cut game counts.
      expect((await spsa(["db", "start"], { env })).exitCode).toBe(0);
      const after = connect(embeddedUrl(embeddedServer(home)), 1);
      try {
        const rows = await after<
          { worker: string; status: string }[]
        >`select worker_name as worker, status from spsa_batch where worker_name in ('a', 'b') order by id`;
        for (const row of rows) expect(row.status, row.worker).toBe("claimed");
        expect(new Set(rows.map((row) => row.worker))).toEqual(new Set(["a", "b"]));
      } finally {
        await after.end();
      }
    },
  );
});
