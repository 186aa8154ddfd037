import { describe, expect, it } from "vitest";
import { addPair, addReplays, emptyTally, totalFaults, type PlusGame } from "../../src/worker/tally.js";

const win: PlusGame = { outcome: "win" };
const loss: PlusGame = { outcome: "loss" };
const draw: PlusGame = { outcome: "draw" };

describe("tallying game pairs from the plus engine's side", () => {
  it("puts each pair in its pentanomial bucket and counts W/L/D per game", () => {
    const tally = emptyTally();
    for (const pair of [[loss, loss], [loss, draw], [draw, loss], [win, loss], [draw, draw], [draw, win], [win, win]] as const) {
      addPair(tally, pair);
    }
    expect(tally.pairs).toEqual([1, 2, 2, 1, 1]);
    expect(tally.plusWins).toBe(4);
    expect(tally.minusWins).toBe(5);
    expect(tally.draws).toBe(5);
    expect(tally.plusWins + tally.minusWins + tally.draws).toBe(14);
  });

  it("counts faults by side and kind, and the game stays a loss for the faulty side", () => {
    const tally = emptyTally();
    addPair(tally, [
      { outcome: "loss", fault: { side: "plus", kind: "crash" } },
      { outcome: "win", fault: { side: "minus", kind: "time" } },
    ]);
    addPair(tally, [{ outcome: "win", fault: { side: "minus", kind: "illegal" } }, { outcome: "draw" }]);
    expect(tally.faults).toEqual({ plusCrashes: 1, minusCrashes: 0, plusTimeLosses: 0, minusTimeLosses: 1, plusIllegalMoves: 0, minusIllegalMoves: 1 });
    expect(totalFaults(tally.faults)).toBe(3);
    expect(tally.pairs).toEqual([0, 0, 1, 1, 0]);
  });

  it("counts time losses to outside delays apart from engine faults, and the replays", () => {
    const tally = emptyTally();
    addPair(tally, [{ outcome: "win", fault: { side: "minus", kind: "delay" } }, { outcome: "loss", fault: { side: "plus", kind: "time" } }]);
    addReplays(tally, { replays: 3, replayLimitReached: true });
    addReplays(tally, { replays: 1, replayLimitReached: false });
    expect(tally.delays).toEqual({ plusDelayLosses: 0, minusDelayLosses: 1, replays: 4, replayLimitPairs: 1 });
    expect(tally.faults.plusTimeLosses).toBe(1);
    expect(totalFaults(tally.faults)).toBe(1);
    expect(tally.pairs).toEqual([0, 0, 1, 0, 0]);
  });
});
