import { connect as netConnect, createServer, type Server, type Socket } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect } from "../../src/db/connection.js";
import { BACKOFF_BASE_MS, BACKOFF_CAP_MS, backoffDelay, backoffSocketFactory } from "../../src/db/reconnect-backoff.js";
import { freshDatabase } from "../support/database.js";

describe("backoffDelay", () => {
  it("doubles from the base, stops at the cap, and jitters to 50–100 %", () => {
    expect(backoffDelay(0)).toBe(0);
    expect([1, 2, 3].map((n) => backoffDelay(n, () => 1))).toEqual([BACKOFF_BASE_MS, 2 * BACKOFF_BASE_MS, 4 * BACKOFF_BASE_MS]);
    expect(backoffDelay(3, () => 0)).toBe(2 * BACKOFF_BASE_MS);
    expect(backoffDelay(50, () => 1)).toBe(BACKOFF_CAP_MS);
  });
});

/**
 * A LISTEN client behind a proxy that is then cut: the proxy accepts and closes every
 * connection, as a stand-in on a stopped server's port would, and counts them.
 */
describe("a LISTEN client while its server is gone", () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let proxy: Server;
  let url: string;
  let cut = false;
  let attempts = 0;
  const open = new Set<Socket>();

  beforeAll(async () => {
    database = await freshDatabase();
    const target = new URL(database.url);
    proxy = createServer((client) => {
      attempts++;
      if (cut) return void client.destroy();
      const upstream = netConnect(Number(target.port), target.hostname);
      for (const socket of [client, upstream]) {
        open.add(socket);
        socket.on("error", () => {});
        socket.on("close", () => open.delete(socket));
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
    const viaProxy = new URL(database.url);
    viaProxy.port = String((proxy.address() as { port: number }).port);
    url = viaProxy.toString();
  });
  afterAll(async () => {
    proxy?.close();
    await database?.drop();
  });

  /** Connection attempts in 3 s after the cut, for a client made by `make`. */
  async function attemptsWhileCut(sql: postgres.Sql): Promise<number> {
    cut = false;
    await sql.listen("a", () => {});
    await sql.listen("b", () => {});
    cut = true;
    for (const socket of open) socket.destroy();
    attempts = 0;
    await sleep(3000);
    const counted = attempts;
    await sql.end({ timeout: 0 });
    return counted;
  }

  it("retries at once without the factory (hundreds of attempts), a few times with it", async () => {
    const plain = await attemptsWhileCut(connect(url, 4));
    const spaced = await attemptsWhileCut(connect(url, 4, backoffSocketFactory()));
    console.log(`LISTEN client, server gone for 3 s: ${plain} connection attempts without backoff, ${spaced} with`);
    expect(plain).toBeGreaterThan(100);
    expect(spaced).toBeLessThan(12);
  });
});
