import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect } from "../../src/postgres/connection.js";
import {
  BACKOFF_BASE_MS,
  BACKOFF_CAP_MS,
  backoffDelay,
  backoffSocketFactory,
} from "../../src/postgres/reconnect-backoff.js";
import { gapsOf, soonerThanBackoff, startCutProxy, type CutProxy } from "../support/cut-proxy.js";
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

  /**
   * The client's connection attempts after the cut, waited for until `count` came (a busy
   * machine makes them later, not fewer): the time of each from the cut, in ms.
   */
  async function attemptsWhileCut(sql: postgres.Sql, count: number): Promise<number[]> {
    proxy.restore();
    await sql.listen("a", () => {});
    await sql.listen("b", () => {});
    proxy.cut();
    const times = await proxy.attemptsAfterCut(count, 60_000);
    await sql.end({ timeout: 0 });
    return times;
  }

  it("retries at once without the factory (hundreds of attempts), a few times with it", async () => {
    const plain = await attemptsWhileCut(connect(proxy.url, 4), 101);
    const spaced = await attemptsWhileCut(connect(proxy.url, 4, {}, backoffSocketFactory()), 4);
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    console.log(
      `LISTEN client, server gone: ${plain.length} connection attempts in ${Math.round(plain.at(-1) ?? 0)} ms without backoff, ` +
        `${spaced.length} in ${Math.round(spaced.at(-1) ?? 0)} ms with`,
    );
    // Without: over a hundred, one right after another.
    expect(plain.length).toBeGreaterThan(100);
    expect(median(gapsOf(plain))).toBeLessThan(BACKOFF_BASE_MS / 2);
    // With: each attempt waits at least the least backoffDelay of the failures before it, so a
    // few in 3 s: 125, 250, 500 and 1000 ms apart at the least.
    expect(spaced).toHaveLength(4);
    expect(soonerThanBackoff(spaced)).toEqual([]);
  });
});
