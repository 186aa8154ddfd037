import type { Param } from "../params/params.js";
import { InputError } from "../core/errors.js";
import type { ParamSettings } from "../config/iteration-settings.js";
import { optionValues } from "../params/option-names.js";
import { measuredElo, perturb, update, type IterationResult, type Perturbation, type SpsaMathConfig, type SpsaParam, type UpdateResult, type Values } from "./math.js";
import { createRng } from "../core/rng.js";
import { stepScales } from "./adaptive.js";

/**
 * The asynchronous SPSA of UCI-option mode, pure: every batch draws its own perturbation
 * from the θ of its claim, and its result moves the θ of its report (fishtest's scheme).
 * It is the master math of `src/spsa/math.ts` with the schedule counted in games: a batch
 * of n games is n / gamesPerIteration of an iteration, in its step and in the schedule.
 */

/** How one parameter reaches the engine in this mode, as recorded for the run. */
export interface OptionParamSettings extends ParamSettings {
  option: string;
  /** The option holds value × scale, rounded; undefined: a float is sent as a decimal. */
  optionScale: number | undefined;
}

export type OptionParams = Record<string, OptionParamSettings>;

export interface DrawnBatch extends Perturbation {
  /** The schedule's k of this batch. */
  k: number;
}

/** k = 1 + whole iterations' worth of games drawn before this batch, at most maxIterations. */
export function scheduleStep(gamesBefore: number, gamesPerIteration: number, maxIterations: number): number {
  return Math.min(maxIterations, 1 + Math.floor(gamesBefore / gamesPerIteration));
}

/** The parameters as the math sees them, at θ. */
export function paramsAt(parameters: OptionParams, theta: Values): SpsaParam[] {
  return Object.entries(parameters).map(([name, s]) => {
    const value = theta[name];
    if (value === undefined) throw new Error(`θ has no value for parameter ${name}`);
    return { name, value, min: s.min, max: s.max, step: s.step, type: s.type, frozen: s.frozen };
  });
}

/** Batch `batchNumber` of a run: its signs come from the run's seed and the number, so a replay draws the same. */
export function drawBatch(params: readonly SpsaParam[], gains: SpsaMathConfig, draw: { seed: string; batchNumber: number; gamesBefore: number; gamesPerIteration: number }): DrawnBatch {
  const k = scheduleStep(draw.gamesBefore, draw.gamesPerIteration, gains.maxIterations);
  return { ...perturb(params, gains, k, createRng(`${draw.seed}:batch:${draw.batchNumber}`)), k };
}

/**
 * A reported batch's step from the θ of now (`paramsNow`), which other batches may have
 * moved since this one was drawn: the gradient is the batch's own, a_k is scaled by its
 * share of an iteration's games, so the step per game does not depend on the batch size.
 */
export function applyBatch(
  paramsNow: readonly SpsaParam[],
  drawn: { ak: number; plus: Values; minus: Values; games: number },
  result: IterationResult,
  gains: SpsaMathConfig,
  gamesPerIteration: number,
  scale?: Values,
): UpdateResult {
  return update(paramsNow, { ak: (drawn.ak * drawn.games) / gamesPerIteration, plus: drawn.plus, minus: drawn.minus, ...(scale && { scale }) }, result, gains);
}

/** A reported batch as the adaptive gains read it: its game counts. */
export type ReportedBatch = IterationResult;

/**
 * The adaptive gains of a batch about to be applied, from the batches reported before it
 * (oldest first; see batchWindow). The batches are pooled into groups of an iteration's games
 * (the last group may be smaller) and each group counts as one iteration, its Elo from the
 * pooled counts: a batch of a few games often ends at the clamped score, whose Elo the noise
 * formula would underrate, and the pooled Elo keeps the ratio of signal to noise. Undefined
 * when the run has no adaptive gains.
 */
export function batchStepScales(parameters: OptionParams, reported: readonly ReportedBatch[], gains: SpsaMathConfig, gamesPerIteration: number): Values | undefined {
  if (!gains.adaptive || gains.adaptive.mode === "off") return undefined;
  const groups: IterationResult[] = [];
  let open: IterationResult | undefined;
  for (const b of reported) {
    open ??= { plusWins: 0, minusWins: 0, draws: 0 };
    open.plusWins += b.plusWins;
    open.minusWins += b.minusWins;
    open.draws += b.draws;
    if (open.plusWins + open.minusWins + open.draws >= gamesPerIteration) {
      groups.push(open);
      open = undefined;
    }
  }
  if (open) groups.push(open);
  const measured = groups
    .filter((r) => r.plusWins + r.minusWins + r.draws > 0)
    .map((result) => ({ elo: measuredElo(result, gains.eloCap).elo, result }));
  return stepScales(measured, Object.keys(parameters), { ...gains.adaptive, window: measured.length });
}

/** How many reported batches make the adaptive window: `window` iterations' worth of games of this batch's size, as in build mode. */
export function batchWindow(gains: SpsaMathConfig, gamesPerIteration: number, batchGames: number): number {
  return Math.max(1, Math.ceil(((gains.adaptive?.window ?? 1) * gamesPerIteration) / Math.max(1, batchGames)));
}

/** The `setoption` values of an engine playing `values` (ints rounded as built; see optionValues). */
export function engineOptions(parameters: OptionParams, values: Values): Record<string, number> {
  const params = Object.entries(parameters).map(([name, s]) => ({ name, type: s.type, value: values[name] ?? 0 }));
  const targets = Object.entries(parameters).map(([name, s]) => ({ param: name, option: s.option, scale: s.optionScale ?? 1 }));
  return Object.fromEntries(optionValues(params, targets, values));
}

/** What the run records of params.toml in this mode; every parameter must name its option. */
export function optionParamsOf(params: readonly Param[], paramsFile: string): OptionParams {
  const missing = params.filter((p) => p.option === undefined).map((p) => p.name);
  if (missing.length > 0) {
    throw new InputError(
      paramsFile,
      `[engine] mode = "options" sets every parameter through its UCI option, and ${missing.map((n) => `[${n}]`).join(", ")} ` +
        `${missing.length > 1 ? "have" : "has"} no option key: add option = "NAME" (and option_scale for a float held as a scaled integer)`,
    );
  }
  return Object.fromEntries(
    params.map((p) => [p.name, { min: p.min, max: p.max, step: p.step, type: p.type, frozen: p.frozen ?? false, option: p.option ?? p.name, optionScale: p.optionScale }]),
  );
}
