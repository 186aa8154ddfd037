/**
 * Texel's error: the mean over positions of (result − sigmoid(K·score))², with the
 * seed's sigmoid 1 / (1 + 10^(−K·score/400)), scores in centipawns from white's view
 * and results 1, 0.5, 0 for white.
 */
export function meanSquaredError(scores: Int32Array, results: Float64Array, k: number): number {
  let sum = 0;
  const factor = -k / 400;
  for (let i = 0; i < scores.length; i++) {
    const predicted = 1 / (1 + 10 ** (factor * scores[i]!));
    const diff = results[i]! - predicted;
    sum += diff * diff;
  }
  return scores.length === 0 ? 0 : sum / scores.length;
}

/**
 * The K that minimises the error for fixed scores, by golden-section search on
 * [0.01, 10]: the error is unimodal in K (a logistic fit of one slope), and 60 steps
 * narrow the interval below 1e-11.
 */
export function fitK(scores: Int32Array, results: Float64Array): { k: number; error: number } {
  const ratio = (Math.sqrt(5) - 1) / 2;
  let low = 0.01;
  let high = 10;
  let a = high - ratio * (high - low);
  let b = low + ratio * (high - low);
  let errorA = meanSquaredError(scores, results, a);
  let errorB = meanSquaredError(scores, results, b);
  for (let step = 0; step < 60; step++) {
    if (errorA < errorB) {
      high = b;
      b = a;
      errorB = errorA;
      a = high - ratio * (high - low);
      errorA = meanSquaredError(scores, results, a);
    } else {
      low = a;
      a = b;
      errorA = errorB;
      b = low + ratio * (high - low);
      errorB = meanSquaredError(scores, results, b);
    }
  }
  const k = (low + high) / 2;
  return { k, error: meanSquaredError(scores, results, k) };
}
