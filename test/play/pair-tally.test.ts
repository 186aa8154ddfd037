import { describe, expect, it } from "vitest";
import { describeFaultKinds, engineFaults } from "../../src/play/faults.js";
import { PairTally } from "../../src/play/match-tally.js";
import { pairResult } from "../../src/play/runner.js";
import { game, pair } from "../support/pairs.js";
import { byCounter, noFaults } from "../../src/types/faults.js";

describe("counting game pairs from the first engine's side", () => {
  it("puts each pair in its pentanomial bucket and counts W/L/D per game", () => {
    const tally = new PairTally();
    for (const [a, b] of [
      ["loss", "loss"],
      ["loss", "draw"],
      ["draw", "loss"],
      ["win", "loss"],
      ["draw", "draw"],
      ["draw", "win"],
      ["win", "win"],
    ] as const) {
      tally.add(pair(a, b));
    }
    expect(tally.pairs).toEqual([1, 2, 2, 1, 1]);
    expect([tally.wins, tally.losses, tally.draws]).toEqual([4, 5, 5]);
    expect(tally.games).toBe(14);
  });

  it("counts faults by side and kind, and the game stays a loss for the faulty side", () => {
    const tally = new PairTally();
    // The first engine crashes as white; the second runs out of its own time as white.
    tally.add(pairResult([game(true, "loss", { white: "crash" }), game(false, "win", { white: "timeout" })]));
    // The second engine plays an unparsable move, then fails to start.
    tally.add(pairResult([game(true, "win", { black: "garbage" }), game(false, "win", { white: "startup" })]));
    expect(tally.faults[0]).toEqual({ ...noFaults(), crash: 1 });
    expect(tally.faults[1]).toEqual({ ...noFaults(), timeout: 1, garbage: 1, startup: 1 });
    expect(byCounter(tally.faults[1])).toEqual({ crashes: 1, timeLosses: 1, illegalMoves: 1, delayLosses: 0 });
    expect(tally.faults.map(engineFaults)).toEqual([1, 3]);
    expect(tally.pairs).toEqual([0, 0, 1, 0, 1]);
  });

  it("counts time losses to outside delays apart from engine faults, and the replays", () => {
    const tally = new PairTally();
    const late = game(true, "win", { black: "timeout" }, true);
    tally.add(pairResult([late, game(false, "loss", { black: "timeout" })], 3, true));
    tally.add(pairResult([game(true, "draw"), game(false, "draw")], 1, false));
    expect(tally.faults[1]).toEqual({ ...noFaults(), delay: 1 });
    expect(tally.faults[0]).toEqual({ ...noFaults(), timeout: 1 });
    expect(tally.faults.map(engineFaults)).toEqual([1, 0]);
    expect([tally.replays, tally.replayLimitPairs]).toEqual([4, 1]);
  });

  it("copies its counts as plain data", () => {
    const tally = new PairTally();
    tally.add(pairResult([game(true, "loss", { white: "illegal" }), game(false, "draw")]));
    const counts = tally.counts();
    tally.add(pair("win", "win"));
    expect(counts).toEqual({
      wins: 0,
      losses: 1,
      draws: 1,
      pairs: [0, 1, 0, 0, 0],
      faults: [{ ...noFaults(), illegal: 1 }, noFaults()],
      replays: 0,
      replayLimitPairs: 0,
    });
  });

  it("names the engine faults in words, by kind, only those seen", () => {
    expect(describeFaultKinds({ crashes: 1, timeLosses: 0, illegalMoves: 0 })).toBe("1 crash");
    expect(describeFaultKinds({ crashes: 2, timeLosses: 1, illegalMoves: 3 })).toBe(
      "2 crashes, 1 time loss, 3 illegal moves",
    );
    expect(describeFaultKinds({ crashes: 0, timeLosses: 0, illegalMoves: 0 })).toBe("none");
  });
});
