import { describe, expect, it } from "vitest";
import { MAX_SLICE_MS, MIN_QUIET_MS, QuietReads, SLICE_BYTES, WAKE_AHEAD_MS } from "../../src/play/quiet-reads.js";

const onTime = { movetimeMs: 100, elapsedMs: 98, bytes: 2000, answerWasWaiting: false };

describe("quiet reads", () => {
  it("reads the first search of an engine promptly: nothing is known of it yet", () => {
    expect(new QuietReads().plan(100)).toBeUndefined();
  });

  it("stays quiet until shortly before the engine's usual answer, by its own earliness", () => {
    const quiet = new QuietReads();
    quiet.observe(onTime);
    expect(quiet.plan(100)).toEqual({ untilMs: 100 - 2 - WAKE_AHEAD_MS, sliceMs: MAX_SLICE_MS });
    // earliness is in ms, not a fraction: a move overhead does not scale with the movetime
    expect(quiet.plan(300)?.untilMs).toBe(300 - 2 - WAKE_AHEAD_MS);
    quiet.observe({ ...onTime, elapsedMs: 104 }); // a late answer: no earlier than the movetime
    expect(quiet.plan(100)?.untilMs).toBe(100 - WAKE_AHEAD_MS);
  });

  it("reads promptly after an answer that was already waiting, and again quietly once it is measured", () => {
    const quiet = new QuietReads();
    quiet.observe(onTime);
    quiet.observe({ ...onTime, elapsedMs: 93, answerWasWaiting: true });
    expect(quiet.plan(100)).toBeUndefined();
    quiet.observe({ ...onTime, elapsedMs: 40 }); // measured: this engine answers 60 ms early
    expect(quiet.plan(100)?.untilMs).toBe(40 - WAKE_AHEAD_MS);
    expect(quiet.plan(50)).toBeUndefined(); // nothing left to be quiet for
  });

  it("cuts quiet spells into slices an engine's output cannot fill a pipe in", () => {
    const quiet = new QuietReads();
    quiet.observe({ ...onTime, bytes: 100 * 1024 }); // about 1 KiB per ms
    expect(quiet.plan(100)?.sliceMs).toBeCloseTo(SLICE_BYTES / ((100 * 1024) / 98), 6);
    quiet.observe({ ...onTime, bytes: 4 * 1024 * 1024 }); // a flood: too fast to leave unread
    expect(quiet.plan(100)).toBeUndefined();
    quiet.observe({ ...onTime, movetimeMs: 2 * MIN_QUIET_MS, elapsedMs: 2 * MIN_QUIET_MS });
    expect(quiet.plan(MIN_QUIET_MS + WAKE_AHEAD_MS - 1)).toBeUndefined(); // too short to be worth a timer
  });
});
