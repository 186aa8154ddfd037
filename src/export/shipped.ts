import type { ShipCheckRow } from "../db/ship-checks.js";
import { describeShipCheck, verdictWords } from "../verification/ship-text.js";
import type { Values } from "../types/spsa.js";

/** What `spsa export` writes for a run: its θ, where it comes from, and what to warn about. */
export interface ExportedTheta {
  theta: Values;
  /** "the ship check's candidate (tail average …)" or "the run's θ". */
  source: string;
  /**
   * Said on stderr and written into the exported file as a comment: the candidate did not pass, or
   * the check is not over.
   */
  caution: string | undefined;
}

/**
 * A run with a complete ship check ships its chosen candidate (docs/ship-check.md); without
 * one, or while it runs, the run's θ. A candidate that did not pass is said plainly.
 */
export function exportedTheta(run: { currentParameters: Values }, check: ShipCheckRow | undefined): ExportedTheta {
  if (check === undefined) return { theta: run.currentParameters, source: "the run's θ", caution: undefined };
  if (check.status !== "complete" || check.verdict === null || check.chosenParameters === null) {
    return {
      theta: run.currentParameters,
      source: "the run's θ",
      caution: `the ship check is not over (${describeShipCheck(check)}): this is the run's θ, not a checked candidate`,
    };
  }
  const source = `the ship check's candidate (${check.chosen})`;
  const caution =
    check.verdict === "pass"
      ? undefined
      : `${source} did not pass its test against the start θ (${verdictWords(check.verdict)}): ` +
        `${describeShipCheck(check)}`;
  return { theta: check.chosenParameters, source, caution };
}
