import type { GameResult } from "../../src/play/game.js";
import { START_FEN } from "../../src/play/position.js";
import { pairResult } from "../../src/play/runner.js";

export type Outcome = "win" | "loss" | "draw";

/** A game of the pair's first engine, as white (first game) or black (second game); `outside`: lost to a delay outside the engine. */
export function game(
  asWhite: boolean,
  outcome: Outcome,
  faults: Partial<GameResult["faults"]> = {},
  outside = false,
): GameResult {
  const whiteWins = (outcome === "win") === asWhite;
  return {
    white: asWhite ? "plus" : "minus",
    black: asWhite ? "minus" : "plus",
    opening: { fen: START_FEN },
    limits: { movetimeMs: 10 },
    result: outcome === "draw" ? "1/2-1/2" : whiteWins ? "1-0" : "0-1",
    reason: "test",
    plies: 2,
    faults: { white: "none", black: "none", ...faults },
    moves: [],
    ...(outside && { timeForfeit: { elapsedMs: 90, allowedMs: 60, cause: "outside" as const } }),
  };
}

/** A pair of the first engine's two games, with each game's faults. */
export const pair = (
  first: Outcome,
  second: Outcome,
  faults: [Partial<GameResult["faults"]>, Partial<GameResult["faults"]>] = [{}, {}],
) => pairResult([game(true, first, faults[0]), game(false, second, faults[1])]);
