import { isReferenceResult, type IterationOutcome, type IterationResult } from "../types/spsa.js";

/** One result for people: `+9 -8 =7` (plus's wins, minus's wins, draws). */
export const resultText = (result: IterationResult) => `+${result.plusWins} -${result.minusWins} =${result.draws}`;

/**
 * An iteration's results for people: `+9 -8 =7` (plus's wins, minus's wins, draws), or in
 * reference mode each side's against the reference, `θ+ +5 -3 =4, θ− +4 -4 =4 vs reference`; a
 * curvature pilot's iteration names its opponent θ₀ (`vs θ₀`).
 */
export function outcomeText(outcome: IterationOutcome, opponent: "reference" | "θ₀" = "reference"): string {
  return isReferenceResult(outcome)
    ? `θ+ ${resultText(outcome.plus)}, θ− ${resultText(outcome.minus)} vs ${opponent}`
    : resultText(outcome);
}
