import { measuredElo, perturb, update } from "./math.js";
import { createRng } from "../core/rng.js";
import { stepFactor } from "./adaptive.js";
import type {
  DrawnBatch,
  DrawnResult,
  IterationResult,
  OptionList,
  ParamSettings,
  ReportedBatch,
  SpsaMathConfig,
  SpsaParam,
  UpdateResult,
  Values,
} from "../types/spsa.js";

/** k = 1 + whole iterations' worth of games drawn before this batch, at most maxIterations. */
export function scheduleStep(gamesBefore: number, gamesPerIteration: number, maxIterations: number): number {
  return Math.min(maxIterations, 1 + Math.floor(gamesBefore / gamesPerIteration));
}

/** The parameters as the math sees them, at θ, in the run's order (a UCI-option run's, or a build-mode iteration's recorded settings). */
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

/** A draw's signs as stored: one character per parameter in the run's order, '1' for +1, '0' for −1 or none (frozen). */
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

/** Batch `batchNumber` of a run: its signs come from the run's seed and the number, so a replay draws the same. */
export function drawBatch(
  params: readonly SpsaParam[],
  gains: SpsaMathConfig,
  draw: { seed: string; batchNumber: number; gamesBefore: number; gamesPerIteration: number },
): DrawnBatch {
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
  scale?: number,
): UpdateResult {
  return update(
    paramsNow,
    { ak: (drawn.ak * drawn.games) / gamesPerIteration, plus: drawn.plus, minus: drawn.minus, ...(scale && { scale }) },
    result,
    gains,
  );
}

/**
 * The adaptive gains of a batch about to be applied, from the batches reported before it
 * (oldest first; see batchWindow). The batches of one shared draw are pooled into one sample
 * (pooledByDraw); each sample counts as the share of an iteration its games are (signalShare):
 * pooling the counts of batches drawn with different signs would add
 * signals of opposite signs and read them as noise, an 8-game batch's iteration then
 * measuring an eighth of the signal an iteration of build mode measures. The factor is the
 * same for every parameter (src/spsa/adaptive.ts); undefined when the run has no adaptive
 * gains.
 */
export function batchStepFactor(
  reported: readonly DrawnResult[],
  gains: SpsaMathConfig,
  gamesPerIteration: number,
): number | undefined {
  if (!gains.adaptive || gains.adaptive.mode === "off") return undefined;
  // The batches of one shared draw are one sample.
  const measured = pooledByDraw(reported)
    .filter((r) => r.plusWins + r.minusWins + r.draws > 0)
    .map((result) => ({ elo: measuredElo(result, gains.eloCap).elo, result }));
  return stepFactor(measured, { ...gains.adaptive, window: measured.length }, gamesPerIteration);
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

/**
 * Results of batches that played one draw (the same drawNumber) summed, in the order of each
 * draw's first batch: the adaptive scale reads a shared draw as one sample, as build mode reads
 * an iteration; pooling batches of different draws would cancel their signals (docs/uci-options.md).
 */
export function pooledByDraw(results: readonly DrawnResult[]): ReportedBatch[] {
  const pooled = new Map<number, ReportedBatch>();
  for (const r of results) {
    const p = pooled.get(r.drawNumber) ?? { plusWins: 0, minusWins: 0, draws: 0 };
    pooled.set(r.drawNumber, {
      plusWins: p.plusWins + r.plusWins,
      minusWins: p.minusWins + r.minusWins,
      draws: p.draws + r.draws,
    });
  }
  return [...pooled.values()];
}

/** How many reported batches make the adaptive window: `window` iterations' worth of games of this batch's size, as in build mode. */
export function batchWindow(gains: SpsaMathConfig, gamesPerIteration: number, batchGames: number): number {
  return Math.max(1, Math.ceil(((gains.adaptive?.window ?? 1) * gamesPerIteration) / Math.max(1, batchGames)));
}
