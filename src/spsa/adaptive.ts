/**
 * Adaptive gains, pure: every step is scaled by how much of what the run has measured lately
 * is signal rather than noise. Computed from the run's completed iterations (their Elo and
 * game counts), which the master reads back from the database; the scales an iteration uses
 * are recorded in its settings, so a resumed master replays them exactly.
 *
 * The run's signal share ρ over the last `window` iterations is 1 − m · Σ noise variance / Σ Elo²,
 * where an iteration's noise variance follows from its game counts and m is a two-standard-error
 * margin (so pure noise reads as ρ = 0). Far from the optimum plus and minus differ by much more
 * than the noise (ρ near 1) and steps of r_end's full size pay; near it, or when nothing is left
 * to gain, the measured Elo is the noise (ρ near 0) and large steps would only wander. The scale
 * is floor + (1 − floor) · ρ, the same for every parameter (docs/adaptive-gains.md: a
 * per-parameter share from each gradient's sign history was tried and lost).
 */
import { resultsOf } from "./math.js";
import type { AdaptiveGains, IterationOutcome, IterationResult, MeasuredIteration, Values } from "../types/spsa.js";

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

/**
 * Variance of the Elo an iteration's update saw (iterationElo): eloNoiseVariance of its
 * plus-vs-minus counts, or in reference mode the sum of both sides' (their Elo are measured on
 * separate games, so the variance of the difference is the sum).
 */
export function iterationNoise(outcome: IterationOutcome): number {
  return resultsOf(outcome).reduce((sum, result) => sum + eloNoiseVariance(result), 0);
}

/**
 * ρ: the share of the recent iterations' Elo² that is not noise, in [0, 1]. An iteration of
 * fewer games than `gamesPerIteration` (a UCI-option batch: each has its own perturbation, so
 * their results cannot be pooled; the signs of their signals differ) counts as the iteration
 * its games are a share of: its signal, Elo² less its noise, is an iteration's, and its noise
 * is scaled to an iteration's games. The margin grows as the noise is scaled down, since the
 * Elo² of a few games estimates the signal that much less surely. With whole iterations this
 * is Σ Elo² against Σ noise.
 */
export function signalShare(recent: readonly MeasuredIteration[], gamesPerIteration?: number): number {
  let squares = 0;
  let noise = 0;
  let scaledNoise = 0;
  let counted = 0;
  for (const it of recent) {
    const results = resultsOf(it.result);
    const games = results.map((r) => r.plusWins + r.minusWins + r.draws);
    // A batch whose games were all voided measured nothing.
    if (games.some((g) => g === 0)) continue;
    const fewest = Math.min(...games);
    const share = gamesPerIteration === undefined ? 1 : Math.min(1, fewest / gamesPerIteration);
    // The noise is subtracted at a leverage of 1 / share, so it must not be the per-game
    // variance of the sample, which is n / (n − 1) too small: 12 % at 8 games, ρ 0.3 on pure noise.
    const variance = iterationNoise(it.result) * (share < 1 && fewest > 1 ? fewest / (fewest - 1) : 1);
    squares += it.elo * it.elo - variance * (1 - share);
    noise += variance;
    scaledNoise += variance * share;
    counted++;
  }
  // Σ Elo² / Σ noise is about 1 ± √(2/n) when there is no signal (batches: that many times Σ noise /
  // Σ scaled noise, the leverage of their noise): ask for two of those above 1,
  // or a run with nothing left to gain would read its noise as signal about half the time.
  if (counted === 0 || squares <= 0) return 0;
  const margin = 1 + 2 * Math.sqrt(2 / counted) * (noise / scaledNoise);
  return clip(1 - (margin * scaledNoise) / squares, 0, 1);
}

/**
 * The step scale of each named parameter for the next iteration, from the completed
 * iterations before it (oldest first). With mode "off" every scale is 1. Before any
 * iteration has completed the scales are the floor: the run starts carefully and speeds up
 * as soon as what it measures stands above the noise.
 */
export function stepScales(
  history: readonly MeasuredIteration[],
  names: readonly string[],
  options: AdaptiveGains,
): Values {
  const scale = stepFactor(history, options);
  return Object.fromEntries(names.map((n) => [n, scale]));
}

/** The one factor stepScales gives every parameter. */
export function stepFactor(
  history: readonly MeasuredIteration[],
  options: AdaptiveGains,
  gamesPerIteration?: number,
): number {
  if (options.mode === "off") return 1;
  const recent = history.slice(Math.max(0, history.length - Math.max(1, Math.round(options.window))));
  return options.floor + (1 - options.floor) * signalShare(recent, gamesPerIteration);
}

function clip(x: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, x));
}
