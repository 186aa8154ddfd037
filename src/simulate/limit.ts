import { runFamily, type CellResult, type FamilyCell } from "./family.js";
import type { Tuner } from "./tuners.js";

/** A cell's result under the tuner the oracle chose for it. */
export interface LimitResult extends CellResult {
  /** The chosen tuner's name. */
  chosen: string;
}

/** Problems that choose a tuner for each cell, and other problems of the same cells that score the choice. */
export interface LimitSeeds {
  train: number;
  test: number;
}

/** Where the scoring problems' seeds start: far from the choosing problems' (0 on). */
export const TEST_FIRST_SEED = 1_000_000;

/**
 * The hindsight oracle, an estimate of the best a tuner could reach on each cell: the candidate
 * with the least Elo left over `seeds.train` problems of that cell (it knows the cell's shape,
 * size, curvature and distance, not where each optimum is), scored on `seeds.test` other
 * problems, so that its luck on the problems that chose it does not flatter it. As the best of
 * a finite list, it is a bound the true limit is at least as good as.
 */
export function hindsightLimit(
  candidates: readonly Tuner[],
  cells: readonly FamilyCell[],
  budget: number,
  seeds: LimitSeeds,
  drawRate: number,
): LimitResult[] {
  if (candidates.length === 0) throw new Error("hindsightLimit: no candidate tuner");
  const trained = candidates.map((tuner) => runFamily(tuner, cells, budget, seeds.train, drawRate));
  return cells.map((cell, index) => {
    let best = 0;
    for (let c = 1; c < candidates.length; c++) if (trained[c]![index]!.end < trained[best]![index]!.end) best = c;
    const chosen = candidates[best]!;
    const [scored] = runFamily(chosen, [cell], budget, seeds.test, drawRate, TEST_FIRST_SEED);
    return { ...scored!, chosen: chosen.name };
  });
}

/**
 * How much of the way from `plain` to `limit` `ours` went, in mean Elo left over the same cells
 * (1: all of it; above 1: past the oracle; undefined where plain is already at the limit).
 */
export function shareOfTheWay(plain: number, ours: number, limit: number): number | undefined {
  const way = plain - limit;
  return way > 0 ? (plain - ours) / way : undefined;
}
