import { iterationNoise } from "../spsa/adaptive.js";
import { iterationElo } from "../spsa/math.js";
import type { Rng } from "../core/rng.js";
import { eloLeft } from "./engine-model.js";
import { playGames, type IterationPlay } from "./game-model.js";
import type { IterationResult, ReferenceResult, Values } from "../types/spsa.js";
import type { Problem } from "./problem.js";

/**
 * The reference engine of a reference-mode run: θ₀ as built ("start"), or an engine `elo`
 * stronger (positive) or weaker than θ₀, fixed for the whole run.
 */
export type Reference = { kind: "start" } | { kind: "fixed"; elo: number };

export function describeReference(reference: Reference): string {
  if (reference.kind === "start") return "reference θ₀";
  return `reference ${Math.abs(reference.elo)} Elo ${reference.elo >= 0 ? "stronger" : "weaker"} than θ₀`;
}

/**
 * Reference mode at equal games: of an iteration's games, half are θ+ against the reference and
 * half θ− against it (a game pair is one game of each), drawn from the same logistic model with
 * draws. The Elo the update sees is Elo(θ+ vs ref) − Elo(θ− vs ref) and its noise the sum of
 * their noises, as the master computes them (iterationElo, iterationNoise). A simulated
 * iteration is played as one plus-vs-minus result, so this returns the plus-vs-minus result
 * with the same Elo and the same noise (see equivalentResult).
 */
export function referencePlay(reference: Reference, eloCap: number): IterationPlay {
  return (problem, plus, minus, games, rng) => {
    const outcome = referenceOutcome(reference, problem, plus, minus, games, rng);
    return equivalentResult(iterationElo(outcome, eloCap).elo, iterationNoise(outcome));
  };
}

/**
 * An iteration's games in reference mode, half θ+ and half θ− against the reference, each side's
 * result from its own side.
 */
export function referenceOutcome(
  reference: Reference,
  problem: Problem,
  plus: Values,
  minus: Values,
  games: number,
  rng: Rng,
): ReferenceResult {
  const start = Object.fromEntries(problem.params.map((p) => [p.name, p.value]));
  // Strength is −(Elo left); the reference is θ₀'s strength plus its offset.
  const referenceStrength = -eloLeft(problem.model, start) + (reference.kind === "fixed" ? reference.elo : 0);
  const against = (values: Values, count: number) =>
    playGames(-eloLeft(problem.model, values) - referenceStrength, count, problem.drawRate, rng);
  const plusGames = Math.ceil(games / 2);
  return { plus: against(plus, plusGames), minus: against(minus, games - plusGames) };
}

/**
 * A plus-vs-minus result (fractional counts, no draws) whose measured Elo is `elo` and whose
 * eloNoiseVariance is `noise`: with score s and no draws the noise is (400/ln 10)² / (n·s·(1 − s)),
 * which gives the count n.
 */
export function equivalentResult(elo: number, noise: number): IterationResult {
  const score = 1 / (1 + 10 ** (-elo / 400));
  const games = (400 / Math.LN10) ** 2 / (noise * score * (1 - score));
  return { plusWins: score * games, minusWins: (1 - score) * games, draws: 0 };
}
