import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectConsistentRun } from "../support/options-run.js";
import { noPgbouncerReason, pgbouncerInstalled, startPgBouncer, type PgBouncer } from "../support/pgbouncer.js";
import { expectExactCounts, iterationsOf, startMaster, startWorker } from "../support/processes.js";
import { useRunFixture } from "../support/run-fixture.js";

/** A short UCI-option run: one build, games at a node limit. */
const RUN = { iterations: 3, games: 8, batchSize: 2, moveLimit: "nodes = 500", mode: "options" } as const;

interface Sample {
  worker: number;
  master: number;
  /** Batches claimed and not yet reported when the sample was taken: the worker is playing. */
  playing: number;
}

describe("one connection per process", () => {
  const fixture = useRunFixture(RUN);

  it("a playing worker holds exactly one connection, and the master one", async () => {
    const { setup, env, sql } = fixture;
    const worker = startWorker(setup, env, "solo");
    const master = startMaster(setup, env, "conns", ["--seed", "c"]);
    const samples: Sample[] = [];
    let running = true;
    void master.finally(() => (running = false));
    while (running) {
      const [row] = await sql<Sample[]>`
        select count(*) filter (where application_name = 'spsa-worker')::int as worker,
               count(*) filter (where application_name = 'spsa-master')::int as master,
               (select count(*)::int from spsa_batch where status = 'claimed') as playing
        from pg_stat_activity where datname = current_database()`;
      if (row) samples.push(row);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    worker.kill("SIGTERM");
    const [masterResult, workerResult] = await Promise.all([master, worker]);
    expect(masterResult.exitCode, `${masterResult.all}\n${workerResult.all}`).toBe(0);
    const playing = samples.filter((s) => s.playing > 0);
    expect(playing.length, "no sample caught the worker playing").toBeGreaterThan(0);
    expect(new Set(playing.map((s) => s.worker))).toEqual(new Set([1]));
    expect(new Set(playing.map((s) => s.master))).toEqual(new Set([1]));
    expectExactCounts(await iterationsOf(sql, "conns"), expect);
  }, 300_000);
});

describe.skipIf(!pgbouncerInstalled)(
  `a run through PgBouncer in transaction mode${pgbouncerInstalled ? "" : ` (skipped: ${noPgbouncerReason})`}`,
  () => {
    const fixture = useRunFixture(RUN);
    let bouncer: PgBouncer | undefined;
    beforeAll(async () => {
      bouncer = await startPgBouncer(fixture.env.DATABASE_URL!);
    });
    afterAll(async () => {
      await bouncer?.stop();
    });

    it("completes with exact counts, master and two workers going through the pooler only", async () => {
      const { setup, sql } = fixture;
      const env = { DATABASE_URL: bouncer!.url };
      const workers = [startWorker(setup, env, "b1"), startWorker(setup, env, "b2")];
      const master = await startMaster(setup, env, "pooled", ["--seed", "p"]);
      for (const worker of workers) worker.kill("SIGTERM");
      const workerOutput = (await Promise.all(workers)).map((w) => w.all).join("\n");
      expect(master.exitCode, `${master.all}\n${workerOutput}\n${bouncer!.log()}`).toBe(0);
      expect(workerOutput).not.toMatch(/prepared statement|failed|error/i);

      const rows = await iterationsOf(sql, "pooled");
      expectExactCounts(rows, expect);
      expect(rows[0]?.games_played).toBe(24);
      const [byWorker] = await sql<
        { workers: string[] }[]
      >`select array_agg(distinct worker_name order by worker_name) as workers from spsa_batch where status = 'done'`;
      expect(byWorker?.workers).toEqual(["b1", "b2"]);
      await expectConsistentRun(sql, "pooled", "p");
    }, 300_000);
  },
);
