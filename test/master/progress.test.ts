import { describe, expect, it } from "vitest";
import { faultWarning, formatOptionProgress, formatProgress, type IterationCounts } from "../../src/master/progress.js";
import { etaSeconds, type RunRate } from "../../src/db/run-status.js";
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
  faultKinds: { crashes: 0, timeLosses: 0, illegalMoves: 0 },
  delayLosses: 0,
  replays: 0,
  replayLimitPairs: 0,
  ...over,
});

/** The run's rate as the database measures it: `games` reported over the minute up to the latest report, `since` seconds ago. */
const rateOf = (games: number, since = 0): RunRate => ({ recentGames: games, recentSeconds: 60, sinceReport: since });
const NO_REPORT: RunRate = { recentGames: 0, recentSeconds: 0, sinceReport: null };

describe("the master's progress line", () => {
  it("shows the bar, counts, speed, the iteration's ETA and the run's", () => {
    const line = formatProgress(counts({}), 100, rateOf(16));
    // 48 games left of this iteration, 97 × 64 more after it, at 16 a minute.
    expect(line).toBe(
      `iteration 3/100 [#####...............] 16/64 games  +6 -5 =5  16.0 games/min  iteration ETA 3m00s  run ETA ${formatDuration(((48 + 97 * 64) / 16) * 60)}`,
    );
  });

  it("shows faults, delays outside the engines and an unknown ETA before any report", () => {
    const line = formatProgress(
      counts({
        iterationNumber: 1,
        targetGames: 8,
        gamesPlayed: 0,
        gamesClaimed: 8,
        plusWins: 0,
        minusWins: 0,
        draws: 0,
        faults: 2,
        delayLosses: 1,
        replays: 3,
      }),
      2,
      NO_REPORT,
    );
    expect(line).toContain("? games/min  iteration ETA ?  run ETA ?");
    expect(line).toContain("faults 2  delays 1 lost, 3 replayed");
  });

  it("says so while no worker has claimed the iteration's games", () => {
    const line = formatProgress(
      counts({ gamesPlayed: 0, gamesClaimed: 0, plusWins: 0, minusWins: 0, draws: 0 }),
      100,
      NO_REPORT,
    );
    expect(line).toBe(
      "iteration 3/100 [....................] 0/64 games  +0 -0 =0  waiting for a worker to claim its games (start one: compete --spsa)",
    );
  });

  it("counts the ETA down from the latest report, where a rate to now would make it grow; once overdue, at the rate to now", () => {
    expect([0, 10, 20, 30].map((since) => etaSeconds(48, rateOf(16, since)))).toEqual([180, 170, 160, 150]);
    // 200 s after the report, 180 s were due: 16 games over 260 s.
    expect(etaSeconds(48, rateOf(16, 200))).toBeCloseTo((48 / ((16 * 60) / 260)) * 60, 9);
    expect(etaSeconds(48, NO_REPORT)).toBeNull();
  });

  it("gives a UCI-option run's line its speed and the run's ETA, or says no worker claimed its games", () => {
    const carrier = { targetGames: 800, gamesPlayed: 120, gamesClaimed: 136, plusWins: 40, minusWins: 38, draws: 42 };
    expect(formatOptionProgress("tune", carrier, rateOf(20))).toBe(
      "run tune: 120/800 games, +40 -38 =42 (plus vs minus)  20.0 games/min  run ETA 34m00s",
    );
    expect(
      formatOptionProgress(
        "tune",
        { ...carrier, gamesPlayed: 0, gamesClaimed: 0, plusWins: 0, minusWins: 0, draws: 0 },
        NO_REPORT,
      ),
    ).toBe(
      "run tune: 0/800 games, +0 -0 =0 (plus vs minus)  waiting for a worker to claim its games (start one: compete --spsa)",
    );
  });

  it("shows both sides' results against the reference in reference mode", () => {
    const reference = {
      referenceEngineSha256: "ab".repeat(32),
      plusWins: 0,
      minusWins: 0,
      draws: 0,
      refPlusWins: 4,
      refPlusDraws: 3,
      refPlusLosses: 1,
      refMinusWins: 2,
      refMinusDraws: 2,
      refMinusLosses: 4,
    };
    const line = formatProgress(counts(reference), 3, rateOf(16));
    expect(line).toBe(
      "iteration 3/3 [#####...............] 16/64 games  θ+ +4 -1 =3, θ− +2 -4 =2 vs reference  16.0 games/min  iteration ETA 3m00s  run ETA 3m00s",
    );
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

  it("names engine faults alone, by kind, when no delay was seen", () => {
    expect(faultWarning(counts({ faults: 5, faultKinds: { crashes: 3, timeLosses: 0, illegalMoves: 2 } }))).toBe(
      "warning: iteration 3: 5 engine faults in 16 games (3 crashes, 2 illegal moves); see spsa status",
    );
  });

  it("counts delay losses towards the quarter and names them, the replays and the pairs out of replays apart", () => {
    const oneTimeLoss = { crashes: 0, timeLosses: 1, illegalMoves: 0 };
    expect(
      faultWarning(counts({ faults: 1, faultKinds: oneTimeLoss, delayLosses: 4, replays: 12, replayLimitPairs: 1 })),
    ).toBe(
      "warning: iteration 3: 1 engine fault in 16 games (1 time loss); " +
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
    expect(delayRemedy(1)).toBe(
      "at -c 1 only less other load on the machine helps, or tune at a node or depth limit ([time_control] nodes or depth), which no delay can cost",
    );
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
