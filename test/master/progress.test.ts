import { describe, expect, it } from "vitest";
import { formatDuration, formatProgress } from "../../src/master/progress.js";

describe("the master's progress line", () => {
  it("shows the bar, counts, speed and ETA", () => {
    const line = formatProgress(
      { iterationNumber: 3, targetGames: 64, gamesPlayed: 16, plusWins: 6, minusWins: 5, draws: 5, faults: 0 },
      100,
      { sinceMs: 0, baseGames: 0, nowMs: 60_000 },
    );
    expect(line).toBe("iteration 3/100 [#####...............] 16/64 games  +6 -5 =5  16.0 games/min  ETA 3m00s");
  });

  it("shows faults and an unknown ETA before any game", () => {
    const line = formatProgress(
      { iterationNumber: 1, targetGames: 8, gamesPlayed: 0, plusWins: 0, minusWins: 0, draws: 0, faults: 2 },
      2,
      { sinceMs: 0, baseGames: 0, nowMs: 1000 },
    );
    expect(line).toContain("ETA ?");
    expect(line).toContain("faults 2");
  });

  it("formats durations", () => {
    expect(formatDuration(59.4)).toBe("59s");
    expect(formatDuration(61)).toBe("1m01s");
    expect(formatDuration(3 * 3600 + 125)).toBe("3h02m");
  });
});
