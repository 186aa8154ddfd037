import { rmSync } from "node:fs";
import type postgres from "postgres";
import { afterAll, beforeAll } from "vitest";
import { useMigratedDatabase } from "./database.js";
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
  const database = useMigratedDatabase(2);
  beforeAll(() => {
    fixture.setup = tuningSetup(options);
    fixture.sql = database.sql;
    fixture.env = { DATABASE_URL: database.url };
  });
  afterAll(() => {
    if (fixture.setup) rmSync(fixture.setup.dir, { recursive: true, force: true });
  });
  return fixture;
}
