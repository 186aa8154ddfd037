import { foldIteration } from "../../src/db/fold.js";
import { join } from "node:path";
import { execa } from "execa";
import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sha256OfFile } from "../../src/engine-build/binary-store.js";
import { applyMigrations, connect } from "../../src/postgres/connection.js";
import { settingsOf } from "../../src/config/iteration-settings.js";
import { insertIteration } from "../../src/db/iterations.js";
import { signedEngines } from "../../src/signing/binary-signature.js";
import { planBatchSizes } from "../../src/spsa/batch-plan.js";
import { localSigningKey } from "../support/signing.js";
import { storedRunConfig } from "../../src/config/secrets.js";
import { openRun } from "../../src/db/runs.js";
import { loadConfig } from "../../src/config/config.js";
import { COMPETE_BIN, ROOT } from "../support/cli.js";
import { freshDatabase } from "../support/database.js";

describe("32 worker processes claiming from one iteration", () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let sql: postgres.Sql;

  beforeAll(async () => {
    database = await freshDatabase();
    await applyMigrations(database.url);
    sql = connect(database.url, 2);
  });
  afterAll(async () => {
    await sql.end();
    await database.drop();
  });

  it("never over-claims and counts every game exactly once", async () => {
    const target = 96;
    // Games that end at the first move (an engine that only plays impossible moves): the
    // subject here is claiming and reporting, not chess.
    const engine = join(ROOT, "test", "fixtures", "broken", "illegal-always.sh");
    const { run } = await openRun(sql, {
      name: "crowd",
      fresh: false,
      config: storedRunConfig(loadConfig("config.toml")),
      values: { X: 1 },
    });
    const binary = { path: engine, sha256: sha256OfFile(engine) };
    const iteration = await insertIteration(sql, {
      runId: run.id,
      iterationNumber: 1,
      ...signedEngines(
        localSigningKey().sign,
        { runUid: run.uid, iterationNumber: 1 },
        { plus: binary, minus: binary },
      ),
      timelowMs: 10,
      timehighMs: 10,
      targetGames: target,
      batchSizes: planBatchSizes(target, 2, 0),
      ck: 1,
      ak: 0.1,
      base: { X: 1 },
      plusValues: { X: 1 },
      minusValues: { X: 1 },
      signs: { X: 1 },
      settings: settingsOf(loadConfig("config.toml"), []),
    });

    const workers = Array.from({ length: 32 }, (_, i) =>
      execa(
        "node",
        [COMPETE_BIN, "--spsa", "-c", "1", "--batch-size", "2", "--name", `crowd-${i}`, "--idle-exit", "3"],
        {
          env: { DATABASE_URL: database.url },
          cwd: ROOT,
          reject: false,
          all: true,
        },
      ),
    );
    const results = await Promise.all(workers);
    for (const result of results) expect(result.exitCode, result.all).toBe(0);

    await foldIteration(sql, iteration.id);
    const [row] = await sql<{ games_claimed: number; games_played: number; wins: number }[]>`
      select games_claimed, games_played, plus_wins + minus_wins + draws as wins from spsa_iteration where id = ${iteration.id}`;
    expect(row).toEqual({ games_claimed: target, games_played: target, wins: target });
    const [batches] = await sql<{ done: number; games: number; others: number }[]>`
      select count(*) filter (where status = 'done')::int as done,
             coalesce(sum(games) filter (where status = 'done'), 0)::int as games,
             count(*) filter (where status <> 'done')::int as others
      from spsa_batch where iteration_id = ${iteration.id}`;
    expect(batches).toEqual({ done: target / 2, games: target, others: 0 });
    const [workersRow] = await sql<{ games: number; active: number }[]>`
      select sum(games_played)::int as games, count(*) filter (where games_played > 0)::int as active from spsa_worker`;
    expect(workersRow?.games).toBe(target);
    expect(workersRow?.active).toBeGreaterThan(1);
  });
});
