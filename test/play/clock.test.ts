import { describe, expect, it } from "vitest";
import { Clock, formatTimeControl, parseTimeControl } from "../../src/play/time-control.js";

describe("time controls", () => {
  it("parses cutechess/fastchess notation", () => {
    expect(parseTimeControl("10+0.1")).toEqual({ baseMs: 10_000, incMs: 100 });
    expect(parseTimeControl("60")).toEqual({ baseMs: 60_000, incMs: 0 });
    expect(parseTimeControl("40/60+0.5")).toEqual({ baseMs: 60_000, incMs: 500, moves: 40 });
    expect(parseTimeControl("0+0.05")).toEqual({ baseMs: 0, incMs: 50 });
    expect(formatTimeControl({ baseMs: 60_000, incMs: 500, moves: 40 })).toBe("40/60+0.5");
  });

  it.each(["", "abc", "10+", "+1", "0", "0/10+1", "-5+1"])("rejects %j", (text) => {
    expect(() => parseTimeControl(text)).toThrow(/--tc/);
  });
});

describe("clock", () => {
  it("subtracts the time used, then adds the increment", () => {
    const clock = new Clock({ baseMs: 1000, incMs: 10 }, 50);
    expect(clock.goCommand(0)).toBe("go wtime 1000 btime 1000 winc 10 binc 10");
    expect(clock.charge(0, 300)).toBe(true);
    expect(clock.remainingMs(0)).toBe(710);
    expect(clock.charge(1, 100.4)).toBe(true);
    expect(clock.goCommand(0)).toBe("go wtime 710 btime 910 winc 10 binc 10");
    expect(clock.allowedMs(0)).toBe(760);
  });

  it("forfeits only below -margin, and clamps a small overrun to zero", () => {
    const clock = new Clock({ baseMs: 100, incMs: 10 }, 50);
    expect(clock.charge(0, 140)).toBe(true); // 40 ms over, within the margin
    expect(clock.remainingMs(0)).toBe(10);
    expect(clock.charge(0, 61)).toBe(false); // 51 ms over
  });

  it("adds the base time again after each period in moves/time mode", () => {
    const clock = new Clock({ baseMs: 1000, incMs: 0, moves: 2 }, 0);
    expect(clock.movesToGo(0)).toBe(2);
    expect(clock.goCommand(0)).toBe("go wtime 1000 btime 1000 winc 0 binc 0 movestogo 2");
    clock.charge(0, 400);
    expect(clock.movesToGo(0)).toBe(1);
    expect(clock.movesToGo(1)).toBe(2);
    clock.charge(0, 500);
    expect(clock.remainingMs(0)).toBe(1100);
    expect(clock.movesToGo(0)).toBe(2);
  });
});
