import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadParams } from "../../src/params/params.js";
import type { RunStatus } from "../../src/status/snapshot.js";
import { spsa } from "../support/cli.js";
import { startMaster, startWorker } from "../support/processes.js";
import { useRunFixture } from "../support/run-fixture.js";
import { verificationGames, type VerificationGames as StageRow } from "../support/verification-rows.js";

describe("the ship check at the end of a build-mode run", () => {
  // Node-limited games from a seeded worker: the run's θ, and so its candidates, are the same every time.
  const fixture = useRunFixture({
    iterations: 3,
    games: 4,
    batchSize: 2,
    moveLimit: "nodes = 1000",
    extraConfig: "[ship]\nnodes = 300\nelimination_games = 8\nmax_games = 16\ntail = 1\n",
  });

  it("survives a kill -9 of the master in each of its matches, and records its verdict with exact game counts", async () => {
    const { setup, env, sql } = fixture;
    const worker = startWorker(setup, env, "s1", ["--seed", "w"]);
    let stagesBefore: StageRow[];
    let finalBefore: StageRow | undefined;
    try {
      const crashed = await startMaster(setup, { ...env, SPSA_CRASH_AT: "ship-elimination-waiting" }, "shipped", [
        "--seed",
        "s",
      ]);
      expect(crashed.signal, crashed.all).toBe("SIGKILL");
      expect(crashed.all).toMatch(
        /ship check of run "shipped" at 300 nodes per move: candidates final θ; tail average of the last 3 of 3 iterations/,
      );
      const [running] = await sql<
        { status: string; verdict: string | null }[]
      >`select status, verdict from spsa_ship_check`;
      expect(running).toEqual({ status: "running", verdict: null });
      stagesBefore = await stagesOf();
      expect(stagesBefore.map((s) => [s.stage, s.status])).toEqual([["elimination 1", "running"]]);
      expect(stagesBefore[0]?.games_played).toBeGreaterThan(0);

      // Killed again in the test against the start θ, after the resumed elimination completed.
      const again = await startMaster(setup, { ...env, SPSA_CRASH_AT: "ship-final-waiting" }, "shipped", [
        "--seed",
        "s",
      ]);
      expect(again.signal, again.all).toBe("SIGKILL");
      expect(again.all).toMatch(/ship check of run "shipped" resumed/);
      expect(again.all).toMatch(
        /ship check, elimination 1: tail average of the last 3 of 3 iterations vs final θ, resumed at \d+ games/,
      );
      finalBefore = (await stagesOf()).find((s) => s.stage === "final");
      expect(finalBefore?.status).toBe("running");

      const finished = await startMaster(setup, env, "shipped", ["--seed", "s"]);
      expect(finished.exitCode, finished.all).toBe(0);
      expect(finished.all).toMatch(
        /ship check, final: (final θ|tail average of the last 3 of 3 iterations) vs start θ, resumed at \d+ games/,
      );
      expect(finished.all).toMatch(
        /warning: the shipped candidate did not pass its test against the start θ \(undecided\)/,
      );
    } finally {
      worker.kill("SIGTERM");
      await worker;
    }

    // The match the killed master started is the one played on: no stage twice, every game counted once.
    const stages = await stagesOf();
    expect(stages.map((s) => [s.stage, s.status])).toEqual([
      ["elimination 1", "complete"],
      ["final", "complete"],
    ]);
    expect(stages[0]?.id).toBe(stagesBefore[0]?.id);
    expect(stages[1]?.id).toBe(finalBefore?.id);
    const [elimination, final] = stages as [StageRow, StageRow];
    expect(elimination).toMatchObject({
      from_label: "final θ",
      to_label: "tail average of the last 3 of 3 iterations",
      target_games: 8,
      games_played: 8,
      results: 8,
      batch_games: 8,
    });
    // Sixteen games cannot decide an SPRT of [0, 5] at 5 %: undecided at max_games.
    expect(final).toMatchObject({
      from_label: "start θ",
      target_games: 16,
      games_played: 16,
      results: 16,
      batch_games: 16,
    });

    const [check] = await sql<
      {
        status: string;
        verdict: string;
        games: number;
        chosen: string;
        elimination: {
          holder: string;
          challenger: string;
          winner: string;
          wins: number;
          losses: number;
          draws: number;
        }[];
        chosen_is_final: boolean;
        chosen_parameters: Record<string, number>;
      }[]
    >`
      select s.status, s.verdict, s.games, s.chosen, s.elimination, s.chosen_parameters,
        s.chosen_parameters = (select to_parameters from spsa_verification where ship_check_id = s.id and ship_stage = 'final') as chosen_is_final
      from spsa_ship_check s`;
    expect(check).toMatchObject({
      status: "complete",
      verdict: "undecided",
      games: 16,
      chosen: final.to_label,
      chosen_is_final: true,
    });
    const match = check?.elimination[0];
    expect((match?.wins ?? 0) + (match?.losses ?? 0) + (match?.draws ?? 0)).toBe(8);
    expect(match?.winner).toBe(final.to_label);
    // The challenger (the tail average) goes on only by scoring more.
    expect(match?.winner).toBe((match?.wins ?? 0) > (match?.losses ?? 0) ? match?.challenger : match?.holder);
    // params.toml holds the chosen candidate.
    expect(Object.fromEntries(loadParams(setup.paramsFile).map((p) => [p.name, p.value]))).toEqual(
      check?.chosen_parameters,
    );

    // A master started again on the complete run plays nothing more.
    const done = await startMaster(setup, env, "shipped", ["--seed", "s"]);
    expect(done.exitCode, done.all).toBe(0);
    expect(done.all).toMatch(
      /ship check at 300 nodes per move: .* vs start θ, undecided at max_games \[0, 5\], Elo [+-]\d+\.\d ± (\d+\.\d|inf) \(95%\), 16 games/,
    );
    expect((await stagesOf()).length).toBe(2);
  });

  it("shows the verdict in spsa status and warns in spsa export", async () => {
    const { setup, env } = fixture;
    const text = await spsa(["status", "--name", "shipped"], { env });
    expect(text.stdout).toMatch(/^ship check at 300 nodes per move: .* vs start θ, undecided at max_games \[0, 5\]/m);
    const json = JSON.parse((await spsa(["status", "--name", "shipped", "--json"], { env })).stdout) as RunStatus;
    expect(json.ship).toMatchObject({
      status: "complete",
      verdict: "undecided",
      games: 16,
      limitsText: "300 nodes per move",
    });

    const constants = join(setup.dir, "exported.rs");
    const exported = await spsa(
      [
        "--config",
        setup.configFile,
        "export",
        "--params",
        setup.paramsFile,
        "--name",
        "shipped",
        "--constants",
        constants,
      ],
      { env },
    );
    expect(exported.exitCode, exported.all).toBe(0);
    expect(exported.stderr).toMatch(
      /^warning: run "shipped": the ship check's candidate .* did not pass its test against the start θ \(undecided at max_games\)/m,
    );
    expect(readFileSync(constants, "utf8")).toMatch(/^\/\/ spsa ship check: .* did not pass .*undecided at max_games/m);
    const lines = await spsa(["--config", setup.configFile, "export", "--name", "shipped", "--format", "openbench"], {
      env,
    });
    expect(lines.stdout).toMatch(/^# spsa ship check: .* did not pass/m);
  });

  it("refuses a [ship] section without a limit, naming the key, before anything is built", async () => {
    const { setup, env, sql } = fixture;
    const configFile = join(setup.dir, "no-limit.toml");
    writeFileSync(configFile, readFileSync(setup.configFile, "utf8").replace("nodes = 300\n", ""));
    const result = await startMaster({ ...setup, configFile }, env, "never");
    expect(result.exitCode, result.all).toBe(2);
    expect(result.stderr).toMatch(
      /no-limit\.toml: \[ship\]\.max_games \(line \d+\): needs the limit the engine ships with: set tc, nodes, depth or timelow\/timehigh in \[ship\]/,
    );
    expect(await sql`select 1 from spsa_run where name = 'never'`).toHaveLength(0);
  });

  async function stagesOf(): Promise<StageRow[]> {
    return verificationGames(fixture.sql, true);
  }
});

describe("a ship check whose SPRT decides", () => {
  // alpha = beta = 0.5 puts both SPRT bounds at 0: the first reported pair decides.
  const fixture = useRunFixture({
    iterations: 2,
    games: 4,
    batchSize: 2,
    moveLimit: "nodes = 1000",
    extraConfig: "[ship]\ndepth = 3\nelimination_games = 0\nalpha = 0.5\nbeta = 0.5\nmax_games = 200\n",
  });

  it("with no elimination tests the run's own result, stops handing out games once decided, and records pass or fail", async () => {
    const { setup, env, sql } = fixture;
    const worker = startWorker(setup, env, "d1", ["--seed", "w"]);
    try {
      const master = await startMaster(setup, env, "decided", ["--seed", "d"]);
      expect(master.exitCode, master.all).toBe(0);
      expect(master.all).toMatch(/ship check, final: final θ vs start θ, up to 200 games/);
    } finally {
      worker.kill("SIGTERM");
      await worker;
    }
    const [check] = await sql<
      {
        status: string;
        verdict: string;
        games: number;
        chosen: string;
        elimination: unknown[];
        stages: string[];
        played: number;
        llr: number;
      }[]
    >`
      select s.status, s.verdict, s.games, s.chosen, s.elimination, s.llr,
        array(select ship_stage from spsa_verification where ship_check_id = s.id) as stages,
        (select i.games_played from spsa_verification v join spsa_iteration i on i.run_id = v.carrier_run_id where v.ship_check_id = s.id) as played
      from spsa_ship_check s`;
    expect(check).toMatchObject({ status: "complete", chosen: "final θ", elimination: [], stages: ["final"] });
    // Both bounds at 0: H1 (pass) at an LLR of 0 or more, H0 (fail) below.
    expect(check?.verdict).toBe(check && check.llr >= 0 ? "pass" : "fail");
    expect(check?.games).toBe(check?.played);
    expect(check?.games).toBeGreaterThanOrEqual(2);
    expect(check?.games).toBeLessThan(200);
  });
});
