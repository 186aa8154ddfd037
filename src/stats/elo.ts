import type { Pentanomial, SprtBounds } from "../types/play.js";

/** Logistic Elo difference for a score; ±Infinity at 0 and 1. */
export function eloFromScore(score: number): number {
  if (score <= 0) return Number.NEGATIVE_INFINITY;
  if (score >= 1) return Number.POSITIVE_INFINITY;
  return 400 * Math.log10(score / (1 - score));
}

export function scoreFromElo(elo: number): number {
  return 1 / (1 + 10 ** (-elo / 400));
}

export interface EloEstimate {
  elo: number;
  /** Half width of the 95 % confidence interval, in Elo. */
  error: number;
  score: number;
}

/** z of a two-sided 95 % interval. */
export const Z95 = 1.959963984540054;

/** Mean and variance of a discrete distribution given counts at `values`. */
function moments(counts: readonly number[], values: readonly number[]): { n: number; mean: number; variance: number } {
  const n = counts.reduce((sum, c) => sum + c, 0);
  if (n === 0) return { n, mean: 0.5, variance: 0 };
  let mean = 0;
  counts.forEach((c, i) => (mean += (c * values[i]!) / n));
  let variance = 0;
  counts.forEach((c, i) => (variance += (c * (values[i]! - mean) ** 2) / n));
  return { n, mean, variance };
}

/** The error is unknown (Infinity) below two samples: one pair has no spread to measure. */
function estimate(counts: readonly number[], values: readonly number[]): EloEstimate {
  const { n, mean, variance } = moments(counts, values);
  if (n < 2) return { elo: eloFromScore(mean), error: Number.POSITIVE_INFINITY, score: mean };
  const delta = (Z95 * Math.sqrt(variance)) / Math.sqrt(n);
  const lo = eloFromScore(Math.max(mean - delta, 0));
  const hi = eloFromScore(Math.min(mean + delta, 1));
  return { elo: eloFromScore(mean), error: (hi - lo) / 2, score: mean };
}

const PAIR_SCORES = [0, 0.25, 0.5, 0.75, 1] as const;

/** Elo ± 95 % from pentanomial pair counts (the right error for paired games). */
export function eloFromPentanomial(pairs: Pentanomial): EloEstimate {
  return estimate(pairs, PAIR_SCORES);
}

/**
 * Fewer game pairs than this give no error bar worth showing: their spread is mostly chance
 * (two pairs of the same result measure ± 0.0).
 */
export const MIN_ERROR_PAIRS = 5;

/**
 * The 95 % half width to show for an estimate from these pair counts: null below MIN_ERROR_PAIRS
 * pairs or when not finite.
 */
export function shownError(error: number, pairs: Pentanomial | number): number | null {
  return pairCount(pairs) >= MIN_ERROR_PAIRS && Number.isFinite(error) ? error : null;
}

function pairCount(pairs: Pentanomial | number): number {
  return typeof pairs === "number" ? pairs : pairs.reduce((sum, c) => sum + c, 0);
}

/** "+12.3 ± 45.6 (95%)", or without enough pairs "+12.3 (2 pairs: too few for an error bar)". */
export function eloWithError(elo: number, error: number, pairs: Pentanomial | number): string {
  if (!Number.isFinite(elo)) return elo > 0 ? "+inf" : "-inf";
  const shown = shownError(error, pairs);
  const count = pairCount(pairs);
  const text = `${elo >= 0 ? "+" : ""}${elo.toFixed(1)}`;
  return shown === null
    ? `${text} (${count} ${count === 1 ? "pair" : "pairs"}: too few for an error bar)`
    : `${text} ± ${shown.toFixed(1)} (95%)`;
}

/** Elo ± 95 % from game counts, treating games as independent. */
export function eloFromTrinomial(wins: number, draws: number, losses: number): EloEstimate {
  return estimate([losses, draws, wins], [0, 0.5, 1]);
}

/** Likelihood of superiority: the chance A is stronger, from decisive games. */
export function los(wins: number, losses: number): number {
  if (wins + losses === 0) return 0.5;
  return 0.5 * (1 + erf((wins - losses) / Math.sqrt(2 * (wins + losses))));
}

export interface SprtState {
  llr: number;
  lower: number;
  upper: number;
  /** H1 accepted (A is at least elo1 stronger), H0 accepted, or undecided. */
  decision: "H1" | "H0" | undefined;
}

/**
 * Generalised SPRT on pentanomial counts (as fishtest and fastchess do), with the normal
 * approximation: LLR = N·(s1−s0)·(2·mean − s0 − s1) / (2·variance), logistic Elo bounds.
 */
export function sprt(pairs: Pentanomial, bounds: SprtBounds): SprtState {
  const lower = Math.log(bounds.beta / (1 - bounds.alpha));
  const upper = Math.log((1 - bounds.beta) / bounds.alpha);
  // fishtest's regularisation: a tiny count in every bucket, so that a run of identical
  // pairs (zero variance) still gives a finite, decisive LLR.
  const { n, mean, variance } = moments(
    pairs.map((count) => Math.max(count, 1e-3)),
    PAIR_SCORES,
  );
  const s0 = scoreFromElo(bounds.elo0);
  const s1 = scoreFromElo(bounds.elo1);
  const llr = variance > 0 ? (n * (s1 - s0) * (2 * mean - s0 - s1)) / (2 * variance) : 0;
  const decision = llr >= upper ? "H1" : llr <= lower ? "H0" : undefined;
  return { llr, lower, upper, decision };
}

/** Abramowitz–Stegun 7.1.26, |error| < 1.5e-7: plenty for a LOS percentage. */
export function erf(x: number): number {
  const sign = x < 0 ? -1 : 1;
  const t = 1 / (1 + 0.3275911 * Math.abs(x));
  const y =
    1 -
    ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-x * x);
  return sign * y;
}
