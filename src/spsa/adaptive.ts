/**
 * Adaptive gains, pure: each parameter's step is scaled by how much of what the run has
 * measured about it lately is signal rather than noise. Computed from the run's completed
 * iterations (their Elo, game counts and per-parameter gradients), which the master reads
 * back from the database; the scales an iteration uses are recorded in its settings, so a
 * resumed master replays them exactly.
 *
 * - The run's signal share ρ over the last `window` iterations: 1 − m · Σ noise variance / Σ Elo²
 *   (m a two-standard-error margin, so pure noise reads as ρ = 0),
 *   where an iteration's noise variance follows from its game counts. Far from the optimum
 *   plus and minus differ by much more than the noise (ρ near 1); near it, or when nothing is
 *   left to gain, the measured Elo is the noise (ρ near 0) and the steps only wander.
 * - Each parameter's share φ_i: a James–Stein shrinkage of its mean gradient over the window,
 *   1 − (standard error)² / (mean)², kept within [0, 1]. A parameter that the others' signal
 *   moves at random (its gradient's sign flips with the noise) gets φ_i near 0; one whose
 *   gradient keeps its sign gets φ_i near 1.
 *
 * The scale is floor + (1 − floor) · ρ · φ_i, so a parameter never stops for good.
 */
import type { IterationResult, Values } from "./math.js";

export const ADAPT_MODES = ["off", "signal"] as const;
export type AdaptMode = (typeof ADAPT_MODES)[number];

export interface AdaptiveGains {
  mode: AdaptMode;
  /** Completed iterations looked back over. */
  window: number;
  /** The least scale, in (0, 1]. */
  floor: number;
}

/** What a completed iteration left that the scales need. */
export interface MeasuredIteration {
  elo: number;
  /** Plus-vs-minus game counts, for the noise of `elo`. */
  result: IterationResult;
  /** g_i, Elo per step; absent or 0 for a parameter that was not perturbed. */
  gradient: Values;
}

/**
 * Variance of an iteration's measured Elo from its game counts (delta method on the score,
 * with the per-game variance of a win/draw/loss result). The score is clamped as measuredElo
 * clamps it, so a sweep gives a large, finite variance.
 */
export function eloNoiseVariance(result: IterationResult): number {
  const games = result.plusWins + result.minusWins + result.draws;
  if (games <= 0) throw new RangeError("cannot estimate the noise of zero games");
  const margin = 1 / (2 * games);
  const mean = (result.plusWins + result.draws / 2) / games;
  const perGame = Math.max((result.plusWins + result.draws / 4) / games - mean * mean, 1 / (4 * games));
  const score = Math.min(1 - margin, Math.max(margin, mean));
  const eloPerScore = 400 / (Math.LN10 * score * (1 - score));
  return (perGame / games) * eloPerScore * eloPerScore;
}

/** ρ: the share of the recent iterations' Elo² that is not noise, in [0, 1]. */
export function signalShare(recent: readonly MeasuredIteration[]): number {
  let squares = 0;
  let noise = 0;
  for (const it of recent) {
    squares += it.elo * it.elo;
    noise += eloNoiseVariance(it.result);
  }
  // Σ Elo² / Σ noise is about 1 ± √(2/n) when there is no signal: ask for two of those above 1,
  // or a run with nothing left to gain would read its noise as signal about half the time.
  const margin = 1 + 2 * Math.sqrt(2 / recent.length);
  return squares === 0 ? 0 : clip(1 - (margin * noise) / squares, 0, 1);
}

/** φ_i: James–Stein shrinkage of one parameter's mean gradient over the recent iterations, in [0, 1]. */
export function parameterShare(recent: readonly MeasuredIteration[], name: string): number {
  const gs = recent.map((it) => it.gradient[name] ?? 0).filter((g) => g !== 0);
  if (gs.length < 2) return 0;
  const mean = gs.reduce((s, g) => s + g, 0) / gs.length;
  const standardErrorSquared = gs.reduce((s, g) => s + (g - mean) ** 2, 0) / (gs.length - 1) / gs.length;
  return mean === 0 ? 0 : clip(1 - standardErrorSquared / (mean * mean), 0, 1);
}

/**
 * The step scale of each named parameter for the next iteration, from the completed
 * iterations before it (oldest first). With mode "off" every scale is 1. Before any
 * iteration has completed the scales are the floor: the run starts carefully and speeds up
 * as soon as what it measures stands above the noise.
 */
export function stepScales(history: readonly MeasuredIteration[], names: readonly string[], options: AdaptiveGains): Values {
  if (options.mode === "off") return Object.fromEntries(names.map((n) => [n, 1]));
  const recent = history.slice(Math.max(0, history.length - Math.max(1, Math.round(options.window))));
  const rho = recent.length === 0 ? 0 : signalShare(recent);
  return Object.fromEntries(names.map((n) => [n, options.floor + (1 - options.floor) * rho * parameterShare(recent, n)]));
}

function clip(x: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, x));
}
