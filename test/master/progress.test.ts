import { describe, expect, it } from "vitest";
import { faultWarning, formatProgress, type IterationCounts } from "../../src/master/progress.js";
import { formatDuration } from "../../src/core/duration.js";

const counts = (over: Partial<IterationCounts>): IterationCounts => ({
  iterationNumber: 3,
  targetGames: 64,
  gamesPlayed: 16,
  plusWins: 6,
  minusWins: 5,
  draws: 5,
  referenceEngineSha256: null,
  ...{ refPlusWins: 0, refPlusDraws: 0, refPlusLosses: 0, refMinusWins: 0, refMinusDraws: 0, refMinusLosses: 0 },
  faults: 0,
  delayLosses: 0,
  replays: 0,
  replayLimitPairs: 0,
  ...over,
});

describe("the master's progress line", () => {
  it("shows the bar, counts, speed and ETA", () => {
    const line = formatProgress(counts({}), 100, { sinceMs: 0, baseGames: 0, nowMs: 60_000 });
    expect(line).toBe("iteration 3/100 [#####...............] 16/64 games  +6 -5 =5  16.0 games/min  ETA 3m00s");
  });

  it("shows faults, delays outside the engines and an unknown ETA before any game", () => {
    const line = formatProgress(
      counts({ iterationNumber: 1, targetGames: 8, gamesPlayed: 0, plusWins: 0, minusWins: 0, draws: 0, faults: 2, delayLosses: 1, replays: 3 }),
      2,
      { sinceMs: 0, baseGames: 0, nowMs: 1000 },
    );
    expect(line).toContain("ETA ?");
    expect(line).toContain("faults 2  delays 1 lost, 3 replayed");
  });

  it("shows both sides' results against the reference in reference mode", () => {
    const reference = { referenceEngineSha256: "ab".repeat(32), plusWins: 0, minusWins: 0, draws: 0, refPlusWins: 4, refPlusDraws: 3, refPlusLosses: 1, refMinusWins: 2, refMinusDraws: 2, refMinusLosses: 4 };
    const line = formatProgress(counts(reference), 100, { sinceMs: 0, baseGames: 0, nowMs: 60_000 });
    expect(line).toBe("iteration 3/100 [#####...............] 16/64 games  θ+ +4 -1 =3, θ− +2 -4 =2 vs reference  16.0 games/min  ETA 3m00s");
  });

  it("formats durations", () => {
    expect(formatDuration(59.4)).toBe("59s");
    expect(formatDuration(61)).toBe("1m01s");
    expect(formatDuration(3 * 3600 + 125)).toBe("3h02m");
  });
});

describe("the master's fault warning", () => {
  it("stays quiet up to a quarter of the games and before 4 games", () => {
    expect(faultWarning(counts({ faults: 2, delayLosses: 2, replays: 30 }))).toBeUndefined();
    expect(faultWarning(counts({ gamesPlayed: 3, faults: 3 }))).toBeUndefined();
  });

  it("names engine faults alone when no delay was seen", () => {
    expect(faultWarning(counts({ faults: 5 }))).toBe(
      "warning: iteration 3 has 5 engine faults in 16 games (crashes, time losses or illegal moves); see spsa status",
    );
  });

  it("counts delay losses towards the quarter and names them, the replays and the pairs out of replays apart", () => {
    expect(faultWarning(counts({ faults: 1, delayLosses: 4, replays: 12, replayLimitPairs: 2 }))).toBe(
      "warning: iteration 3 has 1 engine faults in 16 games (crashes, time losses or illegal moves); " +
        "delays outside the engines: 4 time losses scored, 12 games replayed, 2 pairs out of replays " +
        "(a busy machine: lower the workers' -c or their other load); see spsa status",
    );
  });
});
