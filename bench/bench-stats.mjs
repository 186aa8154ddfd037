// The statistics the bench scripts print: one definition of each, so two tables never disagree
// on what "median" or "p90" means.

export const mean = (xs) => xs.reduce((s, x) => s + x, 0) / xs.length;

/** Sample standard deviation (n − 1); 0 for fewer than two values. */
export const sd = (xs) => {
  if (xs.length < 2) return 0;
  const m = mean(xs);
  return Math.sqrt(xs.reduce((s, x) => s + (x - m) ** 2, 0) / (xs.length - 1));
};

/** Nearest-rank quantile (q in [0, 1]) of unsorted values; NaN for none. */
export const quantile = (xs, q) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
};

export const median = (xs) => quantile(xs, 0.5);
