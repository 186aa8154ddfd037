import { describe, expect, it } from "vitest";
import { BatchTally } from "../../src/worker/batch-tally.js";
import { pair } from "../support/pairs.js";
import { noFaults } from "../../src/types/faults.js";

describe("a batch's counts", () => {
  it("are a plus-vs-minus PairTally's, unchanged, without a reference", () => {
    const tally = new BatchTally(false);
    tally.add(pair("win", "draw"));
    tally.add(pair("loss", "loss", [{ white: "crash" }, {}]));
    expect(tally.counts()).toEqual({
      wins: 1,
      losses: 2,
      draws: 1,
      pairs: [1, 0, 0, 1, 0],
      faults: [{ ...noFaults(), crash: 1 }, noFaults()],
      replays: 0,
      replayLimitPairs: 0,
    });
    expect(() => tally.add(pair("win", "win"), "minus")).toThrow(/plus-against-minus batch/);
  });

  it("in reference mode hold each side's results against the reference, both sides' pairs, and the reference's faults apart", () => {
    const tally = new BatchTally(true);
    // Unit 1: θ+ wins and draws; θ− loses twice, the second game on its own time loss.
    tally.add(pair("win", "draw"), "plus");
    tally.add(pair("loss", "loss", [{}, { black: "timeout" }]), "minus");
    // Unit 2: the reference crashes against θ+ (θ+ wins), θ− draws twice.
    tally.add(pair("win", "draw", [{ black: "crash" }, {}]), "plus");
    tally.add(pair("draw", "draw"), "minus");
    const counts = tally.counts();
    expect([counts.wins, counts.losses, counts.draws]).toEqual([0, 0, 0]);
    expect(counts.reference).toEqual({
      plus: { wins: 2, draws: 2, losses: 0 },
      minus: { wins: 0, draws: 2, losses: 2 },
    });
    // θ+'s pairs (DW, DW) and θ−'s (LL, DD), from the tuned engine's side.
    expect(counts.pairs).toEqual([1, 0, 1, 2, 0]);
    expect(counts.faults).toEqual([noFaults(), { ...noFaults(), timeout: 1 }, { ...noFaults(), crash: 1 }]);
    expect(tally.delayLosses).toBe(0);
  });
});
