import { describe, expect, it } from "vitest";
import { InputError } from "../../src/core/errors.js";
import { describeLimits } from "../../src/play/time-control.js";
import { verifyLimits } from "../../src/verify/limits.js";

const run = { timelowMs: 10, timehighMs: 30, moveLimit: undefined };

describe("spsa verify's limits", () => {
  it("defaults to the run's own: its time per move, or its nodes or depth", () => {
    expect(verifyLimits({}, run)).toEqual({ timelowMs: 10, timehighMs: 30 });
    expect(verifyLimits({}, { ...run, moveLimit: { nodes: 1000 } })).toEqual({ nodes: 1000 });
  });

  it("takes one kind of limit from the flags", () => {
    expect(verifyLimits({ tc: "10+0.1" }, run)).toEqual({ tc: { baseMs: 10_000, incMs: 100 } });
    expect(verifyLimits({ nodes: 500 }, { ...run, moveLimit: { depth: 3 } })).toEqual({ nodes: 500 });
    expect(verifyLimits({ depth: 8 }, run)).toEqual({ depth: 8 });
    expect(verifyLimits({ timelow: 0.15, timehigh: 0.25 }, run)).toEqual({ timelowMs: 150, timehighMs: 250 });
    // One bound alone is a fixed time per move.
    expect(verifyLimits({ timelow: 0.2 }, run)).toEqual({ timelowMs: 200, timehighMs: 200 });
    expect(verifyLimits({ timehigh: 0.2 }, run)).toEqual({ timelowMs: 200, timehighMs: 200 });
  });

  it.each([
    [
      { tc: "10+0.1", nodes: 5 },
      "--tc, --nodes: give one kind of limit: --tc, --timelow/--timehigh, --nodes or --depth",
    ],
    [
      { nodes: 5, depth: 3 },
      "--nodes, --depth: give one kind of limit: --tc, --timelow/--timehigh, --nodes or --depth",
    ],
    [
      { timelow: 0.1, depth: 3 },
      "--timelow/--timehigh, --depth: give one kind of limit: --tc, --timelow/--timehigh, --nodes or --depth",
    ],
    [{ timelow: 0.3, timehigh: 0.2 }, "--timelow: 0.3 s is above --timehigh 0.2 s"],
    [{ timelow: 0.0001 }, "--timelow: must be a time per move in seconds of at least 0.001, got 0.0001"],
    [{ nodes: 0 }, "--nodes: must be a whole number of at least 1, got 0"],
    [{ tc: "fast" }, '--tc: expected SECONDS[+INC] or MOVES/SECONDS[+INC], got "fast"'],
  ])("refuses %o in one line", (flags, message) => {
    expect(() => verifyLimits(flags, run)).toThrow(InputError);
    expect(() => verifyLimits(flags, run)).toThrow(message);
  });

  it("describes each kind in words", () => {
    expect(describeLimits({ timelowMs: 10, timehighMs: 30 })).toBe("10–30 ms per move");
    expect(describeLimits({ timelowMs: 200, timehighMs: 200 })).toBe("200 ms per move");
    expect(describeLimits({ tc: { baseMs: 10_000, incMs: 100 } })).toBe("tc 10+0.1");
    expect(describeLimits({ nodes: 500 })).toBe("500 nodes per move");
    expect(describeLimits({ depth: 8 })).toBe("depth 8");
  });
});
