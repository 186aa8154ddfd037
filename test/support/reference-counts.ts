import type { IterationOutcome, ReferenceResult } from "../../src/types/spsa.js";

/** An iteration row's games of θ+ and θ− against a reference (reference mode, curvature pilot), counted from their side. */
export interface ReferenceCounts {
  ref_plus_wins: number;
  ref_plus_draws: number;
  ref_plus_losses: number;
  ref_minus_wins: number;
  ref_minus_draws: number;
  ref_minus_losses: number;
}

/** θ+'s and θ−'s results against the reference as the row recorded them. */
export const referenceOutcome = (row: ReferenceCounts): ReferenceResult => ({
  plus: { plusWins: row.ref_plus_wins, minusWins: row.ref_plus_losses, draws: row.ref_plus_draws },
  minus: { plusWins: row.ref_minus_wins, minusWins: row.ref_minus_losses, draws: row.ref_minus_draws },
});

/** Plus against minus, or θ+ and θ− each against the reference. */
export const outcomeOf = (
  row: ReferenceCounts & { plus_wins: number; minus_wins: number; draws: number },
  againstReference: boolean,
): IterationOutcome =>
  againstReference ? referenceOutcome(row) : { plusWins: row.plus_wins, minusWins: row.minus_wins, draws: row.draws };

/** All the row's games against the reference. */
export const referenceGames = (row: ReferenceCounts): number =>
  row.ref_plus_wins +
  row.ref_plus_draws +
  row.ref_plus_losses +
  row.ref_minus_wins +
  row.ref_minus_draws +
  row.ref_minus_losses;
