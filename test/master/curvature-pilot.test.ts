import { readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { DEFAULT_ADAPTIVE } from "../../src/config/config.js";
import { recordedParams } from "../../src/config/iteration-settings.js";
import { verifyBinary } from "../../src/signing/binary-signature.js";
import { stepScales } from "../../src/spsa/adaptive.js";
import { update } from "../../src/spsa/math.js";
import { pilotMeasure, pilotScale, spreadSquared } from "../../src/spsa/pilot.js";
import { startMaster, startWorker } from "../support/processes.js";
import type { RecordedIteration } from "../support/iterations.js";
import { outcomeOf as outcomeAgainst, type ReferenceCounts } from "../support/reference-counts.js";
import { replayChain } from "../support/replay-chain.js";
import { useRunFixture } from "../support/run-fixture.js";
import { localTrust } from "../support/signing.js";
import type { IterationOutcome, ReferenceResult } from "../../src/types/spsa.js";

interface PilotRow extends RecordedIteration, ReferenceCounts {
  c_k: number;
  reference_engine_path: string | null;
  reference_engine_sha256: string | null;
  reference_engine_signature: string | null;
  run_id: number;
}

const outcomeOf = (row: PilotRow): IterationOutcome => outcomeAgainst(row, row.reference_engine_sha256 !== null);

describe("the curvature pilot on real engines", () => {
  // Games at a node limit from a seeded worker: the same results every time.
  const fixture = useRunFixture({ iterations: 3, games: 8, batchSize: 4, moveLimit: "nodes = 1000" });

  it("plays θ+ and θ− of the first iteration against θ₀, then scales every later step by what they lost, and a killed master replays it", async () => {
    const { setup, env, sql } = fixture;
    writeFileSync(
      setup.configFile,
      readFileSync(setup.configFile, "utf8").replace(
        "max_iterations = 3",
        "max_iterations = 3\nadapt_window = 2\nadapt_floor = 0.5",
      ),
    );
    const workers = [startWorker(setup, env, "a", ["--seed", "w"])];
    let log = "";
    try {
      // Killed while the pilot's games are played, then again in iteration 2.
      const first = await startMaster(setup, { ...env, SPSA_CRASH_AT: "waiting" }, "pilot", ["--seed", "p"]);
      expect(first.signal, first.all).toBe("SIGKILL");
      log += first.all;
      const second = await startMaster(setup, env, "pilot", ["--seed", "p"]);
      expect(second.exitCode, second.all).toBe(0);
      log += second.all;
    } finally {
      for (const worker of workers) worker.kill("SIGTERM");
      await Promise.all(workers);
    }

    const rows = await sql<PilotRow[]>`
      select i.iteration_number, i.a_k, i.c_k, i.base_parameters, i.plus_parameters, i.minus_parameters, i.plus_wins, i.minus_wins, i.draws,
        i.games_played, i.settings, i.elo_diff, i.reference_engine_path, i.reference_engine_sha256, i.reference_engine_signature,
        i.ref_plus_wins, i.ref_plus_draws, i.ref_plus_losses, i.ref_minus_wins, i.ref_minus_draws, i.ref_minus_losses, i.run_id
      from spsa_iteration i join spsa_run r on r.id = i.run_id where r.name = 'pilot' order by i.iteration_number`;
    const [run] = await sql<
      {
        id: number;
        uid: string;
        initial_parameters: Record<string, number>;
        current_parameters: Record<string, number>;
      }[]
    >`
      select id, uid, initial_parameters, current_parameters from spsa_run where name = 'pilot'`;
    if (!run) throw new Error("no run");
    expect(rows.map((r) => r.iteration_number)).toEqual([1, 2, 3]);
    const [pilot, ...after] = rows;
    if (!pilot) throw new Error("no pilot iteration");

    // Iteration 1 is the pilot: both sides played a signed θ₀, four games each, and no plus-vs-minus game.
    expect(pilot.reference_engine_sha256).not.toBeNull();
    expect(
      verifyBinary(
        localTrust(),
        { runUid: run.uid, iterationNumber: 1, role: "reference", sha256: pilot.reference_engine_sha256 ?? "" },
        pilot.reference_engine_signature,
      ),
    ).toBe(true);
    expect([
      pilot.ref_plus_wins + pilot.ref_plus_draws + pilot.ref_plus_losses,
      pilot.ref_minus_wins + pilot.ref_minus_draws + pilot.ref_minus_losses,
    ]).toEqual([4, 4]);
    expect(pilot.plus_wins + pilot.minus_wins + pilot.draws).toBe(0);
    expect(pilot.settings.pilot).toBeUndefined();
    // The later iterations play plus against minus.
    for (const row of after) expect(row.reference_engine_sha256, `iteration ${row.iteration_number}`).toBeNull();

    // Their scales: the adaptive ones raised by the pilot's factor, as recorded; the measure is the pilot's.
    const steps = Object.fromEntries(Object.entries(pilot.settings.parameters).map(([name, p]) => [name, p.step]));
    const expectedPilot = pilotMeasure([
      {
        outcome: outcomeOf(pilot) as ReferenceResult,
        spreadSquared: spreadSquared(steps, pilot.plus_parameters, pilot.minus_parameters),
      },
    ]);
    // These games speed the run up (a factor near 3), so the scales below check the factor itself.
    expect(expectedPilot.factor).toBeGreaterThan(1);
    const measured = rows.map((r) => ({ elo: r.elo_diff ?? Number.NaN, result: outcomeOf(r) }));
    // Steps in order; an iteration opened in flight was drawn, and its scales chosen, `staleness` steps behind.
    // Iteration 2 waits for the pilot: its scale holds the pilot's factor.
    expect(rows[1]?.settings.staleness, "staleness of iteration 2").toBeUndefined();
    const final = replayChain(
      rows,
      run.initial_parameters,
      (row) => row.settings.staleness ?? 0,
      (row, applied, theta) => {
        const i = row.iteration_number - 1;
        const names = Object.keys(row.settings.parameters);
        const adaptive = stepScales(measured.slice(Math.max(0, applied - 2), applied), names, {
          mode: "signal",
          window: 2,
          floor: 0.5,
        });
        const expected =
          i === 0
            ? adaptive
            : Object.fromEntries(
                Object.entries(adaptive).map(([n, s]) => [
                  n,
                  pilotScale(s, { floor: 0.5, lift: DEFAULT_ADAPTIVE.lift }, expectedPilot.factor),
                ]),
              );
        expect(row.settings.stepScale, `step scales of iteration ${row.iteration_number}`).toEqual(expected);
        if (i > 0) expect(row.settings.pilot, `pilot of iteration ${row.iteration_number}`).toEqual(expectedPilot);
        return update(
          recordedParams(row.settings, theta),
          { ak: row.a_k, plus: row.plus_parameters, minus: row.minus_parameters, scale: expected },
          outcomeOf(row),
          row.settings.spsa,
        ).newValues;
      },
      expect,
    );
    for (const [name, value] of Object.entries(final))
      expect(run.current_parameters[name], `${name} at the end`).toBeCloseTo(value, 12);
    // … and perturb wider by it (adapt_widen = 1): c_k·k^γ is the pilot's c_k times the factor.
    const { gamma } = pilot.settings.spsa;
    for (const row of after)
      expect((row.c_k * row.iteration_number ** gamma) / pilot.c_k, `c_k of ${row.iteration_number}`).toBeCloseTo(
        expectedPilot.factor,
        9,
      );
    expect(log).toContain("curvature pilot: θ+ and θ− of its first 1 iteration(s) each play θ₀");
    expect(log).toMatch(
      new RegExp(
        "curvature pilot: total curvature (-?[\\d.]+ ± [\\d.]+ Elo per step²|too large to measure " +
          "\\(θ\\+ or θ− lost over 250 Elo to θ₀\\)); steps × [\\d.]+ from here on" +
          // Its factor over 1 lifts the floor (adapt_floor 0.5 here, adapt_lift 1.5 by default).
          ", the least scale [\\d.]+ instead of 0\\.5 \\(.+\\)",
      ),
    );
  }, 300_000);

  it("says once why it does not run when an iteration's games are not units of four, and steps as before", async () => {
    const { setup, env } = fixture;
    writeFileSync(
      setup.configFile,
      readFileSync(setup.configFile, "utf8")
        .replace("batch_size = 4", "batch_size = 2")
        .replace("max_iterations = 3", "max_iterations = 1"),
    );
    const workers = [startWorker(setup, env, "b", ["--seed", "w"])];
    try {
      const finished = await startMaster(setup, env, "no-pilot", ["--seed", "p"]);
      expect(finished.exitCode, finished.all).toBe(0);
      expect(
        finished.all.match(/no curvature pilot: \[games\] games_per_iteration and batch_size must be multiples of 4/g),
      ).toHaveLength(1);
    } finally {
      for (const worker of workers) worker.kill("SIGTERM");
      await Promise.all(workers);
    }
    const [row] = await fixture.sql<{ reference_engine_sha256: string | null }[]>`
      select i.reference_engine_sha256 from spsa_iteration i join spsa_run r on r.id = i.run_id where r.name = 'no-pilot'`;
    expect(row?.reference_engine_sha256).toBeNull();
  }, 300_000);
});
