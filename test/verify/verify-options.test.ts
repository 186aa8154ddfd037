import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { drawOfBatch } from "../../src/db/claimed-draw.js";
import type { RunStatus } from "../../src/status/snapshot.js";
import { ROOT, SPSA_BIN, spsa } from "../support/cli.js";
import type { Theta } from "../support/options-run.js";
import { startMaster, startWorker, waitFor } from "../support/processes.js";
import { useRunFixture } from "../support/run-fixture.js";
import { verificationGames, type VerificationGames } from "../support/verification-rows.js";
import type { TuningSetup } from "../support/tuning-setup.js";

function verify(setup: TuningSetup, env: Record<string, string>, args: string[]) {
  return execa(
    "node",
    [SPSA_BIN, "--config", setup.configFile, "verify", "--params", setup.paramsFile, "--name", "uci", ...args],
    { env, cwd: ROOT, reject: false, all: true },
  );
}

/** A verification's games, and what its carrier iteration plays. */
interface VerificationCheck extends VerificationGames {
  same_to: boolean;
  same_from: boolean;
  signed: boolean;
  one_binary: boolean;
}

describe("spsa verify on a UCI-option run: θ's option values against θ₀'s, played by compete --spsa workers", () => {
  // Node-limited games and a fixed seed: the run's θ moves away from θ₀ the same way every time.
  const fixture = useRunFixture({
    iterations: 3,
    games: 8,
    batchSize: 4,
    moveLimit: "nodes = 500",
    timelow: 0.005,
    timehigh: 0.015,
    mode: "options",
  });

  async function verifications(): Promise<VerificationCheck[]> {
    const rows = await verificationGames(fixture.sql);
    const plays = await fixture.sql<(Omit<VerificationCheck, keyof VerificationGames> & { id: number })[]>`
      select v.id, i.plus_parameters = v.to_parameters as same_to, i.minus_parameters = v.from_parameters as same_from,
        i.options_signature is not null as signed,
        i.plus_engine_sha256 = o.engine_sha256 and i.minus_engine_sha256 = o.engine_sha256 as one_binary
      from spsa_verification v join spsa_iteration i on i.run_id = v.carrier_run_id
      join spsa_option_run o on o.run_id = v.run_id`;
    return rows.map((row) => ({ ...row, ...plays.find((p) => p.id === row.id)! }));
  }

  it("plays the run's current θ against θ₀ with the run's one binary, and resumes a killed verify without counting a game twice", async () => {
    const { setup, env, sql } = fixture;
    const worker = startWorker(setup, env, "o1", ["--seed", "w"]);
    try {
      const master = await startMaster(setup, env, "uci", ["--seed", "s"]);
      expect(master.exitCode, master.all).toBe(0);
      const [run] = await sql<{ initial: Theta; current: Theta }[]>`
        select initial_parameters as initial, current_parameters as current from spsa_run where name = 'uci'`;
      expect(run?.current).not.toEqual(run?.initial);

      // Killed once its workers have played some of its games, then run again: it resumes the same verification.
      const first = verify(setup, env, ["--games", "24"]);
      await waitFor(
        async () => ((await verifications())[0]?.games_played ?? 0) > 0,
        120_000,
        "the verification's first games",
      );
      first.kill("SIGKILL");
      expect((await first).signal).toBe("SIGKILL");
      const [killed] = await verifications();
      expect(killed?.status).toBe("running");

      const again = await verify(setup, env, ["--games", "24"]);
      expect(again.exitCode, again.all).toBe(0);
      expect(again.all).toMatch(
        new RegExp(
          `resuming verification ${killed?.id} of run "uci": current vs start at 500 nodes per move, \\d+ games played`,
        ),
      );
      expect(again.all).toMatch(/games 24\/24 {2}\+\d+ -\d+ =\d+ {2}Elo [+-]\d+\.\d/);
    } finally {
      worker.kill("SIGTERM");
      await worker;
    }

    const rows = await verifications();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toEqual({
      id: rows[0]?.id,
      stage: null,
      status: "complete",
      from_label: "start",
      to_label: "current",
      target_games: 24,
      games_played: 24,
      results: 24,
      batch_games: 24,
      same_to: true,
      same_from: true,
      options_run: true,
      signed: true,
      one_binary: true,
    });
    // The values a worker's claim reads for each batch: θ now on the plus side, θ₀ on the minus side,
    // with the run's parameter list, signed for the verification's carrier run.
    const [compared] = await sql<{ from: Theta; to: Theta; batch: number }[]>`
      select v.from_parameters as from, v.to_parameters as to, min(b.id)::int as batch
      from spsa_verification v join spsa_iteration i on i.run_id = v.carrier_run_id join spsa_batch b on b.iteration_id = i.id
      group by v.id`;
    const draw = await drawOfBatch(sql, compared?.batch ?? 0);
    expect(draw?.plus).toEqual(compared?.to);
    expect(draw?.minus).toEqual(compared?.from);
    expect(Object.keys(draw?.parameters ?? {}).sort()).toEqual(Object.keys(compared?.to ?? {}).sort());
    expect(draw?.signature).toEqual(expect.any(String));
  }, 400_000);

  it("plays θ after K applied batches, stops handing out games once the SPRT decides, and shows it in spsa status", async () => {
    const { setup, env, sql } = fixture;
    const worker = startWorker(setup, env, "o2", ["--seed", "w"]);
    try {
      // alpha = beta = 0.5 puts both SPRT bounds at 0: the first reported pair decides.
      const result = await verify(setup, env, [
        "--from",
        "1",
        "--to",
        "current",
        "--games",
        "200",
        "--sprt",
        "0",
        "5",
        "0.5",
        "0.5",
      ]);
      expect(result.exitCode, result.all).toBe(0);
      expect(result.all).toMatch(
        /verification \d+ of run "uci": current vs batch 1 at 500 nodes per move, up to 200 games/,
      );
    } finally {
      worker.kill("SIGTERM");
      await worker;
    }
    const [row] = await sql<{ verdict: string; status: string; played: number; from: Theta; stored: Theta }[]>`
      select v.verdict, v.status, i.games_played as played, v.from_parameters as from,
        (select jsonb_object_agg(o.parameter_names[t.i], t.v) from spsa_option_run o, spsa_perturbation p,
          unnest(p.theta_after) with ordinality as t(v, i)
          where o.run_id = v.run_id and p.run_id = v.run_id and p.applied_number = 1) as stored
      from spsa_verification v join spsa_iteration i on i.run_id = v.carrier_run_id
      where v.from_label = 'batch 1'`;
    expect(row?.status).toBe("complete");
    expect(row?.verdict).toMatch(/^H[01]$/);
    expect(row?.played).toBeGreaterThanOrEqual(2);
    expect(row?.played).toBeLessThan(200);
    // θ after the first applied batch, as the master stored it after that batch.
    expect(row?.stored).toBeTruthy();
    expect(row?.from).toEqual(row?.stored);

    const json = JSON.parse((await spsa(["status", "--name", "uci", "--json"], { env })).stdout) as RunStatus;
    expect(json.verifications.map((v) => [v.comparison, v.status])).toEqual(
      expect.arrayContaining([
        ["current vs start", "complete"],
        ["current vs batch 1", "complete"],
      ]),
    );
    const text = await spsa(["status", "--name", "uci"], { env });
    expect(text.stdout).toMatch(
      /^verification \d+: current vs batch 1 at 500 nodes per move, complete, \d+\/\d+ games/m,
    );
  }, 300_000);
});
