import { runFamily, type CellResult, type FamilyCell } from "./family.js";
import type { SimulatedSpsa } from "./gains.js";
import type { Problem } from "./problem.js";
import type { Tuner } from "./tuners.js";
import { DEFAULT_ADAPTIVE } from "../config/config.js";

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
 * The gains the oracle picks among: plain SPSA (adapt off) at c_end 1.5–12 × r_end 0.0005–0.008, and
 * ours (the adaptive defaults) at c_end 3–12 × r_end 0.0015–0.006; `tunerFor` makes a tuner of the
 * shipped defaults with those changes (build mode's iterations or UCI-option mode's batches). A
 * first grid (c_end 0.75–6) had every pick of the family at 5,000 games at its largest c_end, so it
 * reaches to 12 (the family's ranges are 20 steps).
 */
export function limitCandidates(tunerFor: (name: string, changes: Partial<SimulatedSpsa>) => Tuner): Tuner[] {
  const off = { ...DEFAULT_ADAPTIVE, mode: "off" as const };
  return [
    ...[1.5, 3, 6, 9, 12].flatMap((cEnd) =>
      [0.0005, 0.001, 0.002, 0.004, 0.008].map((rEnd) =>
        tunerFor(`plain c_end ${cEnd} r_end ${rEnd}`, { cEnd, rEnd, adaptive: off }),
      ),
    ),
    ...[3, 6, 9, 12].flatMap((cEnd) =>
      [0.0015, 0.003, 0.006].map((rEnd) =>
        tunerFor(`ours c_end ${cEnd} r_end ${rEnd}`, { cEnd, rEnd, adaptive: DEFAULT_ADAPTIVE }),
      ),
    ),
  ];
}

/** Mean Elo left after `budget` games over `count` runs of `tuner`, problem and run seeds from `first`. */
export function meanEloLeft(
  tuner: Tuner,
  problemFor: (seed: number) => Problem,
  budget: number,
  first: number,
  count: number,
): number {
  let sum = 0;
  for (let s = first; s < first + count; s++) sum += tuner.run(problemFor(s), budget, `run${s}`).eloLeft.at(-1)!;
  return sum / count;
}

/**
 * The hindsight oracle on one surface given by its problems (a real engine's model, say, whose
 * optima may be the same in every problem: then only the games differ): the candidate with the
 * least mean Elo left over `seeds.train` runs, scored on `seeds.test` others.
 */
export function hindsightOnSurface(
  candidates: readonly Tuner[],
  problemFor: (seed: number) => Problem,
  budget: number,
  seeds: LimitSeeds,
): { end: number; chosen: string } {
  if (candidates.length === 0) throw new Error("hindsightOnSurface: no candidate tuner");
  const trained = candidates.map((tuner) => meanEloLeft(tuner, problemFor, budget, 0, seeds.train));
  const best = trained.indexOf(Math.min(...trained));
  const chosen = candidates[best]!;
  return { end: meanEloLeft(chosen, problemFor, budget, TEST_FIRST_SEED, seeds.test), chosen: chosen.name };
}

/**
 * How much of the way from `plain` to `limit` `ours` went, in mean Elo left over the same cells
 * (1: all of it; above 1: past the oracle; undefined where plain is already at the limit).
 */
export function shareOfTheWay(plain: number, ours: number, limit: number): number | undefined {
  const way = plain - limit;
  return way > 0 ? (plain - ours) / way : undefined;
}
