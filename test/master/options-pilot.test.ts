import { describe, expect, it } from "vitest";
import { optionPilotLine } from "../../src/status/render.js";
import type { RunStatus } from "../../src/status/snapshot.js";
import type { OptionPilotRecord } from "../../src/types/spsa.js";
import { spsa } from "../support/cli.js";
import { expectConsistentRun, perturbationsOf } from "../support/options-run.js";
import { expectExactCounts, iterationsOf, startMaster, startWorker, waitFor } from "../support/processes.js";
import { referenceGames } from "../support/reference-counts.js";
import { useRunFixture } from "../support/run-fixture.js";

describe("UCI-option mode's curvature pilot on real engines", () => {
  // 32 games per iteration in batches of 4 (one unit each: θ+'s and θ−'s game pair against θ₀): a pilot of 8 batches.
  const fixture = useRunFixture({
    iterations: 2,
    games: 32,
    batchSize: 4,
    leaseSeconds: 3,
    moveLimit: "nodes = 500",
    mode: "options",
  });

  it("plays θ+ and θ− against θ₀'s options first, sets the scale from them, and a master killed mid-pilot loses and doubles nothing", async () => {
    const { setup, env, sql } = fixture;
    const pilotPlayed = async () => {
      const [row] = await sql<{ games: number; measured: boolean }[]>`
        select (select coalesce(sum(b.games), 0) from spsa_perturbation p join spsa_batch b on b.id = p.batch_id
            where p.reference_parameters is not null and b.status = 'done')::int as games,
          coalesce((select pilot is not null from spsa_option_run), false) as measured`;
      return row ?? { games: 0, measured: false };
    };
    const worker = startWorker(setup, env, "p1", ["--seed", "w"]);
    let log = "";
    try {
      const first = startMaster(setup, env, "pilot-uci", ["--seed", "s"]);
      // Killed once some of the pilot's games are reported and before it is measured.
      await waitFor(async () => (await pilotPlayed()).games >= 4, 180_000, "pilot games to be reported");
      first.kill("SIGKILL");
      const killed = await first;
      expect(killed.signal, killed.all).toBe("SIGKILL");
      log += killed.all;
      const atKill = await pilotPlayed();
      expect(atKill.measured, "the master was killed before the pilot was measured").toBe(false);
      expect(atKill.games).toBeLessThan(32);
      // Nothing but the pilot was drawn while it plays.
      const [others] = await sql<
        { n: number }[]
      >`select count(*)::int as n from spsa_perturbation where reference_parameters is null`;
      expect(others?.n).toBe(0);

      const second = await startMaster(setup, env, "pilot-uci", ["--seed", "s"]);
      log += second.all;
      expect(second.exitCode, second.all).toBe(0);
      expect(second.all).toContain("resumed run");
    } finally {
      worker.kill("SIGTERM");
      log += (await worker).all;
    }

    // Every game counted once: the carrier's counters are its batches', the pilot's 32 of them against θ₀.
    const rows = await iterationsOf(sql, "pilot-uci");
    expectExactCounts(rows, expect);
    expect(rows.map((r) => [r.target_games, referenceGames(r)])).toEqual([[64, 32]]);
    // The pilot's batches: θ₀ recorded with each draw, drawn first, measured once from exactly its games,
    // and every later batch's scale raised by its factor (expectConsistentRun replays them all).
    const perturbations = await perturbationsOf(sql, "pilot-uci");
    const pilot = perturbations.filter((p) => p.reference_parameters !== null);
    expect(pilot.filter((p) => p.status === "done").map((p) => p.games)).toEqual(Array.from({ length: 8 }, () => 4));
    await expectConsistentRun(sql, "pilot-uci", "s");
    const [stored] = await sql<{ pilot: OptionPilotRecord }[]>`select pilot from spsa_option_run`;
    if (!stored?.pilot) throw new Error("no pilot measure stored");
    expect(stored.pilot.games).toBe(32);
    const sides = stored.pilot.outcome;
    expect([sides.plus, sides.minus].map((s) => s.plusWins + s.draws + s.minusWins)).toEqual([16, 16]);
    // Measured and said once, by the master that saw its last games in.
    expect(log.match(/curvature pilot: total curvature/g)).toHaveLength(1);
    expect(log).toContain(`steps × ${stored.pilot.factor.toFixed(2)} from here on`);
    expect(log).toContain("curvature pilot: θ+ and θ− of the run's first 32 games each play θ₀");

    // spsa status: the pilot apart from the Elo of the batches, with its measure.
    const status = await spsa(["status", "--name", "pilot-uci", "--json"], { env, cwd: setup.dir });
    expect(status.exitCode, status.all).toBe(0);
    const json = JSON.parse(status.stdout) as RunStatus;
    expect(json.optionPilot).toEqual({
      pilotGames: 32,
      played: 32,
      outcome: stored.pilot.outcome,
      measure: stored.pilot,
    });
    expect(json.perturbations?.applied).toBe(perturbations.filter((p) => p.status === "done").length - 8);
    const text = await spsa(["status", "--name", "pilot-uci"], { env, cwd: setup.dir });
    expect(text.stdout).toContain(optionPilotLine(json.optionPilot!));
    expect(optionPilotLine(json.optionPilot!)).toMatch(
      /^curvature pilot \(θ\+ \/ θ− each against θ₀, not in the Elo above\): 32\/32 games, \d+\.\d% \/ \d+\.\d%; total curvature /,
    );
  }, 400_000);
});
