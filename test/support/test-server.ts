import { createHash } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync, type Dirent } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { processExists } from "../../src/core/process-exists.js";
import { applyMigrations, connect } from "../../src/postgres/connection.js";
import { embeddedServer, ensureEmbeddedServer, removeEmbeddedServer } from "../../src/postgres/embedded.js";
import { listServerFolders, removeServerFolder } from "../../src/postgres/server-folders.js";
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

/** One empty file per `vitest run` using the test server, named by its pid. */
const RUNS = join(TEST_HOME, "runs");

/**
 * The runs' temporary folder, one per checkout (beside /tmp's other entries, where other users
 * can reach it, unlike a checkout only root may enter): TMPDIR of every test file and of what
 * they start, so that whatever a test or a process it killed leaves there goes with the run.
 */
const TEST_TMP = join(tmpdir(), `spsa-test-${createHash("sha256").update(TEST_HOME).digest("hex").slice(0, 12)}`);

/**
 * The tool's home (SPSA_HOME) of what the tests start without one of their own: the master's
 * signing key, the workers' engine cache, the demo's folder. Not `.spsa` in the checkout, the
 * user's, which the suite would otherwise leave behind.
 */
const TOOL_HOME = join(TEST_HOME, "home");

/**
 * Marks this run as a user of the test server (global-setup.ts), before it starts it, and
 * points TMPDIR at the runs' temporary folder and SPSA_HOME at TOOL_HOME for the test files
 * (forked after this) and what they start.
 */
export function enterTestRun(): void {
  mkdirSync(RUNS, { recursive: true });
  writeFileSync(join(RUNS, String(process.pid)), "");
  mkdirSync(TEST_TMP, { recursive: true });
  chmodSync(TEST_TMP, 0o1777);
  process.env.TMPDIR = TEST_TMP;
  process.env.SPSA_HOME = TOOL_HOME;
}

/**
 * Unmarks this run; when no other live run of this checkout uses the test server, stops it
 * and removes it with all its files: `.spsa-test` (TOOL_HOME in it), as root its folder under
 * /var/tmp (removeEmbeddedServer, as `spsa db remove` does), and the temporary folder.
 */
export async function leaveTestRun(): Promise<void> {
  rmSync(join(RUNS, String(process.pid)), { force: true });
  const others = existsSync(RUNS) ? readdirSync(RUNS).filter((name) => processExists(Number(name))) : [];
  if (others.length > 0) return;
  // TOOL_HOME's server too, had a command started one there, and those of the tests' own homes
  // (in TEST_TMP) that a failed or killed test left: found by their homes, and (as root) by the
  // markers of the server folders under /var/tmp, for a home already removed.
  const failures: unknown[] = [];
  const attempt = (work: () => Promise<unknown>) => work().catch((error: unknown) => failures.push(error));
  for (const home of [TEST_HOME, TOOL_HOME, ...homesIn(TEST_TMP, 3)])
    await attempt(() => removeEmbeddedServer(embeddedServer(home)));
  const ours = (home: string | undefined) => home?.startsWith(`${TEST_TMP}/`) || home?.startsWith(`${TEST_HOME}/`);
  if (process.getuid?.() === 0)
    for (const folder of await listServerFolders())
      if (ours(folder.home)) await attempt(() => removeServerFolder(folder.path));
  for (const folder of [TEST_HOME, TEST_TMP]) rmSync(folder, { recursive: true, force: true, maxRetries: 3 });
  if (failures.length > 0) throw new AggregateError(failures, "the test run's servers were not all removed");
}

/** The folders within `depth` levels of `dir` that hold an embedded server's files (`pg/connection.json`). */
function homesIn(dir: string, depth: number): string[] {
  if (depth === 0 || !existsSync(dir)) return [];
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) => {
      const home = join(dir, entry.name);
      return existsSync(join(home, "pg", "connection.json")) ? [home] : homesIn(home, depth - 1);
    });
}
