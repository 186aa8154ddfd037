import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import type { VerificationResult } from "../../src/db/run-status.js";
import type { RunStatus } from "../../src/status/snapshot.js";
import { ROOT, SPSA_BIN, spsa } from "../support/cli.js";
import { startMaster, startWorker } from "../support/processes.js";
import { useRunFixture } from "../support/run-fixture.js";
import type { TuningSetup } from "../support/tuning-setup.js";

function verify(setup: TuningSetup, env: Record<string, string>, args: string[]) {
  return execa(
    "node",
    [SPSA_BIN, "--config", setup.configFile, "verify", "--params", setup.paramsFile, "--name", "tuned", ...args],
    {
      env,
      cwd: ROOT,
      reject: false,
      all: true,
    },
  );
}

/** A row of spsa_verification_result. */
type ResultRow = VerificationResult;

describe("spsa verify: start against current θ, played by compete --spsa workers", () => {
  // Node-limited games from seeded workers: the run's results, and so whether its θ moved
  // away from the start (checked below through the engines' hashes), are the same every time.
  const fixture = useRunFixture({ iterations: 2, games: 4, batchSize: 2, moveLimit: "nodes = 1000" });

  it("builds both engines, has a worker play a fixed number of games, and stores the outcome", async () => {
    const { setup, env, sql } = fixture;
    const worker = startWorker(setup, env, "v1", ["--seed", "w"]);
    try {
      const master = await startMaster(setup, env, "tuned", ["--seed", "v"]);
      expect(master.exitCode, master.all).toBe(0);
      const result = await verify(setup, env, ["--games", "8"]);
      expect(result.exitCode, result.all).toBe(0);
      expect(result.all).toMatch(
        /verification 1 of run "tuned": current vs start at 1000 nodes per move, up to 8 games; workers play it as tuned\/verify-1/,
      );
      expect(result.all).toMatch(
        /games 8\/8 {2}\+\d+ -\d+ =\d+ {2}Elo [+-]\d+\.\d \(4 pairs: too few for an error bar\), LOS \d+\.\d%/,
      );

      const [row] = await sql<ResultRow[]>`select * from spsa_verification_result`;
      expect(row).toMatchObject({ comparison: "current vs start", status: "complete", games: "8/8", verdict: null });
      expect((row?.wins ?? 0) + (row?.losses ?? 0) + (row?.draws ?? 0)).toBe(8);
      // The engines are the run's θ: "to" is the current θ, "from" the initial one.
      const [compared] = await sql<
        { same_to: boolean; same_from: boolean; carrier_status: string; plus: string; minus: string }[]
      >`
        select v.to_parameters = r.current_parameters as same_to, v.from_parameters = r.initial_parameters as same_from,
          c.status as carrier_status, i.plus_engine_sha256 as plus, i.minus_engine_sha256 as minus
        from spsa_verification v join spsa_run r on r.id = v.run_id join spsa_run c on c.id = v.carrier_run_id
        join spsa_iteration i on i.run_id = c.id`;
      expect(compared).toMatchObject({ same_to: true, same_from: true, carrier_status: "complete" });
      expect(compared?.plus).not.toBe(compared?.minus);
    } finally {
      worker.kill("SIGTERM");
      await worker;
    }
  });

  it("stops handing out games once the SPRT decides", async () => {
    const { setup, env, sql } = fixture;
    const worker = startWorker(setup, env, "v2", ["--seed", "w"]);
    try {
      // alpha = beta = 0.5 puts both SPRT bounds at 0: the first reported pair decides.
      const result = await verify(setup, env, [
        "--from",
        "1",
        "--to",
        "2",
        "--games",
        "200",
        "--sprt",
        "0",
        "5",
        "0.5",
        "0.5",
      ]);
      expect(result.exitCode, result.all).toBe(0);
      const [row] = await sql<(ResultRow & { played: number })[]>`
        select r.*, split_part(r.games, '/', 1)::int as played from spsa_verification_result r where comparison = 'iteration 2 vs iteration 1'`;
      expect(row?.verdict).toMatch(/^H[01]$/);
      expect(row?.status).toBe("complete");
      expect(row?.played).toBeGreaterThanOrEqual(2);
      expect(row?.played).toBeLessThan(200);
    } finally {
      worker.kill("SIGTERM");
      await worker;
    }
  });

  it("plays at a node limit other than the run's, and records and shows it", async () => {
    const { setup, env, sql } = fixture;
    const worker = startWorker(setup, env, "v3", ["--seed", "w"]);
    try {
      const result = await verify(setup, env, ["--games", "4", "--nodes", "300"]);
      expect(result.exitCode, result.all).toBe(0);
      expect(result.all).toMatch(/: current vs start at 300 nodes per move, up to 4 games/);
      const [row] = await sql<{ limits: unknown; move_limit: unknown; status: string; games_played: number }[]>`
        select v.limits, i.settings->'moveLimit' as move_limit, v.status, i.games_played
        from spsa_verification v join spsa_iteration i on i.run_id = v.carrier_run_id order by v.id desc limit 1`;
      // The run plays 1000 nodes per move (its config); its workers played this one at 300.
      expect(row).toEqual({ limits: { nodes: 300 }, move_limit: { nodes: 300 }, status: "complete", games_played: 4 });
      const [view] = await sql<
        { limits: unknown }[]
      >`select limits from spsa_verification_result order by id desc limit 1`;
      expect(view?.limits).toEqual({ nodes: 300 });

      const text = await spsa(["status", "--name", "tuned"], { env });
      expect(text.stdout).toMatch(
        /^verification \d+: current vs start at 300 nodes per move, complete, 4\/4 games \+\d+ -\d+ =\d+/m,
      );
      const json = JSON.parse((await spsa(["status", "--name", "tuned", "--json"], { env })).stdout) as RunStatus;
      expect(json.verifications[0]).toMatchObject({
        limits: { nodes: 300 },
        limitsText: "300 nodes per move",
        games: "4/4",
        status: "complete",
      });
    } finally {
      worker.kill("SIGTERM");
      await worker;
    }
  });

  it("plays at a clock (--tc) through the workers", async () => {
    const { setup, env, sql } = fixture;
    const worker = startWorker(setup, env, "v4", ["--seed", "w"]);
    try {
      const result = await verify(setup, env, ["--games", "2", "--tc", "1+0.01"]);
      expect(result.exitCode, result.all).toBe(0);
      const [row] = await sql<{ limits: unknown; games_played: number }[]>`
        select v.limits, i.games_played from spsa_verification v join spsa_iteration i on i.run_id = v.carrier_run_id order by v.id desc limit 1`;
      expect(row).toEqual({ limits: { tc: { baseMs: 1000, incMs: 10 } }, games_played: 2 });
    } finally {
      worker.kill("SIGTERM");
      await worker;
    }
  });

  it("refuses two kinds of limit in one line, before building anything", async () => {
    const result = await verify(fixture.setup, fixture.env, ["--nodes", "300", "--depth", "4"]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr.trim()).toBe(
      "error: --nodes, --depth: give one kind of limit: --tc, --timelow/--timehigh, --nodes or --depth",
    );
  });

  it("refuses more game pairs at a node limit than the workers' book has openings, before building anything", async () => {
    const { setup, env } = fixture;
    const book = join(ROOT, "test", "fixtures", "books", "chess-compete-openings-50.epd");
    const configFile = join(setup.dir, "tiny-book.toml");
    writeFileSync(
      configFile,
      readFileSync(setup.configFile, "utf8").replace("[games]\n", `[games]\nbook = "${book}"\n`),
    );
    const result = await verify({ ...setup, configFile }, env, ["--games", "102", "--nodes", "300"]);
    expect(result.exitCode, result.all).toBe(2);
    expect(result.stderr.trim()).toMatch(
      new RegExp(
        `^error: --games: 102 games at --nodes 300 need 51 distinct openings \\(one per game pair\\), but ${book} has 50: .* Play at most 100 games`,
      ),
    );
    const built = await fixture.sql<
      { n: number }[]
    >`select count(*)::int as n from spsa_verification v join spsa_run r on r.id = v.run_id where r.name = 'tuned' and v.max_games = 102`;
    expect(built[0]?.n).toBe(0);
  });

  it("refuses an iteration the run has not completed, before building anything", async () => {
    const result = await verify(fixture.setup, fixture.env, ["--to", "9"]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr.trim()).toBe('error: run "tuned": has no completed iteration 9 (last completed: 2)');
  });
});
