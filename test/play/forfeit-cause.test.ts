import { describe, expect, it } from "vitest";
import { forfeitCause, type ForfeitEvidence } from "../../src/play/forfeit-cause.js";

// A move allowed 70 ms that was measured at 120 ms, on a machine that looked fine.
const base: ForfeitEvidence = {
  timed: true,
  elapsedMs: 120,
  allowedMs: 70,
  stopped: false,
  answerWasWaiting: false,
  runnerLateMs: 0,
  overloaded: false,
};

describe("whose fault a time forfeit was", () => {
  it("an engine that reports more than it was allowed overran", () => {
    expect(forfeitCause({ ...base, engineTimeMs: 118 })).toBe("engine");
    expect(forfeitCause({ ...base, engineTimeMs: 118, overloaded: true, runnerLateMs: 200 })).toBe("engine");
  });

  it("an engine that reports a time within its limit was held up outside", () => {
    expect(forfeitCause({ ...base, engineTimeMs: 23 })).toBe("outside");
    expect(forfeitCause({ ...base, engineTimeMs: 70 })).toBe("outside");
  });

  it("an engine that answered only on stop overran, unless the machine visibly held it up", () => {
    expect(forfeitCause({ ...base, engineTimeMs: 1, stopped: true })).toBe("engine");
    expect(forfeitCause({ ...base, stopped: true })).toBe("engine");
    expect(forfeitCause({ ...base, engineTimeMs: 1, stopped: true, overloaded: true })).toBe("outside");
    expect(forfeitCause({ ...base, stopped: true, runnerLateMs: 60 })).toBe("outside");
    expect(forfeitCause({ ...base, engineTimeMs: 118, stopped: true, overloaded: true })).toBe("engine");
  });

  it("a search without a time limit that had to be stopped is the engine's stall", () => {
    expect(
      forfeitCause({ ...base, timed: false, engineTimeMs: 1, stopped: true, overloaded: true, runnerLateMs: 200 }),
    ).toBe("engine");
  });

  it("without a reported time, only a visible delay excuses the overrun", () => {
    expect(forfeitCause(base)).toBe("engine");
    expect(forfeitCause({ ...base, runnerLateMs: 49 })).toBe("engine");
    expect(forfeitCause({ ...base, runnerLateMs: 50 })).toBe("outside");
    expect(forfeitCause({ ...base, overloaded: true })).toBe("outside");
    expect(forfeitCause({ ...base, answerWasWaiting: true })).toBe("outside");
  });
});
