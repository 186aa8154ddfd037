import { describe, expect, it } from "vitest";
import { describeOutage, OUTAGE_REPORT_MS, OutageLog, stoppedDuringOutage } from "../../src/postgres/outage-log.js";
import { BACKOFF_CAP_MS, backoffDelay } from "../../src/postgres/reconnect-backoff.js";

const REASON = "connect ENOENT /var/tmp/spsa-pg-0123456789abcdef/.s.PGSQL.41955";

describe("what a process says while its database is unreachable", () => {
  it("says it at the first failure, then once a minute with how long, and when it is back", () => {
    const outage = new OutageLog();
    const said: [number, string][] = [];
    // Failed attempts every 5-10 s for 3 min 12 s, as withRetry makes them (jitter fixed at 75 %).
    let now = 1_000_000;
    for (let failures = 1; now < 1_000_000 + 192_000; failures++) {
      const line = outage.failed(REASON, now);
      if (line !== undefined) said.push([now - 1_000_000, line]);
      now += backoffDelay(failures, () => 0.5);
    }
    const back = outage.succeeded(1_000_000 + 192_000);
    expect(said.map(([at]) => at)).toEqual([0, expect.any(Number), expect.any(Number), expect.any(Number)]);
    // Each line at least a minute after the one before, and less than a wait later.
    for (let i = 1; i < said.length; i++) {
      const gap = said[i]![0] - said[i - 1]![0];
      expect(gap).toBeGreaterThanOrEqual(OUTAGE_REPORT_MS);
      expect(gap).toBeLessThan(OUTAGE_REPORT_MS + BACKOFF_CAP_MS);
    }
    expect(said[0]![1]).toBe(`database unreachable (${REASON}); retrying at least every 10 s`);
    expect(said[1]![1]).toMatch(
      new RegExp(
        `^database unreachable for 1m0\\ds \\(${REASON.replace(/[.]/g, "\\.")}\\); retrying at least every 10 s$`,
      ),
    );
    expect(said[3]![1]).toMatch(/^database unreachable for 3m0\ds /);
    expect(back).toBe("database back after 3m12s");
    // Back to normal: nothing more to say, and the next outage is a new one.
    expect(outage.succeeded(1_200_000)).toBeUndefined();
    expect(outage.current).toBeUndefined();
    expect(outage.failed("ECONNREFUSED", 1_300_000)).toBe(
      "database unreachable (ECONNREFUSED); retrying at least every 10 s",
    );
    expect(outage.current).toEqual({ sinceMs: 1_300_000, reason: "ECONNREFUSED" });
  });

  it("keeps the latest reason and the first failure's time", () => {
    const outage = new OutageLog();
    outage.failed("the database system is shutting down", 0);
    expect(outage.failed(REASON, 30_000)).toBeUndefined();
    expect(outage.current).toEqual({ sinceMs: 0, reason: REASON });
    expect(describeOutage(outage.current!, 72_000)).toBe(`${REASON}, for 1m12s`);
    expect(stoppedDuringOutage(outage.current!, 72_000)).toBe(
      `stopped while the database is unreachable (${REASON}, for 1m12s)`,
    );
    expect(stoppedDuringOutage(outage.current!, 72_000, "1 batch (4 games) stays claimed")).toBe(
      `stopped while the database is unreachable (${REASON}, for 1m12s); 1 batch (4 games) stays claimed`,
    );
  });
});
