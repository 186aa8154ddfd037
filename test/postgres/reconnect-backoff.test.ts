import { setTimeout as sleep } from "node:timers/promises";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect } from "../../src/postgres/connection.js";
import {
  BACKOFF_BASE_MS,
  BACKOFF_CAP_MS,
  backoffDelay,
  backoffSocketFactory,
} from "../../src/postgres/reconnect-backoff.js";
import { startCutProxy, type CutProxy } from "../support/cut-proxy.js";
import { freshDatabase } from "../support/database.js";

describe("backoffDelay", () => {
  it("doubles from the base, stops at the cap, and jitters to 50–100 %", () => {
    expect(backoffDelay(0)).toBe(0);
    expect([1, 2, 3].map((n) => backoffDelay(n, () => 1))).toEqual([
      BACKOFF_BASE_MS,
      2 * BACKOFF_BASE_MS,
      4 * BACKOFF_BASE_MS,
    ]);
    expect(backoffDelay(3, () => 0)).toBe(2 * BACKOFF_BASE_MS);
    expect(backoffDelay(50, () => 1)).toBe(BACKOFF_CAP_MS);
  });
});

/** A LISTEN client behind a proxy that is then cut (see startCutProxy), its attempts counted. */
describe("a LISTEN client while its server is gone", () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let proxy: CutProxy;

  beforeAll(async () => {
    database = await freshDatabase();
    proxy = await startCutProxy(database.url);
  });
  afterAll(async () => {
    proxy?.close();
    await database?.drop();
  });

  /** Connection attempts in 3 s after the cut. */
  async function attemptsWhileCut(sql: postgres.Sql): Promise<number> {
    proxy.restore();
    await sql.listen("a", () => {});
    await sql.listen("b", () => {});
    proxy.cut();
    await sleep(3000);
    const counted = proxy.attempts();
    await sql.end({ timeout: 0 });
    return counted;
  }

  it("retries at once without the factory (hundreds of attempts), a few times with it", async () => {
    const plain = await attemptsWhileCut(connect(proxy.url, 4));
    const spaced = await attemptsWhileCut(connect(proxy.url, 4, {}, backoffSocketFactory()));
    console.log(`LISTEN client, server gone for 3 s: ${plain} connection attempts without backoff, ${spaced} with`);
    expect(plain).toBeGreaterThan(100);
    expect(spaced).toBeLessThan(12);
  });
});
