import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/config.js";
import { loadParams } from "../../src/params/params.js";
import { findRun } from "../../src/db/run-status.js";
import { readRunStatus } from "../../src/status/snapshot.js";
import { readRunDetail } from "../../src/dashboard/run-detail.js";
import { spsa } from "../support/cli.js";
import { useMigratedDatabase } from "../support/database.js";
import { writeSyntheticOptionRun } from "../support/synthetic-option-run.js";

describe("a UCI-option run on the screens that are not its status", () => {
  const database = useMigratedDatabase(2);

  it("spsa verify refuses a batch it has not applied (exit 2), export --format csv lists its θ over the run, its latest batches name W/D/L and the worker", async () => {
    const { sql } = database;
    const config = loadConfig("config.toml");
    const params = loadParams("params.toml");
    const [{ start } = { start: new Date() }] = await sql<
      { start: Date }[]
    >`select now() - interval '1 minute' as start`;
    const { runId } = await writeSyntheticOptionRun(sql, {
      name: "opts",
      config,
      params,
      workerName: "w-opt",
      wins: [1, 3, 0, 2],
      startedAt: start,
      batchSeconds: 5,
      slots: 1,
    });
    // θ after each applied batch as the master stores it: every parameter moved by the batch's number.
    await sql`update spsa_perturbation p set theta_after = (select array_agg(v + p.applied_number order by i) from unnest(p.theta_after) with ordinality as t(v, i)) where run_id = ${runId}`;
    // The run's θ is θ after all four, as the master leaves it.
    await sql`update spsa_option_run set theta_applied = 4 where run_id = ${runId}`;
    await sql`update spsa_run r set current_parameters = (select jsonb_object_agg(o.parameter_names[t.i], t.v) from spsa_option_run o, spsa_perturbation p,
      unnest(p.theta_after) with ordinality as t(v, i) where o.run_id = r.id and p.run_id = r.id and p.applied_number = 4) where r.id = ${runId}`;
    const env = { DATABASE_URL: database.url };
    const run = (await findRun(sql, "opts"))!;

    // spsa verify counts a UCI-option run's θ in applied batches (test/verify/verify-options.test.ts plays one).
    const verify = await spsa(["verify", "--name", "opts", "--to", "9", "--games", "2"], { env });
    expect(verify.exitCode, verify.all).toBe(2);
    expect(verify.stderr.trim()).toBe('error: run "opts": has no applied batch 9 (applied: 4)');
    // Nothing was started: no verification row.
    expect((await sql`select 1 from spsa_verification`).length).toBe(0);

    const csv = await spsa(["export", "--name", "opts", "--format", "csv"], { env });
    expect(csv.exitCode, csv.all).toBe(0);
    const [header, ...rows] = csv.stdout.trim().split("\n");
    const names = params.map((p) => p.name).sort();
    expect(header).toBe(["batches", ...names].join(","));
    // θ₀, then θ after batches 1–3 from their stored rows, then the run's θ now (after 4: the stored θ after 4).
    const stored = await sql<
      { n: number; theta: number[] }[]
    >`select applied_number as n, theta_after as theta from spsa_perturbation where run_id = ${runId} order by 1`;
    const [names0] = await sql<
      { names: string[] }[]
    >`select parameter_names as names from spsa_option_run where run_id = ${runId}`;
    expect(rows.map((row) => Number(row.split(",")[0]))).toEqual([0, 1, 2, 3, 4]);
    for (const { n, theta } of stored) {
      const cells = rows[n]!.split(",");
      for (const name of names)
        expect(Number(cells[1 + names.indexOf(name)]), `${name} after ${n}`).toBe(theta[names0!.names.indexOf(name)]);
    }

    // The dashboard's configuration is the one in effect: no curvature pilot, which the mode does not play.
    const detail = await readRunDetail(sql, (await findRun(sql, "opts"))!);
    expect((run.config.spsa as { adaptive: { pilot?: number } }).adaptive.pilot).toBe(1);
    expect(detail.config.spsa).toMatchObject({ adaptive: expect.not.objectContaining({ pilot: expect.anything() }) });
    expect((detail.config.spsa as { adaptive: Record<string, unknown> }).adaptive).toHaveProperty("mode");

    const status = await readRunStatus(sql, (await findRun(sql, "opts"))!, { samples: 4 });
    expect(status.perturbations?.recent.map((b) => [b.worker, b.games, b.plusWins, b.draws, b.minusWins])).toEqual(
      [2, 0, 3, 1].map((w) => ["w-opt", config.games.batchSize, w, config.games.batchSize - w, 0]),
    );
  });
});
