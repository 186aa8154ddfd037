/**
 * Far tails of the standard normal, in log space: a bad worker's evidence reaches p-values far
 * below what a double holds (10⁻³⁰⁰), and a z from them must stay finite and ordered.
 */

/** log P(Z > z) for a standard normal Z; finite for every finite z. */
export function logUpperTail(z: number): number {
  if (z < 0) return Math.log1p(-Math.exp(logUpperTail(-z)));
  return Math.log(0.5) + logErfc(z / Math.SQRT2);
}

/**
 * z with log P(Z > z) = logP (logP ≤ 0): 0 at log ½, larger for smaller tails. Newton's method
 * on logUpperTail from the asymptotic start √(−2·logP), which converges in a few steps.
 */
export function upperQuantileOfLog(logP: number): number {
  if (!(logP <= 0)) throw new RangeError(`a log probability is at most 0, got ${logP}`);
  // Above ½ by symmetry, from log(1 − p) = log(−expm1(logP)), exact however close p is to 1.
  if (logP > Math.log(0.5))
    return logP === 0 ? Number.NEGATIVE_INFINITY : -upperQuantileOfLog(Math.log(-Math.expm1(logP)));
  let z = Math.sqrt(-2 * logP);
  for (let i = 0; i < 100; i++) {
    const tail = logUpperTail(z);
    // d/dz log P(Z > z) = −φ(z) / P(Z > z).
    const slope = -Math.exp(-0.5 * z * z - 0.5 * Math.log(2 * Math.PI) - tail);
    const next = z - (tail - logP) / slope;
    if (Math.abs(next - z) < 1e-12 * Math.max(1, Math.abs(z))) return next;
    z = next;
  }
  return z;
}

/** The z with P(Z > z) = p. */
export function upperQuantile(p: number): number {
  return upperQuantileOfLog(Math.log(p));
}

/**
 * log erfc(x) for x ≥ 0 (Numerical Recipes' erfcc, fractional error below 1.2·10⁻⁷ everywhere),
 * kept in log space so that it never underflows.
 */
function logErfc(x: number): number {
  const t = 1 / (1 + 0.5 * x);
  const poly =
    -1.26551223 +
    t *
      (1.00002368 +
        t *
          (0.37409196 +
            t *
              (0.09678418 +
                t *
                  (-0.18628806 +
                    t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277))))))));
  return Math.log(t) - x * x + poly;
}
