import type { Rng } from "../core/rng.js";
import { eloBetween } from "./engine-model.js";
import type { IterationResult, Values } from "../types/spsa.js";
import type { Problem } from "./problem.js";

/**
 * How an iteration's games are played, as the master's update sees them: a plus-vs-minus
 * result (plus's wins, minus's wins, draws). The default is plusVsMinus; reference mode is in
 * reference-mode.ts.
 */
export type IterationPlay = (problem: Problem, plus: Values, minus: Values, games: number, rng: Rng) => IterationResult;

/** Every game is θ+ against θ−. */
export const plusVsMinus: IterationPlay = (problem, plus, minus, games, rng) =>
  playGames(eloBetween(problem.model, plus, minus), games, problem.drawRate, rng);

/**
 * Games between two engines whose true Elo difference is known: the expected score is the
 * logistic one, and a share of the games are draws (drawRate at equal strength, fewer as
 * the gap grows, so that win, draw and loss probabilities stay valid and the expected score
 * stays exact).
 */
export function playGames(eloDiff: number, games: number, drawRate: number, rng: Rng): IterationResult {
  const score = 1 / (1 + 10 ** (-eloDiff / 400));
  const pDraw = 2 * drawRate * Math.min(score, 1 - score);
  const pWin = score - pDraw / 2;
  const result: IterationResult = { plusWins: 0, minusWins: 0, draws: 0 };
  for (let g = 0; g < games; g++) {
    const x = rng.next();
    if (x < pWin) result.plusWins++;
    else if (x < pWin + pDraw) result.draws++;
    else result.minusWins++;
  }
  return result;
}
