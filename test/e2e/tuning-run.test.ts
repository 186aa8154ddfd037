import { readFileSync, rmSync } from "node:fs";
import { execa } from "execa";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/config.js";
import { loadParams } from "../../src/config/params.js";
import { perturb, update } from "../../src/spsa/math.js";
import { createRng } from "../../src/spsa/rng.js";
import { COMPETE_BIN, SPSA_BIN, ROOT } from "../support/cli.js";
import { freshDatabase } from "../support/database.js";
import { tuningSetup, type TuningSetup } from "../support/tuning-setup.js";

describe("a tuning run: master and two workers on Postgres with the sample engine", () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let setup: TuningSetup;
  let sql: postgres.Sql;

  beforeAll(async () => {
    database = await freshDatabase();
    setup = tuningSetup({ iterations: 2, games: 8, batchSize: 2 });
    sql = postgres(database.url, { max: 2, onnotice: () => {} });
  });
  afterAll(async () => {
    await sql.end();
    await database.drop();
    rmSync(setup.dir, { recursive: true, force: true });
  });

  it("completes every iteration with exactly its target and moves params.toml as the formulas say", async () => {
    const initial = loadParams(setup.paramsFile);
    const env = { DATABASE_URL: database.url };
    const workers = [1, 2].map((n) =>
      execa("node", [COMPETE_BIN, "--spsa", "-c", "1", "--config", setup.configFile, "--name", `w${n}`, "--idle-exit", "300"], {
        env,
        cwd: ROOT,
        reject: false,
        all: true,
      }),
    );
    const master = await execa("node", [SPSA_BIN, "--config", setup.configFile, "master", "--params", setup.paramsFile, "--name", "e2e", "--seed", "fixed"], {
      env,
      cwd: ROOT,
      reject: false,
      all: true,
    });
    for (const worker of workers) worker.kill("SIGTERM");
    const workerOutput = (await Promise.all(workers)).map((w) => w.all).join("\n");
    expect(master.exitCode, `${master.all}\n${workerOutput}`).toBe(0);

    const rows = await sql<
      { iteration_number: number; status: string; target_games: number; games_played: number; games_claimed: number; plus_wins: number; minus_wins: number; draws: number; pairs: number; base_parameters: Record<string, number>; plus_engine_sha256: string }[]
    >`select i.*, (pairs_ll + pairs_ld + pairs_dd + pairs_dw + pairs_ww)::int as pairs
      from spsa_iteration i join spsa_run r on r.id = i.run_id where r.name = 'e2e' order by iteration_number`;
    expect(rows.map((r) => r.iteration_number)).toEqual([1, 2]);
    for (const row of rows) {
      expect(row.status).toBe("complete");
      expect(row.games_played).toBe(row.target_games);
      expect(row.games_claimed).toBe(row.target_games);
      expect(row.plus_wins + row.minus_wins + row.draws).toBe(row.games_played);
      expect(row.pairs * 2).toBe(row.games_played);
      expect(row.plus_engine_sha256).toMatch(/^[0-9a-f]{64}$/);
    }

    // Replay the formulas on the recorded results: θ must have moved exactly so.
    const config = loadConfig(setup.configFile);
    let params = initial.map(({ name, value, min, max, step, type }) => ({ name, value, min, max, step, type }));
    for (const row of rows) {
      expect(row.base_parameters).toEqual(Object.fromEntries(params.map((p) => [p.name, p.value])));
      const k = row.iteration_number;
      const perturbation = perturb(params, config.spsa, k, createRng(`fixed:${k}`));
      const result = update(params, perturbation, { plusWins: row.plus_wins, minusWins: row.minus_wins, draws: row.draws }, config.spsa);
      params = params.map((p) => ({ ...p, value: result.newValues[p.name] ?? p.value }));
    }
    const final = loadParams(setup.paramsFile);
    for (const p of params) expect(final.find((f) => f.name === p.name)?.value).toBeCloseTo(p.value, 5);
    const [run] = await sql`select status, current_parameters from spsa_run where name = 'e2e'`;
    expect(run?.status).toBe("complete");
    // Only `value = …` lines changed: comments and layout are kept.
    const keptLines = (text: string) => text.split("\n").filter((line) => !/^\s*value\s*=/.test(line));
    expect(keptLines(readFileSync(setup.paramsFile, "utf8"))).toEqual(keptLines(readFileSync(`${ROOT}/params.toml`, "utf8")));
  });
});
