import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/config.js";
import { loadParams } from "../../src/params/params.js";
import { findRun } from "../../src/db/run-status.js";
import { readRunDetail } from "../../src/dashboard/run-detail.js";
import { renderStatus } from "../../src/status/render.js";
import { readRunStatus } from "../../src/status/snapshot.js";
import { useMigratedDatabase } from "../support/database.js";
import { writeSyntheticRun } from "../support/synthetic-run.js";

describe("the curvature pilot on spsa status and the dashboard", () => {
  const database = useMigratedDatabase(2);

  it("shows the pilot iteration (θ± against θ₀) apart, out of the plus-vs-minus Elo and its chart", async () => {
    const { sql } = database;
    const config = loadConfig("config.toml");
    expect(config.spsa.adaptive.pilot).toBe(1);
    const { runId } = await writeSyntheticRun(sql, {
      name: "piloted",
      config,
      params: loadParams("params.toml"),
      iterations: 6,
      workerName: "w",
    });
    // Iteration 1 as the master records a pilot: θ₀ as its reference engine, each side's results against it, an Elo far off.
    await sql`update spsa_iteration set reference_engine_path = '/nonexistent/theta0', reference_engine_sha256 = ${"1".repeat(64)},
      plus_wins = 0, minus_wins = 0, draws = 0, ref_plus_wins = 10, ref_plus_draws = 8, ref_plus_losses = 14, ref_minus_wins = 16, ref_minus_draws = 8, ref_minus_losses = 8, elo_diff = -381.7
      where run_id = ${runId} and iteration_number = 1`;
    const run = (await findRun(sql, "piloted"))!;

    const status = await readRunStatus(sql, run, { samples: 8 });
    expect(status.pilot.map((it) => [it.iteration, it.pilot, it.elo])).toEqual([[1, true, -381.7]]);
    expect(status.recent.map((it) => it.pilot)).toEqual([false, false, false, false, false, true]);
    const lines = renderStatus(status).split("\n");
    const elo = lines.find((line) => line.startsWith("Elo of the last iterations (plus vs minus): "));
    expect(elo).toMatch(/#2 [+-]\d+\.\d$/);
    expect(elo).not.toContain("#1 ");
    // θ+ scored 14/32 and θ− 20/32 against θ₀.
    expect(lines, lines.join("\n")).toContain(
      "curvature pilot (θ+ / θ− each against θ₀, not in the Elo above): #1 43.8% / 62.5%; Elo of θ+ over θ− #1 -381.7",
    );

    // With a master holding it and no iteration open, the master is building the next one's engines.
    await sql`update spsa_run set master_session = 's', master_host = 'box', master_pid = 4242, master_since = now(),
      master_seen_at = now(), master_expires_at = now() + interval '30 seconds' where id = ${runId}`;
    expect((await readRunStatus(sql, run, { samples: 2 })).waiting).toBe(
      "the master is building the engines of iteration 7",
    );

    // The dashboard's Elo chart (and the mean line drawn from it) starts after the pilot.
    const detail = await readRunDetail(sql, run);
    expect(detail.elo.map((point) => point.first)).toEqual([2, 3, 4, 5, 6]);
    expect(detail.status.pilot).toHaveLength(1);
  });
});
