import type { SpsaParam, Values } from "../spsa/math.js";

/**
 * A synthetic engine: each parameter costs curvature × (distance to its optimum in steps)²
 * Elo, independently of the others. Quadratic near an optimum is what real Elo curves look
 * like over the few steps SPSA explores, and it makes "Elo left" exact.
 */
export interface ParamModel {
  name: string;
  optimum: number;
  /** Elo lost per step² away from the optimum. */
  curvature: number;
  step: number;
  type: SpsaParam["type"];
}

export type EngineModel = readonly ParamModel[];

/** Elo below the optimum of an engine built with these values (ints are built rounded). */
export function eloLeft(model: EngineModel, values: Values): number {
  let loss = 0;
  for (const p of model) {
    const value = values[p.name];
    if (value === undefined) throw new RangeError(`no value for parameter ${p.name}`);
    const built = p.type === "int" ? Math.round(value) : value;
    const steps = (built - p.optimum) / p.step;
    loss += p.curvature * steps * steps;
  }
  return loss;
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
