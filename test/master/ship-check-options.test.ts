import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadParams } from "../../src/params/params.js";
import type { RunStatus } from "../../src/status/snapshot.js";
import { spsa } from "../support/cli.js";
import { startMaster, startWorker } from "../support/processes.js";
import { useRunFixture } from "../support/run-fixture.js";
import { verificationGames, type VerificationGames as StageRow } from "../support/verification-rows.js";

describe("the ship check at the end of a UCI-option run", () => {
  // Node-limited games from a seeded worker and a fixed seed: the same run every time.
  const fixture = useRunFixture({
    iterations: 2,
    games: 8,
    batchSize: 4,
    moveLimit: "nodes = 500",
    timelow: 0.005,
    timehigh: 0.015,
    mode: "options",
    ownBuilds: true,
    extraConfig: "[ship]\nnodes = 300\nmax_games = 16\n",
  });

  async function stagesOf(): Promise<StageRow[]> {
    return verificationGames(fixture.sql, true);
  }

  it("tests the final θ against the start θ at the ship limits, through a master killed with -9 in the middle of it", async () => {
    const { setup, env, sql } = fixture;
    const worker = startWorker(setup, env, "so1", ["--seed", "w"]);
    let before: StageRow | undefined;
    try {
      const crashed = await startMaster(setup, { ...env, SPSA_CRASH_AT: "ship-final-waiting" }, "shipopt", [
        "--seed",
        "s",
      ]);
      expect(crashed.signal, crashed.all).toBe("SIGKILL");
      expect(crashed.all).toMatch(/ship check of run "shipopt" at 300 nodes per move: candidates final θ\n/);
      expect(crashed.all).toMatch(/ship check, final: final θ vs start θ, up to 16 games/);
      const [running] = await sql<{ status: string }[]>`select status from spsa_ship_check`;
      expect(running?.status).toBe("running");
      [before] = await stagesOf();
      expect(before).toMatchObject({ stage: "final", status: "running", options_run: true });
      expect(before?.games_played).toBeGreaterThan(0);
      expect(before?.games_played).toBeLessThan(16);

      const finished = await startMaster(setup, env, "shipopt", ["--seed", "s"]);
      expect(finished.exitCode, finished.all).toBe(0);
      expect(finished.all).toMatch(/ship check of run "shipopt" resumed/);
      expect(finished.all).toMatch(/ship check, final: final θ vs start θ, resumed at \d+ games/);
      expect(finished.all).toMatch(/ship check at 300 nodes per move: final θ vs start θ, undecided at max_games/);
    } finally {
      worker.kill("SIGTERM");
      await worker;
    }

    // The match the killed master started is the one played on: every game counted once.
    const stages = await stagesOf();
    expect(stages).toEqual([
      {
        ...before,
        status: "complete",
        target_games: 16,
        games_played: 16,
        results: 16,
        batch_games: 16,
      },
    ]);
    const [check] = await sql<
      { status: string; verdict: string; games: number; chosen: string; chosen_parameters: Record<string, number> }[]
    >`select status, verdict, games, chosen, chosen_parameters from spsa_ship_check`;
    // Sixteen games cannot decide an SPRT of [0, 5] at 5 %: undecided at max_games.
    expect(check).toMatchObject({ status: "complete", verdict: "undecided", games: 16, chosen: "final θ" });
    const [run] = await sql<{ current: Record<string, number>; status: string }[]>`
      select current_parameters as current, status from spsa_run where name = 'shipopt'`;
    expect(run?.status).toBe("complete");
    expect(check?.chosen_parameters).toEqual(run?.current);
    expect(Object.fromEntries(loadParams(setup.paramsFile).map((p) => [p.name, p.value]))).toEqual(
      check?.chosen_parameters,
    );
    // The run complete and its check over, nothing can run its engine: its folder is gone.
    expect(existsSync(join(setup.dir, "builds", "shipopt"))).toBe(false);

    // A master started again on the complete run plays nothing more.
    const done = await startMaster(setup, env, "shipopt", ["--seed", "s"]);
    expect(done.exitCode, done.all).toBe(0);
    expect(done.all).toMatch(/ship check at 300 nodes per move: final θ vs start θ, undecided at max_games/);
    expect(await stagesOf()).toHaveLength(1);

    const json = JSON.parse((await spsa(["status", "--name", "shipopt", "--json"], { env })).stdout) as RunStatus;
    expect(json.ship).toMatchObject({ status: "complete", verdict: "undecided", games: 16 });
  }, 400_000);

  it("spsa export --constants says in one line that a UCI-option run has no constants file, and what to use", async () => {
    const { setup, env } = fixture;
    const out = join(setup.dir, "exported.rs");
    const line =
      "a UCI-option run has no constants file (its parameters are UCI options): use --format csv (θ by option " +
      "over the run), or --format openbench or --format fishtest (the tuned values as those tools' lines)";
    const exported = await spsa(
      ["--config", setup.configFile, "export", "--params", setup.paramsFile, "--name", "shipopt", "--constants", out],
      { env },
    );
    expect(exported.exitCode, exported.all).toBe(2);
    expect(exported.stderr.trim()).toBe(`error: --constants: ${line}`);
    // A config in build mode names the run: the run's own rows say what it is.
    const buildConfig = join(setup.dir, "build-mode.toml");
    writeFileSync(buildConfig, readFileSync(setup.configFile, "utf8").replace('mode = "options"', 'mode = "build"'));
    const named = await spsa(["--config", buildConfig, "export", "--name", "shipopt", "--constants", out], { env });
    expect(named.exitCode, named.all).toBe(2);
    expect(named.stderr.trim()).toBe(`error: run "shipopt": ${line}`);
    expect(existsSync(out)).toBe(false);
    // What it points to works.
    const lines = await spsa(["--config", setup.configFile, "export", "--name", "shipopt", "--format", "openbench"], {
      env,
    });
    expect(lines.exitCode, lines.all).toBe(0);
    expect(lines.stdout).toMatch(/^KNIGHT_VALUE_MG, int, \d+, 250, 400, /m);
  });
});
