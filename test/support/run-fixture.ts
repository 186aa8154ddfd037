import { rmSync } from "node:fs";
import postgres from "postgres";
import { afterAll, beforeAll } from "vitest";
import { applyMigrations } from "../../src/db/connection.js";
import { freshDatabase } from "./database.js";
import { tuningSetup, type TuningSetup, type TuningSetupOptions } from "./tuning-setup.js";

export interface RunFixture {
  setup: TuningSetup;
  sql: postgres.Sql;
  /** Environment for the master and worker processes: the fixture's database. */
  env: Record<string, string>;
}

/**
 * A fresh, migrated database and a config/params folder for a describe block, removed
 * afterwards. The returned object is filled in by beforeAll.
 */
export function useRunFixture(options: TuningSetupOptions): RunFixture {
  const fixture = {} as RunFixture;
  let drop: () => Promise<void> = async () => {};
  beforeAll(async () => {
    const database = await freshDatabase();
    drop = database.drop;
    await applyMigrations(database.url);
    fixture.setup = tuningSetup(options);
    fixture.sql = postgres(database.url, { max: 2, onnotice: () => {} });
    fixture.env = { DATABASE_URL: database.url };
  });
  afterAll(async () => {
    await fixture.sql?.end();
    await drop();
    if (fixture.setup) rmSync(fixture.setup.dir, { recursive: true, force: true });
  });
  return fixture;
}
