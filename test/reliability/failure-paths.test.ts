import { beforeAll, describe, expect, it } from "vitest";
import { embeddedServer, ensureEmbeddedServer } from "../../src/db/embedded.js";
import { compete, spsa, type CliResult } from "../support/cli.js";
import { TEST_HOME } from "../support/database.js";

/** Every command that needs the database, as a user would start it. */
const COMMANDS: [string, (env: Record<string, string>) => Promise<CliResult>][] = [
  ["spsa demo", (env) => spsa(["demo"], { env })],
  ["spsa master", (env) => spsa(["master"], { env })],
  ["spsa verify", (env) => spsa(["verify"], { env })],
  ["compete --spsa", (env) => compete(["--spsa", "-c", "1", "--idle-exit", "1"], { env })],
  ["spsa db status", (env) => spsa(["db", "status"], { env })],
];

describe("a database that cannot be used ends every command with one line and exit status 3", () => {
  let wrongPassword = "";
  beforeAll(async () => {
    const url = new URL(await ensureEmbeddedServer(embeddedServer(TEST_HOME)));
    url.password = "not-the-password";
    wrongPassword = url.toString();
  });

  it.each(COMMANDS)("%s, with nothing listening", async (_name, run) => {
    const result = await run({ DATABASE_URL: "postgres://spsa:secret@127.0.0.1:1/spsa" });
    expect(result.exitCode, result.all).toBe(3);
    expect(result.stderr.trim().split("\n"), result.all).toHaveLength(1);
    expect(result.stderr).toMatch(/^error: .*127\.0\.0\.1:1.*ECONNREFUSED/);
    expect(result.stderr).not.toContain("secret");
  });

  it.each(COMMANDS)("%s, with a refused password", async (_name, run) => {
    const result = await run({ DATABASE_URL: wrongPassword });
    expect(result.exitCode, result.all).toBe(3);
    expect(result.stderr.trim().split("\n"), result.all).toHaveLength(1);
    expect(result.stderr).toMatch(/^error: .*password authentication failed/);
    expect(result.stderr).not.toContain("not-the-password");
  });
});
