import { describe, expect, it } from "vitest";
import { describeDatabase } from "../../src/postgres/connection.js";
import { compete } from "../support/cli.js";
import { useMigratedDatabase } from "../support/database.js";
import { seedIteration } from "../support/iterations.js";

/** The hint an idle worker gives when no run is open on its database. */
const NO_RUN = "no run is open on";
const HINT = "a master must run on this database (point the worker at the master's with DATABASE_URL or --config)";

describe("a worker with nothing to do", () => {
  const database = useMigratedDatabase(1);
  const idle = () =>
    compete(["--spsa", "-c", "1", "--name", "idle", "--idle-exit", "1"], { env: { DATABASE_URL: database.url } });

  it("says which database it is on, that no run is open there, and how to point it at the master's", async () => {
    const where = describeDatabase(database.url);
    const result = await idle();
    expect(result.exitCode, result.all).toBe(0);
    expect(result.stderr).toContain(`worker idle: ${where}\n`);
    expect(result.stderr).toContain(`waiting for work: ${NO_RUN} ${where}; ${HINT}`);
    const password = new URL(database.url).password;
    expect(password).not.toBe("");
    expect(result.all).not.toContain(password);
  });

  it("once a run is open, only waits for work there", async () => {
    const { iteration } = await seedIteration(database.sql, { runName: "open", targetGames: 2 });
    // The run is open, and none of its games is to be had now (as while its master builds).
    await database.sql`update spsa_iteration set status = 'complete' where id = ${iteration.id}`;
    const result = await idle();
    expect(result.exitCode, result.all).toBe(0);
    expect(result.stderr).toContain(`waiting for work on ${describeDatabase(database.url)}`);
    expect(result.stderr).not.toContain(NO_RUN);
  });
});
