import { randomBytes } from "node:crypto";
import { join } from "node:path";
import type postgres from "postgres";
import { afterAll, beforeAll } from "vitest";
import { applyMigrations, connect } from "../../src/db/connection.js";
import { embeddedServer, ensureEmbeddedServer } from "../../src/db/embedded.js";
import { ROOT } from "./cli.js";

/** All tests share one embedded server of their own, apart from the user's `.spsa`. */
export const TEST_HOME = join(ROOT, ".spsa-test");

/**
 * A fresh, empty database on the test server, so test files run in parallel without
 * seeing each other's rows. Returns its URL; `drop` removes it.
 */
export async function freshDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const serverUrl = await ensureEmbeddedServer(embeddedServer(TEST_HOME));
  const name = `test_${randomBytes(6).toString("hex")}`;
  const admin = connect(serverUrl, 1);
  await admin.unsafe(`create database ${name}`);
  await admin.end();
  const parsed = new URL(serverUrl);
  parsed.pathname = `/${name}`;
  const url = parsed.toString();
  return {
    url,
    drop: async () => {
      const sql = connect(serverUrl, 1);
      await sql.unsafe(`drop database if exists ${name} with (force)`);
      await sql.end();
    },
  };
}

export interface MigratedDatabase {
  url: string;
  sql: postgres.Sql;
}

/**
 * A fresh, migrated database for a describe block, with a client of `max` connections,
 * dropped afterwards. The returned object is filled in by beforeAll.
 */
export function useMigratedDatabase(max: number): MigratedDatabase {
  const database = {} as MigratedDatabase;
  let drop: () => Promise<void> = async () => {};
  beforeAll(async () => {
    const fresh = await freshDatabase();
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
