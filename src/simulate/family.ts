import { createRng } from "../core/rng.js";
import { stepsFromOptimum, type LossShape, type ParamModel } from "./engine-model.js";
import type { Tuner } from "./tuners.js";
import type { SpsaParam } from "../types/spsa.js";
import type { Problem } from "./problem.js";

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
  /** Only the first `far` parameters start `offset` steps off; the others start at their optimum. Absent: all. */
  far?: number;
  /** The parameters that start off start at their lower bound, their optimum `offset` steps inside. */
  atBound?: boolean;
  /** Absent: quadratic. */
  shape?: LossShape;
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
 * The rows the default family lacks: a few parameters far off and the rest at their optimum
 * (which must not wander), and non-quadratic curves: asymmetric (8× steeper above the
 * optimum; θ₀ on either side) and flat-topped (no loss within 2 steps), started off the
 * plateau and on it.
 */
export function newRows(): FamilyCell[] {
  const rows: Omit<FamilyCell, "type">[] = [
    { parameters: 20, far: 3, offset: 6, curvature: 1 },
    { parameters: 10, far: 2, offset: 3, curvature: 4 },
    { parameters: 10, offset: 3, curvature: 1, shape: { kind: "asymmetric", ratio: 8 } },
    { parameters: 10, offset: 5, curvature: 1, shape: { kind: "flat", halfWidth: 2 } },
    { parameters: 10, offset: 1, curvature: 1, shape: { kind: "flat", halfWidth: 2 } },
  ];
  return rows.flatMap((row) => (["float", "int"] as const).map((type) => ({ ...row, type })));
}

/**
 * Parameters that start at a bound of their range with the optimum a few steps inside (a
 * parameter at its minimum, as two of minnow's detunes were): the perturbation pair must not
 * measure the slope beyond the optimum and pin θ to the bound.
 */
export function boundRows(): FamilyCell[] {
  const rows: Omit<FamilyCell, "type">[] = [
    { parameters: 10, far: 3, offset: 3, curvature: 1, atBound: true },
    { parameters: 18, far: 6, offset: 4, curvature: 0.68, atBound: true },
    { parameters: 10, offset: 2, curvature: 1, atBound: true },
  ];
  return rows.flatMap((row) => (["float", "int"] as const).map((type) => ({ ...row, type })));
}

/**
 * One problem of a cell: parameters with a range of 20 steps (step 1 for ints, 0.05 of the
 * range for floats), optima drawn in the middle half of the range, θ₀ `offset` steps from the
 * optimum in a random direction (atBound: θ₀ at the lower bound 0, the optimum `offset` steps
 * above it).
 */
export function cellProblem(cell: FamilyCell, drawRate: number, seed: string): Problem {
  const rng = createRng(`problem:${seed}`);
  const params: SpsaParam[] = [];
  const model: ParamModel[] = [];
  for (let i = 0; i < cell.parameters; i++) {
    const step = cell.type === "int" ? 1 : 0.05;
    const range = 20 * step;
    const middle = range / 4 + rng.next() * (range / 2);
    const direction = rng.next() < 0.5 ? -1 : 1;
    const name = `P${i}`;
    const off = i < (cell.far ?? cell.parameters);
    const offset = off ? cell.offset : 0;
    const optimum = off && cell.atBound ? offset * step : middle;
    params.push({
      name,
      value: off && cell.atBound ? 0 : optimum + direction * offset * step,
      min: 0,
      max: range,
      step,
      type: cell.type,
    });
    model.push({
      name,
      optimum,
      curvature: cell.curvature * REFERENCE_CURVATURE,
      step,
      type: cell.type,
      ...(cell.shape && { shape: cell.shape }),
    });
  }
  return { params, model, drawRate };
}

export function describeCell(cell: FamilyCell): string {
  const where = cell.atBound ? " at their lower bound" : "";
  const off =
    cell.far === undefined
      ? `${cell.offset} steps off${where}`
      : `${cell.far} of them ${cell.offset} steps off${where}, the rest at their optimum`;
  const shape =
    cell.shape === undefined
      ? ""
      : cell.shape.kind === "flat"
        ? `, flat within ${cell.shape.halfWidth} steps`
        : `, ${cell.shape.ratio}× steeper above`;
  return `${cell.parameters} ${cell.type}s, ${off}, ${cell.curvature}× curvature${shape}`;
}

export interface CellResult {
  cell: FamilyCell;
  budget: number;
  /** Mean over seeds of Elo left at the start and at the end. */
  start: number;
  end: number;
  /** Standard error of the mean of (end − start) over seeds. */
  changeError: number;
  /**
   * Mean over seeds of the largest |θ − optimum| (steps) at the end among the parameters that
   * started at their optimum; 0 without such.
   */
  wander: number;
}

/**
 * Runs a tuner on every cell of the family at one budget, `seeds` problems per cell (seeds
 * `firstSeed` on: another first seed draws other problems of the same cells).
 */
export function runFamily(
  tuner: Tuner,
  cells: readonly FamilyCell[],
  budget: number,
  seeds: number,
  drawRate: number,
  firstSeed = 0,
): CellResult[] {
  return cells.map((cell) => {
    const changes: number[] = [];
    let start = 0;
    let end = 0;
    let wander = 0;
    for (let s = firstSeed; s < firstSeed + seeds; s++) {
      const problem = cellProblem(cell, drawRate, String(s));
      const trace = tuner.run(problem, budget, `run${s}`);
      const distances = stepsFromOptimum(problem.model, trace.final);
      const still = problem.model.slice(cell.far ?? cell.parameters).map((p) => distances[p.name] ?? 0);
      wander += Math.max(0, ...still) / seeds;
      const first = trace.eloLeft[0] ?? Number.NaN;
      const last = trace.eloLeft.at(-1) ?? Number.NaN;
      start += first / seeds;
      end += last / seeds;
      changes.push(last - first);
    }
    const meanChange = end - start;
    const variance = changes.reduce((sum, x) => sum + (x - meanChange) ** 2, 0) / Math.max(1, seeds - 1);
    return { cell, budget, start, end, changeError: Math.sqrt(variance / seeds), wander };
  });
}

/**
 * One budget's line of the defaults' tables: mean Elo left (of the mean start) · cells that
 * ended worse than they started / significantly worse (by more than 2 standard errors).
 */
export function familyLine(results: readonly CellResult[]): {
  text: string;
  worse: CellResult[];
  significant: CellResult[];
} {
  const mean = (f: (r: CellResult) => number) => results.reduce((s, r) => s + f(r), 0) / results.length;
  const worse = results.filter((r) => r.end > r.start);
  const significant = worse.filter((r) => r.end - r.start > 2 * r.changeError);
  return {
    text:
      `${mean((r) => r.end).toFixed(1)} (of ${mean((r) => r.start).toFixed(1)}) · ` +
      `${worse.length} / ${significant.length}`,
    worse,
    significant,
  };
}
