/** fastchess/cutechess-style adjudication rules; a rule is off when its object is absent. */
export interface AdjudicationRules {
  /** Draw after this many full moves. */
  maxMoves?: number;
  /** Draw when both sides report |score| <= `score` cp for `moveCount` moves each, from move `moveNumber` on. */
  draw?: { moveNumber: number; moveCount: number; score: number };
  /** A side loses when it reports score <= -`score` cp for `moveCount` of its moves in a row. */
  resign?: { moveCount: number; score: number };
}

export const DEFAULT_ADJUDICATION: AdjudicationRules = {
  maxMoves: 200,
  draw: { moveNumber: 40, moveCount: 8, score: 10 },
  resign: { moveCount: 4, score: 1000 },
};

export interface Verdict {
  result: "1-0" | "0-1" | "1/2-1/2";
  reason: string;
}

/**
 * Watches the scores the engines report, one call per ply. Pure: no clock, no board,
 * just counters, so every rule is unit-tested.
 */
export class Adjudicator {
  private drawStreak = 0;
  private readonly resignStreak: [number, number] = [0, 0];

  constructor(private readonly rules: AdjudicationRules) {}

  /**
   * @param side 0 white, 1 black: who just moved
   * @param fullMove the number of the move just made (1 for the first)
   * @param score the mover's last reported score in cp from its own side, if any
   */
  afterMove(side: 0 | 1, fullMove: number, score: number | undefined): Verdict | undefined {
    const { draw, resign, maxMoves } = this.rules;
    if (resign) {
      this.resignStreak[side] = score !== undefined && score <= -resign.score ? this.resignStreak[side] + 1 : 0;
      if (this.resignStreak[side] >= resign.moveCount) {
        return {
          result: side === 0 ? "0-1" : "1-0",
          reason: `adjudication: ${side === 0 ? "white" : "black"} resigns`,
        };
      }
    }
    if (draw) {
      const quiet = score !== undefined && Math.abs(score) <= draw.score && fullMove >= draw.moveNumber;
      this.drawStreak = quiet ? this.drawStreak + 1 : 0;
      if (this.drawStreak >= 2 * draw.moveCount) return { result: "1/2-1/2", reason: "adjudication: draw" };
    }
    if (maxMoves !== undefined && side === 1 && fullMove >= maxMoves) {
      return { result: "1/2-1/2", reason: "adjudication: max moves" };
    }
    return undefined;
  }
}
