import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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
import { expectConsistentRun } from "../support/options-run.js";
import { tuningSetup, type TuningSetup } from "../support/tuning-setup.js";
import { connect } from "../../src/postgres/connection.js";
import { embeddedServer, embeddedUrl } from "../../src/postgres/embedded.js";

// The file's own embedded server, since these tests stop it: one for both modes (each its own run).
let home: string;
let env: Record<string, string>;
beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), "spsa-restart-"));
  chmodSync(home, 0o755);
  env = { SPSA_HOME: home, DATABASE_URL: "" };
  expect((await spsa(["db", "start"], { env })).exitCode).toBe(0);
});
afterAll(async () => {
  // Stopped, and its folders removed (as root, a private one under /var/tmp too).
  await spsa(["db", "remove", "--yes"], { env });
  rmSync(home, { recursive: true, force: true });
});

// The build mode's iterations, and the UCI-option mode's batches that move θ as they report.
// Games at a node limit: the subject is the outage, not the clock.
describe.each([
  { mode: "build" as const, iterations: 2 },
  { mode: "options" as const, iterations: 1 },
])("Postgres stopped and restarted in the middle of a run ($mode mode)", ({ mode, iterations }) => {
  let setup: TuningSetup;

  beforeAll(() => {
    setup = tuningSetup({ iterations: 2, games: 16, batchSize: 2, moveLimit: "nodes = 500", mode });
  });
  afterAll(() => {
    rmSync(setup.dir, { recursive: true, force: true });
  });

  // The bound covers cargo building the engines twice on a busy machine; nothing waits for it.
  it("master and workers reconnect, and every report is counted once", { timeout: 600_000 }, async () => {
    const url = embeddedUrl(embeddedServer(home));
    // A run of its own on the file's server, which the other mode's run shares.
    const run = `outage-${mode}`;
    const master = startMaster(setup, env, run, ["--seed", "o"]);
    const workers = [startWorker(setup, env, "a"), startWorker(setup, env, "b")];
    const outputs = [master, ...workers].map(outputSoFar);
    try {
      const sql = connect(url, 1);
      await waitFor(
        async () => {
          const [row] = await sql<
            { n: number }[]
          >`select coalesce(sum(i.games_played), 0)::int as n from spsa_iteration i join spsa_run r on r.id = i.run_id
            where r.name = ${run}`.catch(() => [{ n: 0 }]);
          return (row?.n ?? 0) > 0;
        },
        120_000,
        "the first reported games",
      );
      await sql.end();
      expect((await spsa(["db", "stop"], { env })).stdout).toContain("stopped");
      // The outage lasts until the master and both workers have met it (a poll, a claim or a
      // report failed and is being retried), whatever the machine's speed.
      await waitFor(
        async () => outputs.every((output) => /database unreachable/.test(output())),
        120_000,
        "every process to meet the outage",
      );
      expect((await spsa(["db", "start"], { env })).exitCode).toBe(0);
      const result = await master;
      expect(result.exitCode, result.all).toBe(0);
      // The outage is said with its length, and so is its end.
      expect(result.all).toMatch(/\ndatabase unreachable \([^\n]+\); retrying at least every 10 s\n/);
      expect(result.all).toMatch(/\ndatabase back after (\d+m)?\d+s\n/);
    } finally {
      for (const worker of workers) worker.kill("SIGTERM");
      await Promise.all(workers);
    }
    const sql = connect(url, 1);
    try {
      const rows = await iterationsOf(sql, run);
      expect(rows).toHaveLength(iterations);
      expectExactCounts(rows, expect);
      if (mode === "options") await expectConsistentRun(sql, run, "o");
    } finally {
      await sql.end();
    }
  });
});

// The database can go down at any moment of a build: the master checks its hold on the run
// after cargo (a master that lost its run places no binary), and that check waits out the outage.
describe("Postgres stopped while the master builds", () => {
  let setup: TuningSetup;
  beforeAll(() => {
    setup = tuningSetup({ iterations: 1, games: 4, batchSize: 2, moveLimit: "nodes = 300" });
  });
  afterAll(() => {
    rmSync(setup.dir, { recursive: true, force: true });
  });

  it("delays the build until the database is back, and the run completes", { timeout: 600_000 }, async () => {
    // It stops itself (SIGSTOP) 200 ms into its first builds, its cargo running on.
    const master = startMaster(setup, { ...env, SPSA_STOP_AT: "build-started" }, "outage-in-build", ["--seed", "b"]);
    const output = outputSoFar(master);
    await waitFor(async () => isStopped(master.pid!), 180_000, "the master's stop during its builds");
    expect((await spsa(["db", "stop"], { env })).stdout).toContain("stopped");
    master.kill("SIGCONT");
    await waitFor(async () => /database unreachable/.test(output()), 180_000, "the master to meet the outage");
    expect(output()).not.toMatch(/engines built/);
    expect((await spsa(["db", "start"], { env })).exitCode).toBe(0);
    const worker = startWorker(setup, env, "w");
    try {
      const result = await master;
      expect(result.exitCode, result.all).toBe(0);
      expect(result.all).toMatch(/\ndatabase back after (\d+m)?\d+s\n/);
    } finally {
      worker.kill("SIGTERM");
      await worker;
    }
    const sql = connect(embeddedUrl(embeddedServer(home)), 1);
    try {
      const rows = await iterationsOf(sql, "outage-in-build");
      expect(rows.map((r) => r.status)).toEqual(["complete"]);
      expectExactCounts(rows, expect);
    } finally {
      await sql.end();
    }
  });
});
