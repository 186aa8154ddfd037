/**
 * The Elo gained so far, pure (docs/gain-so-far.md). A small share of a run's games play θ, as it
 * is when they are drawn, against θ₀ ("gain games", in blocks). The gain of θ now is the pooled
 * score of the blocks of the last half of the run so far, with its 95 % interval: θ moves little
 * over that half, and in the simulator a line read at the window's end was 30–40 % wider for the
 * same coverage. What the rest of the budget adds is projected by a weighted line through the
 * blocks' scores against ln(games) over the last three quarters, read at the budget: SPSA's gain
 * per game falls as its steps shrink, and for the saturating curves runs show the line
 * overshoots, which only keeps the stop rule from firing. Steps dotted with later batches'
 * gradients (the estimate tried before) were biased low and ±125–250 Elo wide at 5,000 games.
 */
import { scoreToElo } from "./math.js";
import { Z95, eloFromScore } from "../stats/elo.js";
import type { IterationResult } from "../types/spsa.js";

/** A block of gain games: θ as it was when `at` games of the run had been played, against θ₀. */
export interface GainBlock {
  at: number;
  /** From θ's side: its wins as plusWins, θ₀'s as minusWins. */
  result: IterationResult;
}

export interface GainOptions {
  /** The gain reads the blocks drawn in the last `window` share of the games played so far. */
  window: number;
  /** "level" (the design: the window's pooled score) or "line" (read at its end), for the docs' comparison. */
  shape?: "level" | "line";
  /** The rest's line reads the blocks drawn in the last `restWindow` share of the games so far. */
  restWindow: number;
}

/**
 * The design (bench/gain-so-far.mjs, docs/gain-so-far.md): the gain from the last half of the
 * games, the rest's line from the last three quarters.
 */
export const DEFAULT_GAIN_OPTIONS: GainOptions = { window: 0.5, restWindow: 0.75 };

/** An Elo estimate with its 95 % interval; an end is ±Infinity where the score reaches 0 or 1. */
export interface EloInterval {
  elo: number;
  low: number;
  high: number;
}

export interface GainReading {
  /** θ now against θ₀. */
  gain: EloInterval;
  /**
   * What the games from now to the budget are projected to add; absent until the line has three
   * blocks, and when θ's score against θ₀ is too near 0 or 1 for games to measure a rise.
   */
  rest?: EloInterval;
  /** The gain games the gain read. */
  games: number;
}

/**
 * The gain of θ now (after `now` games of the run, gain games included) and what the run's
 * `budget` is projected to add, from the gain blocks drawn so far; undefined before any block in
 * the gain's window.
 */
export function readGain(
  blocks: readonly GainBlock[],
  now: number,
  budget: number,
  options: GainOptions,
): GainReading | undefined {
  const level = fitScores(blocks, now, options.window, options.shape === "line");
  if (!level) return undefined;
  const gain = level.interval(now);
  const line = fitScores(blocks, now, options.restWindow, true);
  if (!line?.sloped || budget <= now || !Number.isFinite(gain.low) || !Number.isFinite(gain.high))
    return { gain, games: level.games };
  // The rest: the line's rise from now to the budget, in Elo at the scores it passes through.
  const rise = line.slope * (Math.log(budget) - Math.log(now));
  const riseSe = line.slopeSe * (Math.log(budget) - Math.log(now));
  const from = line.score(now);
  const perScore = eloPerScore(from + rise / 2);
  const projected = scoreToElo(clampScore(from + rise, line.games)) - scoreToElo(clampScore(from, line.games));
  return {
    gain,
    rest: { elo: projected, low: projected - Z95 * riseSe * perScore, high: projected + Z95 * riseSe * perScore },
    games: level.games,
  };
}

interface ScoreFit {
  games: number;
  sloped: boolean;
  slope: number;
  slopeSe: number;
  /** The fitted score after `at` games. */
  score(at: number): number;
  /** Elo of the fitted score after `at` games, with its 95 % interval. */
  interval(at: number): EloInterval;
}

/**
 * Weighted least squares of each block's score on ln(at) (a level when not `sloped`, or with
 * fewer than three blocks or one ln(at)), weighted by its games, over the blocks drawn in the last
 * `window` share of `now` games. The per-game variance is the residuals' (draws lower it, as
 * they do in a real match), at least 1/games: as if one game had gone the other way, so that a
 * window of all wins (θ hundreds of Elo above θ₀) reads as a lower bound and not as certainty.
 */
function fitScores(blocks: readonly GainBlock[], now: number, window: number, sloped: boolean): ScoreFit | undefined {
  const from = now * (1 - window);
  const read = blocks.filter((b) => b.at <= now && b.at >= from && gamesOf(b.result) > 0);
  if (read.length === 0) return undefined;
  const games = read.reduce((sum, b) => sum + gamesOf(b.result), 0);
  const x = (at: number) => Math.log(Math.max(at, 1));
  const meanX = read.reduce((sum, b) => sum + gamesOf(b.result) * x(b.at), 0) / games;
  const meanS = read.reduce((sum, b) => sum + gamesOf(b.result) * scoreOf(b.result), 0) / games;
  const sxx = read.reduce((sum, b) => sum + gamesOf(b.result) * (x(b.at) - meanX) ** 2, 0);
  const hasSlope = sloped && read.length >= 3 && sxx > 1e-12 * games;
  const slope = hasSlope
    ? read.reduce((sum, b) => sum + gamesOf(b.result) * (x(b.at) - meanX) * (scoreOf(b.result) - meanS), 0) / sxx
    : 0;
  const score = (at: number) => meanS + slope * (x(at) - meanX);
  // Per-game variance of a score around the fit: each game scores 1, ½ or 0.
  let squares = 0;
  for (const b of read) {
    const f = score(b.at);
    const { plusWins, minusWins, draws } = b.result;
    squares += plusWins * (1 - f) ** 2 + draws * (0.5 - f) ** 2 + minusWins * f ** 2;
  }
  const variance = Math.max(squares / Math.max(1, games - (hasSlope ? 2 : 1)), 1 / games);
  // The fitted score at ln(t) has variance σ²·(1/N + (ln t − x̄)²/Sxx); the slope σ²/Sxx.
  const scoreSe = (at: number) => Math.sqrt(variance * (1 / games + (hasSlope ? (x(at) - meanX) ** 2 / sxx : 0)));
  return {
    games,
    sloped: hasSlope,
    slope,
    slopeSe: hasSlope ? Math.sqrt(variance / sxx) : Infinity,
    score,
    interval: (at) => ({
      elo: scoreToElo(clampScore(score(at), games)),
      low: eloFromScore(score(at) - Z95 * scoreSe(at)),
      high: eloFromScore(score(at) + Z95 * scoreSe(at)),
    }),
  };
}

/**
 * The stop rule: the rest of the budget is projected, with 95 % confidence, to add less than
 * `threshold` Elo, and to lose no more than that: its whole interval lies within ±threshold. A
 * projection confidently below −threshold says the line misfits a noisy window (SPSA's θ does
 * not get worse in expectation), not that the run is done.
 */
export function nothingLeftToGain(reading: GainReading | undefined, threshold: number): boolean {
  return reading?.rest !== undefined && reading.rest.high < threshold && reading.rest.low > -threshold;
}

function gamesOf(result: IterationResult): number {
  return result.plusWins + result.minusWins + result.draws;
}

function scoreOf(result: IterationResult): number {
  return (result.plusWins + result.draws / 2) / gamesOf(result);
}

/** A score kept half a game of `games` inside (0, 1), as measuredElo keeps it (never ±∞ Elo). */
function clampScore(score: number, games: number): number {
  const margin = 1 / (2 * games);
  return Math.min(1 - margin, Math.max(margin, score));
}

/** dElo/dscore of the logistic curve. */
function eloPerScore(score: number): number {
  const s = Math.min(1 - 1e-9, Math.max(1e-9, score));
  return 400 / Math.LN10 / (s * (1 - s));
}
