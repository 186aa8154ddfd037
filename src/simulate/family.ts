import type { SpsaParam } from "../spsa/math.js";
import { createRng } from "../random/rng.js";
import type { ParamModel } from "./engine-model.js";
import type { Problem, Tuner } from "./tuners.js";

/**
 * The reference curvature: 1.25 Elo lost at 2 steps from the optimum (5 Elo at 4 steps),
 * per parameter. It is what the tuning-quality issue measured its problems with.
 */
export const REFERENCE_CURVATURE = 1.25 / 4;

export interface FamilyCell {
  parameters: number;
  /** Steps between θ₀ and the optimum, per parameter. */
  offset: number;
  /** Times the reference curvature. */
  curvature: number;
  type: SpsaParam["type"];
}

/** The family the defaults are chosen on: 5–40 parameters, 1–6 steps off, ¼–4× curvature, int and float. */
export function defaultFamily(): FamilyCell[] {
  const cells: FamilyCell[] = [];
  for (const parameters of [5, 10, 20, 40])
    for (const offset of [1, 3, 6])
      for (const curvature of [0.25, 1, 4])
        for (const type of ["float", "int"] as const) cells.push({ parameters, offset, curvature, type });
  return cells;
}

/**
 * One problem of a cell: parameters with a range of 20 steps (step 1 for ints, 0.05 of the
 * range for floats), optima drawn in the middle half of the range, θ₀ `offset` steps from the
 * optimum in a random direction.
 */
export function cellProblem(cell: FamilyCell, drawRate: number, seed: string): Problem {
  const rng = createRng(`problem:${seed}`);
  const params: SpsaParam[] = [];
  const model: ParamModel[] = [];
  for (let i = 0; i < cell.parameters; i++) {
    const step = cell.type === "int" ? 1 : 0.05;
    const range = 20 * step;
    const optimum = range / 4 + rng.next() * (range / 2);
    const direction = rng.next() < 0.5 ? -1 : 1;
    const name = `P${i}`;
    params.push({ name, value: optimum + direction * cell.offset * step, min: 0, max: range, step, type: cell.type });
    model.push({ name, optimum, curvature: cell.curvature * REFERENCE_CURVATURE, step, type: cell.type });
  }
  return { params, model, drawRate };
}

export function describeCell(cell: FamilyCell): string {
  return `${cell.parameters} ${cell.type}s, ${cell.offset} steps off, ${cell.curvature}× curvature`;
}

export interface CellResult {
  cell: FamilyCell;
  budget: number;
  /** Mean over seeds of Elo left at the start and at the end. */
  start: number;
  end: number;
  /** Standard error of the mean of (end − start) over seeds. */
  changeError: number;
}

/** Runs a tuner on every cell of the family at one budget, `seeds` problems per cell. */
export function runFamily(tuner: Tuner, cells: readonly FamilyCell[], budget: number, seeds: number, drawRate: number): CellResult[] {
  return cells.map((cell) => {
    const changes: number[] = [];
    let start = 0;
    let end = 0;
    for (let s = 0; s < seeds; s++) {
      const trace = tuner.run(cellProblem(cell, drawRate, String(s)), budget, `run${s}`);
      const first = trace.eloLeft[0] ?? Number.NaN;
      const last = trace.eloLeft.at(-1) ?? Number.NaN;
      start += first / seeds;
      end += last / seeds;
      changes.push(last - first);
    }
    const meanChange = end - start;
    const variance = changes.reduce((sum, x) => sum + (x - meanChange) ** 2, 0) / Math.max(1, seeds - 1);
    return { cell, budget, start, end, changeError: Math.sqrt(variance / seeds) };
  });
}
