import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase } from "../support/database.js";

/**
 * The Postgres driver as scripts/patch-postgres.mjs leaves it: connections killed by the server
 * (a restart, a failover, pg_terminate_backend) fail their queries, which the project retries,
 * and never take the process down. The unpatched postgres.js 3.4.9 fails both cases below: an
 * unhandled rejection of its array-type fetch (which the client records; Node's default ends
 * the process) and a TypeError writing to a closed socket (exit 1).
 */
const CLIENT = fileURLToPath(new URL("../fixtures/driver/kill-connections.mjs", import.meta.url));

interface ClientReport {
  codes: Record<string, number>;
  unhandled: string[];
  kills?: number;
  ok?: number;
  sum?: number;
  x?: number;
}

async function runClient(url: string, ...args: string[]): Promise<ClientReport> {
  const child = await execa("node", [CLIENT, url, ...args], { reject: false, all: true, timeout: 60_000 });
  expect(child.exitCode, child.all).toBe(0);
  return JSON.parse(child.stdout.trim().split("\n").pop() ?? "") as ClientReport;
}

describe("the Postgres driver when the server kills its connections", () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  beforeAll(async () => {
    database = await freshDatabase();
  });
  afterAll(async () => {
    await database?.drop();
  });

  it("a new connection whose array-type fetch is cancelled fails the waiting query, with no unhandled rejection", async () => {
    const report = await runClient(database.url, "cancelled-fetch");
    expect(report.codes).toEqual({ "57014": 1 });
    expect(report.unhandled).toEqual([]);
    expect(report.sum).toBe(3);
  });

  it("queries and transactions on connections terminated over and over fail and recover, and the process lives", async () => {
    const report = await runClient(database.url, "terminate", "12", "30000");
    expect(report.kills).toBeGreaterThanOrEqual(12);
    expect(report.unhandled).toEqual([]);
    // Failures are the connection's, each one a rejected query that the caller can retry.
    expect(Object.keys(report.codes).length).toBeGreaterThan(0);
    for (const code of Object.keys(report.codes))
      expect(["57P01", "CONNECTION_CLOSED", "ECONNRESET", "EPIPE"]).toContain(code);
    expect(report.ok).toBeGreaterThan(0);
    expect(report.x).toBe(42);
  });
});
