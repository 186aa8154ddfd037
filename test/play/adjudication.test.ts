import { describe, expect, it } from "vitest";
import { Adjudicator } from "../../src/play/adjudication.js";

/** Feeds plies from move `from` with the given [white, black] scores; returns the first verdict. */
function play(adjudicator: Adjudicator, from: number, scores: [number | undefined, number | undefined][]) {
  for (const [index, [white, black]] of scores.entries()) {
    const verdict = adjudicator.afterMove(0, from + index, white) ?? adjudicator.afterMove(1, from + index, black);
    if (verdict) return { verdict, move: from + index };
  }
  return undefined;
}

describe("adjudication", () => {
  const draw = { moveNumber: 40, moveCount: 3, score: 10 };

  it("draws when both sides stay within the score for N moves each, from move M", () => {
    const adjudicator = new Adjudicator({ draw });
    expect(play(adjudicator, 36, Array(7).fill([5, -5]))).toEqual({
      verdict: { result: "1/2-1/2", reason: "adjudication: draw" },
      move: 42,
    });
  });

  it("restarts the draw count when a score leaves the window or is missing", () => {
    const adjudicator = new Adjudicator({ draw });
    const scores: [number | undefined, number | undefined][] = [
      [0, 0],
      [0, 11],
      [0, 0],
      [undefined, 0],
      [0, 0],
      [0, 0],
      [0, 0],
    ];
    expect(play(adjudicator, 40, scores)?.move).toBe(46);
  });

  it("resigns a side whose own score stays below -X for N of its moves", () => {
    const adjudicator = new Adjudicator({ resign: { moveCount: 3, score: 500 } });
    const result = play(adjudicator, 10, [
      [600, -600],
      [700, -700],
      [800, -499],
      [900, -800],
      [900, -800],
      [900, -900],
    ]);
    expect(result).toEqual({ verdict: { result: "1-0", reason: "adjudication: black resigns" }, move: 15 });
    const white = new Adjudicator({ resign: { moveCount: 1, score: 500 } });
    expect(white.afterMove(0, 1, -500)).toEqual({ result: "0-1", reason: "adjudication: white resigns" });
  });

  it("draws at the move limit after black's move", () => {
    const adjudicator = new Adjudicator({ maxMoves: 50 });
    expect(adjudicator.afterMove(0, 50, 0)).toBeUndefined();
    expect(adjudicator.afterMove(1, 50, 0)).toEqual({ result: "1/2-1/2", reason: "adjudication: max moves" });
  });

  it("does nothing without rules", () => {
    expect(play(new Adjudicator({}), 1, Array(300).fill([-5000, 0]))).toBeUndefined();
  });
});
