import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyMigrations, connect } from "../../src/db/connection.js";
import { spsa } from "../support/cli.js";
import { freshDatabase } from "../support/database.js";

const SEED_COLUMNS = [
  "id", "iteration_number", "plus_engine_path", "minus_engine_path", "timelow_ms", "timehigh_ms",
  "target_games", "games_played", "plus_wins", "minus_wins", "draws", "status", "base_parameters",
  "plus_parameters", "minus_parameters", "perturbation_signs", "gradient_estimate", "elo_diff",
  "created_at", "completed_at",
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
    expect(columns).toEqual(expect.arrayContaining([
      ...SEED_COLUMNS, "run_id", "games_claimed", "plus_engine_sha256", "minus_engine_sha256",
    ]));
    expect(await columnsOf(database.url, "spsa_batch")).toEqual(expect.arrayContaining(["iteration_id", "worker_name", "games", "lease_expires_at", "status"]));
    expect(await columnsOf(database.url, "spsa_worker")).toEqual(expect.arrayContaining(["name", "host", "last_seen_at", "games_played"]));
    expect(await columnsOf(database.url, "spsa_run")).toEqual(expect.arrayContaining(["name", "config", "initial_parameters", "status"]));
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
});
