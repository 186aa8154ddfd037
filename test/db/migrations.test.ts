import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { drizzle } from "drizzle-orm/postgres-js";
import { migrate } from "drizzle-orm/postgres-js/migrator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claimBatch, reportBatch } from "../../src/db/batches.js";
import { foldIteration } from "../../src/db/fold.js";
import { applyReports } from "../../src/master/apply-reports.js";
import { readAppliedChain } from "../../src/db/applied-chain.js";
import { drawBatch, paramsAt } from "../../src/spsa/option-batches.js";
import { applyBatch, batchStepFactor } from "../../src/spsa/batch-step.js";
import { replayAppliedChain } from "../../src/spsa/option-chain.js";
import { applyMigrations, connect } from "../../src/postgres/connection.js";
import { loadConfig } from "../../src/config/config.js";
import { describeChanges, playedWith, settingsOf } from "../../src/config/iteration-settings.js";
import { readPlayedWith } from "../../src/db/iterations.js";
import { clean, registerTestWorker } from "../support/iterations.js";
import { ROOT } from "../support/cli.js";
import { spsa } from "../support/cli.js";
import { freshDatabase } from "../support/database.js";

const SEED_COLUMNS = [
  "id",
  "iteration_number",
  "plus_engine_path",
  "minus_engine_path",
  "timelow_ms",
  "timehigh_ms",
  "target_games",
  "games_played",
  "plus_wins",
  "minus_wins",
  "draws",
  "status",
  "base_parameters",
  "plus_parameters",
  "minus_parameters",
  "perturbation_signs",
  "gradient_estimate",
  "elo_diff",
  "created_at",
  "completed_at",
];

async function columnsOf(url: string, table: string): Promise<string[]> {
  const sql = connect(url, 1);
  const rows = await sql<{ column_name: string }[]>`
    select column_name from information_schema.columns where table_name = ${table} order by ordinal_position`;
  await sql.end();
  return rows.map((r) => r.column_name);
}

async function migrationCount(url: string): Promise<number> {
  const sql = connect(url, 1);
  const [row] = await sql<{ n: number }[]>`select count(*)::int as n from drizzle.__drizzle_migrations`;
  await sql.end();
  return row?.n ?? -1;
}

describe("migrations", () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  beforeAll(async () => {
    database = await freshDatabase();
  });
  afterAll(async () => database.drop());

  it("create every column of the seed's schema plus ours, and applying them twice changes nothing", async () => {
    await applyMigrations(database.url);
    await applyMigrations(database.url);
    const columns = await columnsOf(database.url, "spsa_iteration");
    expect(columns).toEqual(
      expect.arrayContaining([...SEED_COLUMNS, "run_id", "games_claimed", "plus_engine_sha256", "minus_engine_sha256"]),
    );
    expect(await columnsOf(database.url, "spsa_batch")).toEqual(
      expect.arrayContaining(["iteration_id", "worker_name", "games", "lease_expires_at", "status"]),
    );
    expect(await columnsOf(database.url, "spsa_worker")).toEqual(
      expect.arrayContaining(["name", "host", "last_seen_at", "games_played"]),
    );
    expect(await columnsOf(database.url, "spsa_run")).toEqual(
      expect.arrayContaining(["name", "config", "initial_parameters", "status"]),
    );
    expect(await migrationCount(database.url)).toBeGreaterThan(0);
  });

  it("are applied safely by six processes starting at once", async () => {
    const other = await freshDatabase();
    try {
      const results = await Promise.all(
        Array.from({ length: 6 }, () => spsa(["db", "status"], { env: { DATABASE_URL: other.url } })),
      );
      for (const result of results) expect(result.exitCode, result.all).toBe(0);
      const journal = await migrationCount(database.url);
      expect(await migrationCount(other.url)).toBe(journal);
    } finally {
      await other.drop();
    }
  });

  it("0014 lets an iteration in flight when it is applied finish, with the counters its older reports made", async () => {
    const { old, sql, connections, done } = await schemaThrough(13);
    try {
      // An iteration in flight the way that version left it.
      const [run] = await sql<{ id: number }[]>`
        insert into spsa_run (name, seed, config, initial_parameters, current_parameters) values ('old', 's', '{}', '{"X": 1}', '{"X": 1}') returning id`;
      const [iteration] = await sql<{ id: number }[]>`
        insert into spsa_iteration (run_id, iteration_number, plus_engine_path, minus_engine_path, plus_engine_sha256, minus_engine_sha256,
          timelow_ms, timehigh_ms, target_games, games_claimed, games_played, plus_wins, draws, pairs_ww, replays, binaries_refused, status)
        values (${run!.id}, 1, '/p', '/m', 'a', 'b', 10, 20, 10, 6, 2, 2, 0, 1, 1, 1, 'in_progress') returning id`;
      await sql`insert into spsa_worker (name, host) values ('w', 'box')`;
      const [claimed] = await sql<{ id: number }[]>`
        insert into spsa_batch (iteration_id, worker_name, games, status, lease_expires_at, reported_at, plus_wins, minus_wins, draws, pairs, faults)
        values (${iteration!.id}, 'w', 2, 'done', now() + interval '1 hour', now(), 2, 0, 0, '[0,0,0,0,1]', '{}'),
               (${iteration!.id}, 'w', 2, 'expired', now() - interval '1 hour', null, null, null, null, null, null),
               (${iteration!.id}, 'w', 4, 'claimed', now() + interval '1 hour', null, null, null, null, null, null)
        returning id`.then((rows) => rows.slice(2));

      await applyMigrations(old.url);
      // A process of the new version, on a connection of its own.
      const db = connect(old.url, 2);
      connections.push(db);
      const open =
        await db`select games, games_before from spsa_batch where iteration_id = ${iteration!.id} and status = 'open'`;
      expect(open).toEqual([{ games: 4, games_before: 6 }]);
      // The claim made before the upgrade is reported after it, and the rest is claimed and played.
      const draws = (batchId: number, games: number) => ({
        batchId,
        workerName: "w",
        wins: 0,
        losses: 0,
        draws: games,
        pairs: [0, 0, games / 2, 0, 0] as [number, number, number, number, number],
        ...clean(),
      });
      expect(await reportBatch(db, draws(claimed!.id, 4))).toBe("accepted");
      const rest = await claimBatch(db, "w", 8);
      expect(rest?.games).toBe(4);
      expect(await reportBatch(db, draws(rest!.batchId, 4))).toBe("accepted");
      await foldIteration(db, iteration!.id);
      const [row] = await db`
        select games_claimed, games_played, plus_wins, draws, pairs_ww, pairs_dd, replays, binaries_refused from spsa_iteration where id = ${iteration!.id}`;
      expect(row).toEqual({
        games_claimed: 10,
        games_played: 10,
        plus_wins: 2,
        draws: 8,
        pairs_ww: 1,
        pairs_dd: 4,
        replays: 1,
        binaries_refused: 1,
      });
    } finally {
      await done();
    }
  });

  it("0016 counts the iterations in flight afresh, each batch once, and applies no UCI-option report to θ twice; 0017 applies none a worker drew", async () => {
    const { old, sql, connections, done } = await schemaThrough(14);
    try {
      // As version 0014 left them: a build-mode iteration folded in full at its last poll, a
      // UCI-option carrier whose master applied two of its three reports, and a complete iteration.
      await sql`insert into spsa_worker (name, host) values ('w', 'box')`;
      const [build, options, complete] = await sql<{ id: number }[]>`
        insert into spsa_run (name, seed, config, initial_parameters, current_parameters)
        values ('build', 's', '{}', '{"X": 1}', '{"X": 1}'), ('options', 's', '{}', '{"X": 1}', '{"X": 3}'), ('old', 's', '{}', '{"X": 1}', '{"X": 1}')
        returning id`;
      const [buildIteration, carrier, completed] = await sql<{ id: number }[]>`
        insert into spsa_iteration (run_id, iteration_number, plus_engine_path, minus_engine_path, plus_engine_sha256, minus_engine_sha256,
          timelow_ms, timehigh_ms, target_games, games_claimed, games_played, draws, pairs_dd, status)
        values (${build!.id}, 1, '/p', '/m', 'a', 'b', 10, 20, 8, 6, 4, 4, 2, 'in_progress'),
               (${options!.id}, 1, '/p', '/p', 'a', 'a', 10, 20, 8, 6, 6, 6, 3, 'in_progress'),
               (${complete!.id}, 1, '/p', '/m', 'a', 'b', 10, 20, 2, 2, 2, 2, 1, 'complete')
        returning id`;
      const parameters = { X: { min: 0, max: 10, step: 1, type: "float", frozen: false, option: "X" } };
      const gains = { a: 2, c: 1, A: 2, alpha: 0.602, gamma: 0.101, maxIterations: 2 };
      await sql`insert into spsa_option_run (run_id, iteration_id, engine_path, engine_sha256, parameters, gains, games_per_iteration)
        values (${options!.id}, ${carrier!.id}, '/p', 'a', ${JSON.stringify(parameters)}::jsonb, ${JSON.stringify(gains)}::jsonb, 4)`;
      const batch = (iteration: number, status: string, before: number) =>
        sql<{ id: number }[]>`
        insert into spsa_batch (iteration_id, worker_name, games, games_before, status, claimed_at, lease_expires_at, reported_at,
          plus_wins, minus_wins, draws, pairs, faults, replays, replay_limit_pairs)
        select ${iteration}, ${status === "open" ? null : "w"}, 2, ${before}, ${status}, ${status === "open" ? null : sql`now()`},
          ${status === "open" ? null : sql`now() + interval '1 hour'`}, ${status === "done" ? sql`now() + make_interval(secs => ${before})` : null},
          ${status === "done" ? 0 : null}, ${status === "done" ? 0 : null}, ${status === "done" ? 2 : null}, ${status === "done" ? sql`'[0,0,1,0,0]'::jsonb` : null},
          ${status === "done" ? sql`'{}'::jsonb` : null}, ${status === "done" ? 0 : null}, ${status === "done" ? 0 : null}
        returning id::int`.then(([row]) => row!.id);
      for (const [status, before] of [
        ["done", 0],
        ["done", 2],
        ["claimed", 4],
        ["open", 6],
      ] as const)
        await batch(buildIteration!.id, status, before);
      const drawn = [];
      for (const [status, before] of [
        ["done", 0],
        ["done", 2],
        ["done", 4],
        ["claimed", 6],
      ] as const)
        drawn.push(await batch(carrier!.id, status, before));
      await batch(completed!.id, "done", 0);
      for (const [i, batchId] of drawn.entries()) {
        const applied = i < 2 ? i + 1 : null;
        await sql`insert into spsa_perturbation (batch_id, run_id, batch_number, worker_name, games, k, c_k, a_k, theta_before, signs, plus_parameters,
            minus_parameters, plus_wins, minus_wins, draws, theta_applied, theta_after, applied_number)
          values (${batchId}, ${options!.id}, ${batchId}, 'w', 2, 1, 1, 1, '{"X": 1}', '{"X": 1}', '{"X": 2}', '{"X": 0}',
            ${applied && 0}, ${applied && 0}, ${applied && 2}, ${applied && JSON.stringify({ X: applied })}::jsonb, ${applied && JSON.stringify({ X: applied + 1 })}::jsonb, ${applied})`;
      }

      await applyMigrations(old.url);
      const db = connect(old.url, 2);
      connections.push(db);
      const counted = async (id: number) =>
        (await db`select games_claimed, games_played, draws, pairs_dd from spsa_iteration where id = ${id}`)[0];
      expect(await foldIteration(db, buildIteration!.id)).toBe(true);
      expect(await counted(buildIteration!.id)).toEqual({ games_claimed: 6, games_played: 4, draws: 4, pairs_dd: 2 });
      expect(await foldIteration(db, buildIteration!.id)).toBe(false);
      // The two reports the old master applied are counted once; the third, whose draw a worker
      // made and no master applied, is not trusted (0017): it moves nothing, and neither does the
      // claimed one, whose games the master gives out again.
      expect(await applyReports(db, options!.id)).toBe(0);
      expect(await counted(carrier!.id)).toEqual({ games_claimed: 4, games_played: 4, draws: 4, pairs_dd: 2 });
      // θ after each applied report, kept as the compact format (0020) keeps it: in the run's order.
      const chain =
        await db`select applied_number, theta_after from spsa_perturbation where run_id = ${options!.id} order by batch_id`;
      expect(chain).toEqual([
        { applied_number: 1, theta_after: [2] },
        { applied_number: 2, theta_after: [3] },
        { applied_number: null, theta_after: null },
        { applied_number: null, theta_after: null },
      ]);
      const statuses = await db`select status from spsa_batch where iteration_id = ${carrier!.id} order by id`;
      expect(statuses.map((b) => b.status)).toEqual(["done", "done", "expired", "expired"]);
      expect(await applyReports(db, options!.id)).toBe(0);
      expect(await counted(carrier!.id)).toMatchObject({ games_played: 4 });
      // A complete iteration keeps its counters, its batches counted in them.
      expect(await counted(completed!.id)).toEqual({ games_claimed: 2, games_played: 2, draws: 2, pairs_dd: 1 });
      expect((await db`select folded from spsa_batch where iteration_id = ${completed!.id}`)[0]).toEqual({
        folded: true,
      });
    } finally {
      await done();
    }
  });

  it("0020 converts a UCI-option run of the format before: its parameter list in the order it was drawn in, signs as bits, θ as arrays, and the chain replays to its θ", async () => {
    const { old, sql, connections, done } = await schemaThrough(19);
    try {
      // As a master of the version before left it: parameters read back from jsonb (shorter keys first), draws in that order.
      const parameters = {
        LONG_NAME: {
          min: 0,
          max: 10,
          step: 0.5,
          type: "float" as const,
          frozen: false,
          option: "LONG_NAME",
          optionScale: undefined,
        },
        B: { min: -5, max: 5, step: 1, type: "int" as const, frozen: false, option: "B", optionScale: undefined },
      };
      const names = ["B", "LONG_NAME"];
      const run = {
        parameters,
        names,
        gains: {
          a: 3,
          c: 2,
          A: 2,
          alpha: 0.602,
          gamma: 0.101,
          maxIterations: 4,
          adaptive: { mode: "signal" as const, window: 2, floor: 0.2 },
        },
        gamesPerIteration: 8,
        seed: "m",
      };
      const start = { LONG_NAME: 3.3, B: 1 };
      const results = [
        { plusWins: 2, minusWins: 0, draws: 0 },
        { plusWins: 0, minusWins: 1, draws: 1 },
        { plusWins: 2, minusWins: 0, draws: 0 },
      ];
      const [row] = await sql<{ id: number }[]>`
        insert into spsa_run (name, seed, config, initial_parameters, current_parameters) values ('old-uci', 'm', '{}', ${JSON.stringify(start)}::jsonb, '{}') returning id`;
      const [carrier] = await sql<{ id: number }[]>`
        insert into spsa_iteration (run_id, iteration_number, plus_engine_path, minus_engine_path, plus_engine_sha256, minus_engine_sha256, timelow_ms, timehigh_ms, target_games, status)
        values (${row!.id}, 1, '/p', '/p', 'a', 'a', 10, 20, 32, 'in_progress') returning id`;
      await sql`insert into spsa_option_run (run_id, iteration_id, engine_path, engine_sha256, parameters, gains, games_per_iteration)
        values (${row!.id}, ${carrier!.id}, '/p', 'a', ${JSON.stringify(parameters)}::jsonb, ${JSON.stringify(run.gains)}::jsonb, 8)`;
      await sql`insert into spsa_worker (name, host) values ('w', 'box')`;
      let theta: Record<string, number> = start;
      for (const [i, result] of [...results, undefined].entries()) {
        const [batch] = await sql<{ id: number }[]>`
          insert into spsa_batch (iteration_id, worker_name, games, games_before, status, claimed_at, lease_expires_at, folded)
          values (${carrier!.id}, 'w', 2, ${2 * i}, ${result ? "done" : "expired"}, now(), now(), ${result !== undefined}) returning id::int`;
        const draw = drawBatch(paramsAt(run, theta), run.gains, {
          seed: "m",
          drawNumber: batch!.id,
          gamesBefore: 2 * i,
          gamesPerIteration: 8,
        });
        const scale = batchStepFactor(
          results.slice(0, i).map((r, n) => ({ ...r, drawNumber: n })),
          run.gains,
          8,
        );
        const after =
          result && applyBatch(paramsAt(run, theta), { ...draw, games: 2 }, result, run.gains, 8, scale).newValues;
        await sql`insert into spsa_perturbation (batch_id, run_id, batch_number, worker_name, games, k, c_k, a_k, theta_before, signs, plus_parameters,
            minus_parameters, plus_wins, minus_wins, draws, elo_diff, theta_applied, theta_after, applied_number)
          values (${batch!.id}, ${row!.id}, ${batch!.id}, 'w', 2, ${draw.k}, ${draw.ck}, ${draw.ak}, ${JSON.stringify(theta)}::jsonb, ${JSON.stringify(draw.signs)}::jsonb,
            ${JSON.stringify(draw.plus)}::jsonb, ${JSON.stringify(draw.minus)}::jsonb, ${result?.plusWins ?? null}, ${result?.minusWins ?? null}, ${result?.draws ?? null},
            ${result ? applyBatch(paramsAt(run, theta), { ...draw, games: 2 }, result, run.gains, 8, scale).elo : null},
            ${result ? JSON.stringify(theta) : null}::jsonb, ${after ? JSON.stringify(after) : null}::jsonb, ${result ? i + 1 : null})`;
        if (after) theta = after;
      }
      await sql`update spsa_run set current_parameters = ${JSON.stringify(theta)}::jsonb where id = ${row!.id}`;

      await applyMigrations(old.url);
      const db = connect(old.url, 2);
      connections.push(db);
      const [converted] = await db`select parameter_names, theta_every, theta_applied from spsa_option_run`;
      expect(converted).toEqual({ parameter_names: names, theta_every: 1, theta_applied: 3 });
      const rows = await db<
        { signs: string; theta_after: number[] | null; plus: unknown; applied_number: number | null }[]
      >`
        select signs, theta_after, plus_parameters as plus, applied_number from spsa_perturbation order by batch_id`;
      // Kept for the applied (their replay takes them), dropped for the expired one; θ after each, exactly, in the run's order.
      expect(rows.map((r) => r.plus === null)).toEqual([false, false, false, true]);
      expect(rows.at(-1)?.theta_after).toBeNull();
      expect(rows[2]?.theta_after).toEqual([theta.B, theta.LONG_NAME]);
      for (const r of rows) expect(r.signs).toMatch(/^[01]{2}$/);
      const chain = await readAppliedChain(db, row!.id);
      expect(replayAppliedChain(chain.run, chain.start, chain.batches)).toEqual(theta);
      const [viewed] = await db`select theta_after from spsa_perturbation_progress where applied = 3`;
      expect(viewed?.theta_after).toEqual(theta);
    } finally {
      await done();
    }
  });
});

describe("the migration that stores each iteration setting once", () => {
  it("moves old rows' copies out of their settings, and old runs read as they did: time, games per iteration, openings, no change named", async () => {
    // Found by name: the lead renumbers migrations.
    const journal = JSON.parse(readFileSync(join(ROOT, "migrations/meta/_journal.json"), "utf8")) as {
      entries: { idx: number; tag: string }[];
    };
    const through = journal.entries.find((e) => e.tag.endsWith("_iteration_settings_once"))!.idx - 1;
    const { old, sql, connections, done } = await schemaThrough(through);
    try {
      const config = loadConfig("config.toml");
      const { timelowMs, timehighMs } = config.timeControl;
      const perIteration = config.games.gamesPerIteration;
      // Settings as the versions before wrote them: the time per move and games per iteration copied in.
      const oldSettings = { ...settingsOf(config, []), timelowMs, timehighMs, gamesPerIteration: perIteration };
      const iteration = async (runId: number, k: number, target: number) => {
        const [row] = await sql<{ id: number }[]>`
          insert into spsa_iteration (run_id, iteration_number, plus_engine_path, minus_engine_path, plus_engine_sha256, minus_engine_sha256,
            timelow_ms, timehigh_ms, target_games, status, settings)
          values (${runId}, ${k}, '/p', '/m', 'a', 'b', ${timelowMs}, ${timehighMs}, ${target}, ${k < 3 ? "complete" : "pending"}, ${JSON.stringify(oldSettings)}::jsonb) returning id`;
        return row!.id;
      };
      const run = async (name: string) =>
        (
          await sql<
            { id: number }[]
          >`insert into spsa_run (name, seed, config, initial_parameters, current_parameters) values (${name}, 's', '{}', '{}', '{}') returning id`
        )[0]!.id;
      // A build-mode run at its third iteration, and a UCI-option run whose one iteration carries all its games.
      const built = await run("old-build");
      for (const k of [1, 2]) await iteration(built, k, perIteration);
      const third = await iteration(built, 3, perIteration);
      await sql`insert into spsa_batch (iteration_id, games, games_before, status) values (${third}, ${perIteration}, 0, 'open')`;
      const options = await run("old-options");
      const carrier = await iteration(options, 1, 10 * perIteration);
      await sql`insert into spsa_option_run (run_id, iteration_id, engine_path, engine_sha256, parameters, gains, games_per_iteration, parameter_names)
        values (${options}, ${carrier}, '/p', 'a', '{}', '{}', ${perIteration}, '{}')`;

      await applyMigrations(old.url);
      const db = connect(old.url, 2);
      connections.push(db);
      const copies = await db<
        { n: number }[]
      >`select count(*)::int as n from spsa_iteration where settings ?| array['timelowMs', 'timehighMs', 'gamesPerIteration']`;
      expect(copies[0]?.n).toBe(0);
      for (const id of [third, carrier]) {
        const recorded = await readPlayedWith(db, { iterationId: id });
        expect(recorded).toMatchObject({ timelowMs, timehighMs, gamesPerIteration: perIteration });
        // A resumed master with the same config.toml names no change.
        expect(describeChanges(recorded!, playedWith(config, []))).toEqual([]);
      }
      expect(await readPlayedWith(db, { runId: built })).toMatchObject({ gamesPerIteration: perIteration });
      // The third iteration's openings start after the first two's games.
      await registerTestWorker(db, "w");
      expect((await claimBatch(db, "w", 8))?.firstGame).toBe(2 * perIteration);
    } finally {
      await done();
    }
  });
});

/**
 * A fresh database migrated through migration `idx` only (a copy of the migrations folder
 * whose journal stops there), on a connection of its own; `done` closes and drops it all.
 */
async function schemaThrough(idx: number) {
  const old = await freshDatabase();
  const folder = mkdtempSync(join(tmpdir(), "spsa-migrations-"));
  const sql = connect(old.url, 1);
  const connections = [sql];
  const done = async () => {
    for (const connection of connections) await connection.end();
    rmSync(folder, { recursive: true, force: true });
    await old.drop();
  };
  try {
    cpSync(join(ROOT, "migrations"), folder, { recursive: true });
    const journalFile = join(folder, "meta", "_journal.json");
    const journal = JSON.parse(readFileSync(journalFile, "utf8")) as { entries: { idx: number }[] };
    writeFileSync(journalFile, JSON.stringify({ ...journal, entries: journal.entries.filter((e) => e.idx <= idx) }));
    await migrate(drizzle(sql), { migrationsFolder: folder });
  } catch (error) {
    await done();
    throw error;
  }
  return { old, sql, connections, done };
}
