import { tailAverage } from "./trajectory.js";
import type { Values } from "../types/spsa.js";

/**
 * The ship check's pure part (docs/ship-check.md): which θ of a run are candidates, which of
 * two goes on after an elimination match, and what the test against the start θ says.
 */

export interface Candidate {
  label: string;
  values: Values;
}

export const FINAL_LABEL = "final θ";

/**
 * The candidates in elimination order: the run's own result first (the holder: the tail
 * average with `[spsa] average_tail`, else the final θ), then the others, each of which must
 * beat the holder so far. Candidates that build the same engine (`key`) count once.
 */
export function shipCandidates(run: {
  /** θ after each completed iteration, the final θ last. */
  thetaAfter: readonly Values[];
  /** `[ship] tail`: the share of the last iterations averaged into the tail candidate. */
  tail: number;
  /** `[spsa] average_tail`: > 0 when the run's own result is a tail average. */
  averageTail: number;
  /** What makes two θ the same candidate: the values an engine is built with. */
  key: (values: Values) => string;
}): Candidate[] {
  const final = run.thetaAfter.at(-1);
  if (final === undefined) throw new RangeError("a ship check needs at least one completed iteration");
  const n = run.thetaAfter.length;
  const averaged = (share: number): Candidate => ({
    label: `tail average of the last ${Math.max(1, Math.ceil(share * n))} of ${n} iterations`,
    values: tailAverage(run.thetaAfter, share),
  });
  const own = run.averageTail > 0 ? averaged(run.averageTail) : { label: FINAL_LABEL, values: final };
  const others = [{ label: FINAL_LABEL, values: final }, averaged(run.tail)];
  const seen = new Set<string>();
  return [own, ...others].filter((candidate) => {
    const key = run.key(candidate.values);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** A challenger takes over only by scoring more than the holder: a drawn match keeps the holder. */
export function challengerWins(result: { wins: number; losses: number }): boolean {
  return result.wins > result.losses;
}

export type ShipVerdict = "pass" | "fail" | "undecided";

/** The SPRT's decision as the ship check says it: H1 passes, H0 fails, reaching max_games leaves it undecided. */
export function shipVerdict(decision: string | null): ShipVerdict | null {
  if (decision === "H1") return "pass";
  if (decision === "H0") return "fail";
  return decision === "undecided" ? "undecided" : null;
}
