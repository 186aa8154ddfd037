import type { SpsaParam, Values } from "../types/spsa.js";

/**
 * A synthetic engine: each parameter costs curvature × (distance to its optimum in steps)²
 * Elo, independently of the others. Quadratic by default (what real Elo curves look like
 * near an optimum), or a non-quadratic shape; either way "Elo left" is exact.
 */
export interface ParamModel {
  name: string;
  optimum: number;
  /** Elo lost per step² away from the optimum. */
  curvature: number;
  step: number;
  type: SpsaParam["type"];
  /** Absent: quadratic on both sides. */
  shape?: LossShape;
}

/**
 * Non-quadratic curves: "asymmetric" costs `ratio` times the curvature above the optimum
 * (a steep side and a shallow one); "flat" costs nothing within `halfWidth` steps of the
 * optimum and is quadratic beyond (a plateau where the Elo does not change).
 */
export type LossShape = { kind: "asymmetric"; ratio: number } | { kind: "flat"; halfWidth: number };

export type EngineModel = readonly ParamModel[];

/** Elo below the optimum of an engine built with these values (ints are built rounded). */
export function eloLeft(model: EngineModel, values: Values): number {
  let loss = 0;
  for (const p of model) {
    const value = values[p.name];
    if (value === undefined) throw new RangeError(`no value for parameter ${p.name}`);
    const built = p.type === "int" ? Math.round(value) : value;
    loss += p.curvature * shapedSquare((built - p.optimum) / p.step, p.shape);
  }
  return loss;
}

/** The loss in units of curvature at `steps` (signed) from the optimum. */
function shapedSquare(steps: number, shape: LossShape | undefined): number {
  if (shape?.kind === "asymmetric") return steps > 0 ? shape.ratio * steps * steps : steps * steps;
  if (shape?.kind === "flat") return Math.max(0, Math.abs(steps) - shape.halfWidth) ** 2;
  return steps * steps;
}

/** Elo of the plus engine against the minus engine. */
export function eloBetween(model: EngineModel, plus: Values, minus: Values): number {
  return eloLeft(model, minus) - eloLeft(model, plus);
}

/** |θ − optimum| in steps, per parameter. */
export function stepsFromOptimum(model: EngineModel, values: Values): Values {
  return Object.fromEntries(model.map((p) => [p.name, Math.abs((values[p.name] ?? Number.NaN) - p.optimum) / p.step]));
}

/** The curvature that loses `lossElo` Elo at `lossSteps` steps from the optimum. */
export function curvatureFor(lossElo: number, lossSteps: number): number {
  return lossElo / (lossSteps * lossSteps);
}
