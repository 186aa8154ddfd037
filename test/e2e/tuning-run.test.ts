import { copyFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadParams } from "../../src/params/params.js";
import { ROOT } from "../support/cli.js";
import { expectExactCounts, iterationsOf, replayTheta, startMaster, startWorker } from "../support/processes.js";
import { useRunFixture } from "../support/run-fixture.js";

describe("a tuning run: master and two workers on Postgres with the sample engine", () => {
  const run = useRunFixture({ iterations: 2, games: 8, batchSize: 2, moveLimit: "nodes = 500" });

  it("completes every iteration with exactly its target and moves params.toml as the formulas say", async () => {
    const initialParams = join(run.setup.dir, "initial-params.toml");
    copyFileSync(run.setup.paramsFile, initialParams);
    const workers = [startWorker(run.setup, run.env, "w1"), startWorker(run.setup, run.env, "w2")];
    const master = await startMaster(run.setup, run.env, "e2e", ["--seed", "fixed"]);
    for (const worker of workers) worker.kill("SIGTERM");
    const workerOutput = (await Promise.all(workers)).map((w) => w.all).join("\n");
    expect(master.exitCode, `${master.all}\n${workerOutput}`).toBe(0);

    const rows = await iterationsOf(run.sql, "e2e");
    expect(rows.map((r) => r.iteration_number)).toEqual([1, 2]);
    expectExactCounts(rows, expect);
    const pairs = await run.sql<{ pairs: number; sha: string }[]>`
      select (pairs_ll + pairs_ld + pairs_dd + pairs_dw + pairs_ww)::int as pairs, plus_engine_sha256 as sha from spsa_iteration`;
    for (const row of pairs) {
      expect(row.pairs * 2).toBe(8);
      expect(row.sha).toMatch(/^[0-9a-f]{64}$/);
    }

    // θ must have moved exactly as the formulas say for the recorded results.
    const final = replayTheta(run.setup, initialParams, "fixed", rows, expect);
    const written = Object.fromEntries(loadParams(run.setup.paramsFile).map((p) => [p.name, p.value]));
    // params.toml holds θ exactly as computed (shortest round-trip form).
    for (const [name, value] of Object.entries(final)) expect(written[name], name).toBe(value);
    const [state] = await run.sql`select status from spsa_run where name = 'e2e'`;
    expect(state?.status).toBe("complete");
    // Only `value = …` lines changed: comments and layout are kept.
    const keptLines = (text: string) => text.split("\n").filter((line) => !/^\s*value\s*=/.test(line));
    expect(keptLines(readFileSync(run.setup.paramsFile, "utf8"))).toEqual(
      keptLines(readFileSync(join(ROOT, "params.toml"), "utf8")),
    );
  });
});
