import { isReferenceResult, type IterationOutcome, type IterationResult, type Values } from "../types/spsa.js";

/**
 * Transfer in the run, pure (docs/ship-check.md): does the gradient measured at the ship limits
 * agree with the tuning limits'? Iteration k played plus against minus twice: at the tuning
 * limits (its own games, which the step uses) and at the ship limits (its transfer games). Each
 * gives a score difference s_k, and per parameter i an estimate of the gradient
 * s_k / ((plus_ki − minus_ki) / step_i), as the step divides its Elo by the spread played
 * (±2·c_ki in steps, the sign Δ_ki included). Averaged over the transfer iterations, with a
 * standard error; and across iterations the correlation of s_tune_k with s_ship_k, the one
 * number that pools every parameter (per-parameter signs from a few iterations are mostly noise).
 */

/** One transfer iteration: the spread played per parameter, in steps, and both score differences. */
export interface TransferSample {
  iteration: number;
  /** (plus − minus) / step per parameter: ±2·c_k·Δ_k, 0 for a parameter not perturbed. */
  spread: Values;
  /** (wins − losses) / games of plus against minus at the tuning limits (scoreDifference). */
  tune: number;
  /** The same at the ship limits. */
  ship: number;
}

/** A mean with its standard error (null with fewer than two values). */
export interface Estimate {
  mean: number;
  error: number | null;
}

export interface ParameterTransfer {
  name: string;
  /** Transfer iterations that perturbed it. */
  n: number;
  tune: Estimate;
  ship: Estimate;
  /** Both estimates have the same sign (or either is 0). */
  agree: boolean;
  /** Either estimate lies within 1.96 standard errors of 0: its sign is not measured. */
  withinNoise: boolean;
}

export interface TransferReport {
  /** Transfer iterations with both measurements. */
  n: number;
  /** Pearson correlation of s_tune_k and s_ship_k; null with fewer than 3 iterations or no spread. */
  correlation: number | null;
  /** Its 95 % interval (Fisher's z); null with fewer than 4 iterations. */
  interval: [number, number] | null;
  parameters: ParameterTransfer[];
  /** Names of the parameters whose signs disagree, in order. */
  disagree: string[];
}

const Z95 = 1.959964;

/**
 * Plus's wins − losses per game against minus, in [−1, 1]. Reference mode (the curvature pilot):
 * θ+'s against the reference minus θ−'s, which near equal strength reads the same.
 */
export function scoreDifference(outcome: IterationOutcome): number {
  if (!isReferenceResult(outcome)) return perGame(outcome);
  return perGame(outcome.plus) - perGame(outcome.minus);
}

function perGame(result: IterationResult): number {
  const games = result.plusWins + result.minusWins + result.draws;
  return games === 0 ? 0 : (result.plusWins - result.minusWins) / games;
}

/** (plus − minus) / step for each parameter with a step: what the step's gradient divides by. */
export function spreadInSteps(steps: Values, plus: Values, minus: Values): Values {
  const spread: Values = {};
  for (const [name, step] of Object.entries(steps)) spread[name] = ((plus[name] ?? 0) - (minus[name] ?? 0)) / step;
  return spread;
}

export function transferReport(samples: readonly TransferSample[], names: readonly string[]): TransferReport {
  const parameters = names.map((name) => parameterTransfer(samples, name));
  const correlation = pearson(
    samples.map((s) => s.tune),
    samples.map((s) => s.ship),
  );
  return {
    n: samples.length,
    correlation,
    interval: correlation === null ? null : fisherInterval(correlation, samples.length),
    parameters,
    disagree: parameters.filter((p) => p.n > 0 && !p.agree).map((p) => p.name),
  };
}

function parameterTransfer(samples: readonly TransferSample[], name: string): ParameterTransfer {
  const perturbed = samples.filter((s) => (s.spread[name] ?? 0) !== 0);
  const gradient = (score: (s: TransferSample) => number) =>
    estimate(perturbed.map((s) => score(s) / (s.spread[name] ?? 1)));
  const tune = gradient((s) => s.tune);
  const ship = gradient((s) => s.ship);
  const noise = (e: Estimate) => e.error === null || Math.abs(e.mean) < Z95 * e.error;
  return {
    name,
    n: perturbed.length,
    tune,
    ship,
    agree: tune.mean * ship.mean >= 0,
    withinNoise: noise(tune) || noise(ship),
  };
}

export function estimate(values: readonly number[]): Estimate {
  const n = values.length;
  if (n === 0) return { mean: 0, error: null };
  const mean = values.reduce((a, b) => a + b, 0) / n;
  if (n < 2) return { mean, error: null };
  const variance = values.reduce((a, v) => a + (v - mean) ** 2, 0) / (n - 1);
  return { mean, error: Math.sqrt(variance / n) };
}

export function pearson(xs: readonly number[], ys: readonly number[]): number | null {
  const n = xs.length;
  if (n < 3 || ys.length !== n) return null;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let k = 0; k < n; k++) {
    const dx = (xs[k] ?? 0) - mx;
    const dy = (ys[k] ?? 0) - my;
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  }
  return sxx === 0 || syy === 0 ? null : sxy / Math.sqrt(sxx * syy);
}

/** 95 % interval of a correlation from n pairs, by Fisher's z (atanh r ± 1.96 / √(n − 3)). */
function fisherInterval(r: number, n: number): [number, number] | null {
  if (n < 4) return null;
  const z = Math.atanh(Math.max(-0.999999, Math.min(0.999999, r)));
  const half = Z95 / Math.sqrt(n - 3);
  return [Math.tanh(z - half), Math.tanh(z + half)];
}
