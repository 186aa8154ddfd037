import { describe, expect, it } from "vitest";
import { FIRST_POLL_MS, PollBackoff, pollDelay } from "../../src/postgres/poll-backoff.js";

describe("pollDelay", () => {
  it("doubles from the first wait, stops at the cap, and jitters to 50–100 %", () => {
    expect([0, 1, 2].map((n) => pollDelay(n, 5000, () => 1))).toEqual([
      FIRST_POLL_MS,
      2 * FIRST_POLL_MS,
      4 * FIRST_POLL_MS,
    ]);
    expect(pollDelay(2, 5000, () => 0)).toBe(2 * FIRST_POLL_MS);
    expect(pollDelay(1000, 5000, () => 1)).toBe(5000);
    expect(pollDelay(0, 50, () => 1)).toBe(50);
  });
});

describe("PollBackoff", () => {
  it("grows while nothing happens and is short again after a reset", () => {
    const poll = new PollBackoff(1000, () => 1);
    expect(Array.from({ length: 6 }, () => poll.next())).toEqual([100, 200, 400, 800, 1000, 1000]);
    poll.reset();
    expect(poll.next()).toBe(FIRST_POLL_MS);
  });
});
