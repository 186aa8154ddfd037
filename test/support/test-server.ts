import { join } from "node:path";
import { applyMigrations, connect } from "../../src/postgres/connection.js";
import { embeddedServer, ensureEmbeddedServer } from "../../src/postgres/embedded.js";
import { ROOT } from "./cli.js";

/** All tests share one embedded server of their own, apart from the user's `.spsa`. */
export const TEST_HOME = join(ROOT, ".spsa-test");

/** The test server's URL, started (and initialised on first use) if needed. */
export function testServerUrl(): Promise<string> {
  return ensureEmbeddedServer(embeddedServer(TEST_HOME));
}

/** The URL of database `name` on the server of `serverUrl`. */
export function databaseUrl(serverUrl: string, name: string): string {
  const parsed = new URL(serverUrl);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

/** Runs one statement as the test server's superuser, on its `postgres` database. */
export async function onServer(statement: string): Promise<void> {
  const admin = connect(await testServerUrl(), 1);
  try {
    await admin.unsafe(statement);
  } finally {
    await admin.end();
  }
}

/**
 * A migrated database to copy (CREATE DATABASE ... TEMPLATE) for every file of a test run,
 * instead of migrating a new one per file. Nobody may stay connected to it: Postgres copies
 * only a template without sessions.
 */
export async function createMigratedTemplate(name: string): Promise<void> {
  await onServer(`create database ${name}`);
  await applyMigrations(databaseUrl(await testServerUrl(), name));
}
