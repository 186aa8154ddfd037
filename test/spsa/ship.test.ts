import { describe, expect, it } from "vitest";
import { challengerWins, FINAL_LABEL, shipCandidates, shipVerdict } from "../../src/spsa/ship.js";
import type { Values } from "../../src/types/spsa.js";

const rounded = (values: Values) => JSON.stringify(Object.values(values).map(Math.round));

describe("ship check candidates", () => {
  const thetaAfter = [{ X: 10 }, { X: 12 }, { X: 14 }, { X: 20 }];

  it("puts the final θ first, then the tail average over the [ship] tail share", () => {
    expect(shipCandidates({ thetaAfter, tail: 0.5, averageTail: 0, key: rounded })).toEqual([
      { label: FINAL_LABEL, values: { X: 20 } },
      { label: "tail average of the last 2 of 4 iterations", values: { X: 17 } },
    ]);
  });

  it("puts the run's own tail average first when [spsa] average_tail made it the run's result", () => {
    expect(shipCandidates({ thetaAfter, tail: 1, averageTail: 0.5, key: rounded })).toEqual([
      { label: "tail average of the last 2 of 4 iterations", values: { X: 17 } },
      { label: FINAL_LABEL, values: { X: 20 } },
      { label: "tail average of the last 4 of 4 iterations", values: { X: 14 } },
    ]);
  });

  it("counts θ that build the same engine once", () => {
    // One iteration: its tail is the final θ.
    expect(shipCandidates({ thetaAfter: [{ X: 3 }], tail: 0.5, averageTail: 0, key: rounded })).toEqual([
      { label: FINAL_LABEL, values: { X: 3 } },
    ]);
    // 20.2 and 20.4 round to the same int.
    expect(
      shipCandidates({ thetaAfter: [{ X: 20.4 }, { X: 20 }], tail: 1, averageTail: 0, key: rounded }),
    ).toHaveLength(1);
    expect(() => shipCandidates({ thetaAfter: [], tail: 0.5, averageTail: 0, key: rounded })).toThrow(RangeError);
  });
});

describe("the elimination and the verdict", () => {
  it("lets a challenger take over only by scoring more", () => {
    expect(challengerWins({ wins: 3, losses: 2 })).toBe(true);
    expect(challengerWins({ wins: 2, losses: 2 })).toBe(false);
    expect(challengerWins({ wins: 0, losses: 1 })).toBe(false);
  });

  it("reads the SPRT's decision as pass, fail or undecided", () => {
    expect(shipVerdict("H1")).toBe("pass");
    expect(shipVerdict("H0")).toBe("fail");
    expect(shipVerdict("undecided")).toBe("undecided");
    expect(shipVerdict(null)).toBeNull();
  });
});
