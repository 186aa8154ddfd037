import { perturb } from "./math.js";
import { createRng } from "../core/rng.js";
import type { DrawnBatch, OptionList, ParamSettings, SpsaMathConfig, SpsaParam, Values } from "../types/spsa.js";

/** k = 1 + whole iterations' worth of games drawn before this batch, at most maxIterations. */
export function scheduleStep(gamesBefore: number, gamesPerIteration: number, maxIterations: number): number {
  return Math.min(maxIterations, 1 + Math.floor(gamesBefore / gamesPerIteration));
}

/**
 * The parameters as the math sees them, at θ, in the run's order (a UCI-option run's, or a
 * build-mode iteration's recorded settings).
 */
export function paramsAt(
  { parameters, names }: { parameters: Readonly<Record<string, ParamSettings>>; names: readonly string[] },
  theta: Values,
): SpsaParam[] {
  return names.map((name) => {
    const s = parameters[name];
    const value = theta[name];
    if (s === undefined) throw new Error(`the run's parameter list has no settings for ${name}`);
    if (value === undefined) throw new Error(`θ has no value for parameter ${name}`);
    return { name, value, min: s.min, max: s.max, step: s.step, type: s.type, frozen: s.frozen };
  });
}

/**
 * A draw's signs as stored: one character per parameter in the run's order, '1' for +1, '0' for −1
 * or none (frozen).
 */
export function signBits(names: readonly string[], signs: Values): string {
  let bits = "";
  for (const name of names) bits += signs[name] === 1 ? "1" : "0";
  return bits;
}

/** The signs of stored bits, by name: +1 or −1, none for a frozen parameter (not perturbed). */
export function signsOfBits({ parameters, names }: OptionList, bits: string): Values {
  if (bits.length !== names.length) throw new RangeError(`${bits.length} signs stored for ${names.length} parameters`);
  const signs: Values = {};
  names.forEach((name, i) => {
    if (!parameters[name]?.frozen) signs[name] = bits[i] === "1" ? 1 : -1;
  });
  return signs;
}

/**
 * Draw `drawNumber` of a run: its signs come from the run's seed and the number, so a replay draws
 * the same (the seed's text says "batch": a draw was a batch's own before draws were shared).
 */
export function drawBatch(
  params: readonly SpsaParam[],
  gains: SpsaMathConfig,
  draw: { seed: string; drawNumber: number; gamesBefore: number; gamesPerIteration: number },
): DrawnBatch {
  const k = scheduleStep(draw.gamesBefore, draw.gamesPerIteration, gains.maxIterations);
  return { ...perturb(params, gains, k, createRng(`${draw.seed}:batch:${draw.drawNumber}`)), k };
}

/**
 * Games one draw covers from `gamesBefore` on, in a run of `targetGames`: in the run's first half
 * the rest of the current iteration (a shared draw, played by all the batches that fit in it;
 * aligned to iterations, so all have one k), else `batchGames` (each batch its own draw).
 * docs/uci-options.md, "Shared draws".
 */
export function drawSpan(
  gamesBefore: number,
  targetGames: number,
  batchGames: number,
  gamesPerIteration: number,
): number {
  return gamesBefore < targetGames / 2 ? gamesPerIteration - (gamesBefore % gamesPerIteration) : batchGames;
}
