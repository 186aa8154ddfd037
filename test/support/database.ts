import { randomBytes } from "node:crypto";
import type postgres from "postgres";
import { afterAll, beforeAll, inject } from "vitest";
import { applyMigrations, connect } from "../../src/postgres/connection.js";
import { databaseUrl, onServer, testServerUrl } from "./test-server.js";

export { TEST_HOME } from "./test-server.js";

/**
 * A fresh database on the test server, so test files run in parallel without seeing each
 * other's rows: empty, or a copy of `template`. Returns its URL; `drop` removes it.
 */
export async function freshDatabase(template?: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `test_${randomBytes(6).toString("hex")}`;
  // A file copy of the small template costs the server about half the CPU of the default (WAL_LOG).
  await onServer(`create database ${name}${template ? ` template ${template} strategy = file_copy` : ""}`);
  return {
    url: databaseUrl(await testServerUrl(), name),
    drop: () => onServer(`drop database if exists ${name} with (force)`),
  };
}

export interface MigratedDatabase {
  url: string;
  sql: postgres.Sql;
}

/**
 * A fresh, migrated database for a describe block, with a client of `max` connections,
 * dropped afterwards. The returned object is filled in by beforeAll. It is a copy of the
 * run's migrated template (test/support/global-setup.ts), which takes a fraction of the
 * time of migrating; applyMigrations then finds nothing to do but the grants it makes anyway.
 */
export function useMigratedDatabase(max: number): MigratedDatabase {
  const database = {} as MigratedDatabase;
  let drop: () => Promise<void> = async () => {};
  beforeAll(async () => {
    const fresh = await freshDatabase(inject("migratedTemplate"));
    drop = fresh.drop;
    await applyMigrations(fresh.url);
    database.url = fresh.url;
    database.sql = connect(fresh.url, max);
  });
  afterAll(async () => {
    await database.sql?.end();
    await drop();
  });
  return database;
}
