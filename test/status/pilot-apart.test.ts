import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/config.js";
import { loadParams } from "../../src/params/params.js";
import { findRun } from "../../src/db/run-status.js";
import { readRunDetail } from "../../src/dashboard/run-detail.js";
import { renderStatus } from "../../src/status/render.js";
import { readRunStatus } from "../../src/status/snapshot.js";
import { useMigratedDatabase } from "../support/database.js";
import { writeSyntheticRun } from "../support/synthetic-run.js";
import { writeSyntheticOptionRun } from "../support/synthetic-option-run.js";

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
    // A master whose lease lapsed (stopped with SIGSTOP mid-build, say) builds nothing.
    await sql`update spsa_run set master_seen_at = now() - interval '40 seconds',
      master_expires_at = now() - interval '10 seconds' where id = ${runId}`;
    expect((await readRunStatus(sql, run, { samples: 2 })).waiting).toBe(
      "its master missed its heartbeats (last seen 40 s ago): stopped or stalled; a master started now takes the run over",
    );

    // The dashboard's Elo chart (and the mean line drawn from it) starts after the pilot.
    const detail = await readRunDetail(sql, run);
    expect(detail.elo.map((point) => point.first)).toEqual([2, 3, 4, 5, 6]);
    expect(detail.status.pilot).toHaveLength(1);
  });

  it("shows a UCI-option run's pilot batches pooled, apart from the Elo of its batches, and its measure once stored", async () => {
    const { sql } = database;
    const config = loadConfig("config.toml");
    const { runId, iterationId } = await writeSyntheticOptionRun(sql, {
      name: "piloted-options",
      config,
      params: loadParams("params.toml"),
      workerName: "w",
      wins: [1, 3],
      startedAt: new Date(Date.now() - 60_000),
      batchSeconds: 5,
      slots: 1,
    });
    await sql`update spsa_option_run set pilot_games = 16 where run_id = ${runId}`;
    // Two pilot batches of 8 as the master draws them (θ₀ recorded with the draw) and workers report them: θ+ 4.5/8, θ− 2/8 against θ₀ in all.
    const theta0 =
      (
        await sql<
          { t: number[] }[]
        >`select array_agg(0) as t from spsa_option_run o, unnest(o.parameter_names) where run_id = ${runId}`
      )[0]?.t ?? [];
    for (const [i, [pw, pd, pl, mw, md, ml]] of [
      [2, 2, 0, 1, 1, 2],
      [1, 1, 2, 0, 1, 3],
    ].entries()) {
      const [batch] = await sql<{ id: number }[]>`
        insert into spsa_batch (iteration_id, games, games_before, status, worker_name, claimed_at, lease_expires_at, reported_at, plus_wins, minus_wins, draws, pairs,
          ref_plus_wins, ref_plus_draws, ref_plus_losses, ref_minus_wins, ref_minus_draws, ref_minus_losses)
        values (${iterationId}, 8, ${8 * i}, 'done', 'w', now(), now(), now(), 0, 0, 0, '[0, 0, 4, 0, 0]', ${pw!}, ${pd!}, ${pl!}, ${mw!}, ${md!}, ${ml!}) returning id::int`;
      await sql`insert into spsa_perturbation (batch_id, run_id, batch_number, draw_number, games, k, c_k, a_k, drawn_from, signs, reference_parameters, worker_name)
        values (${batch!.id}, ${runId}, ${batch!.id}, ${batch!.id}, 8, 1, 1, 1, 0, '0'::varbit, ${sql.json(theta0)}, 'w')`;
    }
    const run = (await findRun(sql, "piloted-options"))!;
    const live = await readRunStatus(sql, run, { samples: 4 });
    expect(live.optionPilot).toEqual({
      pilotGames: 16,
      played: 16,
      outcome: { plus: { plusWins: 3, draws: 3, minusWins: 2 }, minus: { plusWins: 1, draws: 2, minusWins: 5 } },
      measure: null,
    });
    // Not among the applied batches, nor in their Elo.
    expect(live.perturbations?.applied).toBe(2);
    const lines = renderStatus(live).split("\n");
    expect(lines, lines.join("\n")).toContain(
      "curvature pilot (θ+ / θ− each against θ₀, not in the Elo above): 16/16 games, 56.3% / 25.0%",
    );

    const measure = {
      curvature: 3.125,
      error: 2.5,
      saturated: false,
      factor: 4,
      games: 16,
      outcome: live.optionPilot?.outcome,
    };
    await sql`update spsa_option_run set pilot = ${sql.json(JSON.parse(JSON.stringify(measure)))} where run_id = ${runId}`;
    const detail = await readRunDetail(sql, run);
    expect(detail.status.optionPilot?.measure).toEqual(measure);
    expect(detail.optionPilot).toBe(
      "curvature pilot (θ+ / θ− each against θ₀, not in the Elo above): 16/16 games, 56.3% / 25.0%; total curvature 3.13 ± 5.00 Elo per step², steps × 4.00",
    );
    // The run plays its pilot: the dashboard's configuration keeps adapt_pilot.
    expect(detail.config.spsa).toMatchObject({ adaptive: { pilot: 1 } });
  });
});
