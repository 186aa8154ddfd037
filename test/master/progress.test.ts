import { describe, expect, it } from "vitest";
import { faultWarning, formatOptionProgress, formatProgress, GameRate, RATE_WINDOW_MS, type IterationCounts } from "../../src/master/progress.js";
import { formatDuration } from "../../src/core/duration.js";
import { delayRemedy } from "../../src/play/faults.js";
import { eloWithError, MIN_ERROR_PAIRS } from "../../src/stats/elo.js";

const counts = (over: Partial<IterationCounts>): IterationCounts => ({
  iterationNumber: 3,
  targetGames: 64,
  gamesPlayed: 16,
  gamesClaimed: 24,
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

/** A rate that saw `games` played over the minute before `nowMs`, reported at its end. */
function rateOf(games: number, nowMs = 60_000): GameRate {
  const rate = new GameRate();
  rate.add(0, nowMs - 60_000);
  rate.add(games, nowMs);
  return rate;
}

describe("the master's progress line", () => {
  it("shows the bar, counts, speed, the iteration's ETA and the run's", () => {
    const line = formatProgress(counts({}), 100, rateOf(16), 60_000);
    // 48 games left of this iteration, 97 × 64 more after it, at 16 a minute.
    expect(line).toBe(`iteration 3/100 [#####...............] 16/64 games  +6 -5 =5  16.0 games/min  iteration ETA 3m00s  run ETA ${formatDuration(((48 + 97 * 64) / 16) * 60)}`);
  });

  it("shows faults, delays outside the engines and an unknown ETA before any report", () => {
    const rate = new GameRate();
    rate.add(0, 0);
    const line = formatProgress(counts({ iterationNumber: 1, targetGames: 8, gamesPlayed: 0, gamesClaimed: 8, plusWins: 0, minusWins: 0, draws: 0, faults: 2, delayLosses: 1, replays: 3 }), 2, rate, 1000);
    expect(line).toContain("? games/min  iteration ETA ?  run ETA ?");
    expect(line).toContain("faults 2  delays 1 lost, 3 replayed");
  });

  it("says so while no worker has claimed the iteration's games", () => {
    const line = formatProgress(counts({ gamesPlayed: 0, gamesClaimed: 0, plusWins: 0, minusWins: 0, draws: 0 }), 100, new GameRate(), 1000);
    expect(line).toBe("iteration 3/100 [....................] 0/64 games  +0 -0 =0  waiting for a worker to claim its games (start one: compete --spsa)");
  });

  it("holds its rate between reports, so the ETA counts down instead of growing", () => {
    const rate = rateOf(16);
    const etas = [60_000, 70_000, 80_000, 90_000].map((now) => rate.etaSeconds(48, now));
    expect(etas).toEqual([180, 170, 160, 150]);
    expect(rate.perMinute()).toBe(16);
    // Twice as fast for longer than the window: the rate is the recent one, not the master's whole life's.
    const minutes = RATE_WINDOW_MS / 60_000 + 5;
    for (let m = 2; m <= minutes + 1; m++) rate.add(32, m * 60_000);
    expect(rate.perMinute()).toBe(32);
  });

  it("gives a UCI-option run's line its speed and the run's ETA, or says no worker claimed its games", () => {
    const carrier = { targetGames: 800, gamesPlayed: 120, gamesClaimed: 136, plusWins: 40, minusWins: 38, draws: 42 };
    expect(formatOptionProgress("tune", carrier, rateOf(20), 60_000)).toBe("run tune: 120/800 games, +40 -38 =42 (plus vs minus)  20.0 games/min  run ETA 34m00s");
    expect(formatOptionProgress("tune", { ...carrier, gamesPlayed: 0, gamesClaimed: 0, plusWins: 0, minusWins: 0, draws: 0 }, new GameRate(), 0))
      .toBe("run tune: 0/800 games, +0 -0 =0 (plus vs minus)  waiting for a worker to claim its games (start one: compete --spsa)");
  });

  it("shows both sides' results against the reference in reference mode", () => {
    const reference = { referenceEngineSha256: "ab".repeat(32), plusWins: 0, minusWins: 0, draws: 0, refPlusWins: 4, refPlusDraws: 3, refPlusLosses: 1, refMinusWins: 2, refMinusDraws: 2, refMinusLosses: 4 };
    const line = formatProgress(counts(reference), 3, rateOf(16), 60_000);
    expect(line).toBe("iteration 3/3 [#####...............] 16/64 games  θ+ +4 -1 =3, θ− +2 -4 =2 vs reference  16.0 games/min  iteration ETA 3m00s  run ETA 3m00s");
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
      "warning: iteration 3: 5 engine faults in 16 games (crashes, time losses or illegal moves); see spsa status",
    );
  });

  it("counts delay losses towards the quarter and names them, the replays and the pairs out of replays apart", () => {
    expect(faultWarning(counts({ faults: 1, delayLosses: 4, replays: 12, replayLimitPairs: 1 }))).toBe(
      "warning: iteration 3: 1 engine fault in 16 games (crashes, time losses or illegal moves); " +
        "delays outside the engines: 4 time losses scored, 12 games replayed, 1 pair out of replays " +
        "(a busy machine: lower the workers' -c or the machine's other load, or tune at a node or depth limit ([time_control] nodes or depth), which no delay can cost); see spsa status",
    );
  });

  it("speaks of delays alone, not of 0 engine faults, when only delays were seen", () => {
    expect(faultWarning(counts({ gamesPlayed: 8, delayLosses: 4, replays: 2 }))).toBe(
      "warning: iteration 3: delays outside the engines in 8 games: 4 time losses scored, 2 games replayed " +
        "(a busy machine: lower the workers' -c or the machine's other load, or tune at a node or depth limit ([time_control] nodes or depth), which no delay can cost); see spsa status",
    );
  });
});

describe("the advice about delays outside the engines", () => {
  it("does not tell a worker at -c 1 to lower -c", () => {
    expect(delayRemedy(1)).toBe("at -c 1 only less other load on the machine helps, or tune at a node or depth limit ([time_control] nodes or depth), which no delay can cost");
    expect(delayRemedy(1)).not.toMatch(/lower -c/);
    expect(delayRemedy(4)).toMatch(/^lower -c or the machine's other load, or tune at a node or depth limit/);
  });
});

describe("Elo with an error bar", () => {
  it("gives none from fewer than a few game pairs, in words, and one from enough", () => {
    expect(eloWithError(0, 0, [0, 0, 2, 0, 0])).toBe("+0.0 (2 pairs: too few for an error bar)");
    expect(eloWithError(12.34, 40, 1)).toBe("+12.3 (1 pair: too few for an error bar)");
    expect(eloWithError(-5, 61.25, [1, 1, 1, 1, MIN_ERROR_PAIRS - 4])).toBe("-5.0 ± 61.3 (95%)");
  });
});
