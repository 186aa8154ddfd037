import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { LoopLag } from "../../src/play/loop-lag.js";

/** Holds the event loop, as a busy runner would. */
function busyFor(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i++) await sleep(5);
}

describe("LoopLag", () => {
  it("does not wake the loop until a timed search starts", async () => {
    const lag = new LoopLag(10);
    await sleep(30);
    expect(lag.sampling).toBe(false);
    expect(lag.lateMsSince(0)).toBe(0);
  });

  it("measures the runner's lateness during a timed search, and stops a period after the last one", async () => {
    const lag = new LoopLag(10);
    const release = lag.hold();
    expect(lag.sampling).toBe(true);
    const since = performance.now();
    busyFor(120);
    await until(() => lag.lateMsSince(since) > 0);
    expect(lag.lateMsSince(since)).toBeGreaterThan(60);
    release();
    release(); // a second call changes nothing
    await until(() => !lag.sampling);
    expect(lag.sampling).toBe(false);
    // The lateness seen stays readable after the timer stopped.
    expect(lag.lateMsSince(since)).toBeGreaterThan(60);
  });

  it("keeps sampling while another timed search is still in flight", async () => {
    const lag = new LoopLag(10);
    const first = lag.hold();
    const second = lag.hold();
    first();
    await sleep(40);
    expect(lag.sampling).toBe(true);
    second();
    await until(() => !lag.sampling);
    expect(lag.sampling).toBe(false);
  });
});
