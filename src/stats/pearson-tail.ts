/**
 * The lower tail of Pearson's X² over rows of tables whose rows are drawn independently, each
 * table's from one multinomial: how unlikely rows that vary this little are. The normal and chi² approximations are
 * far too lenient there with rows of a few counts (a row of 4 pairs at shares 0.75 / 0.25 lands
 * exactly on its expectation 42 % of the time), so this is a Chernoff bound on the exact row
 * distributions: log P(X² ≤ x) ≤ min over λ ≥ 0 of λx + Σ_rows log E[e^(−λ X²_row)]. An upper bound
 * on the probability: a test on it errs on the side of the rows.
 */

/** Rows of more counts than this take the chi² row's transform, (1 + 2λ)^(−(C − 1)/2). */
const ENUMERATED_COUNTS = 24;

/** Rows of one size drawn from one multinomial: `rows` of `counts` each, at `shares` (two or three, each above 0). */
export interface PearsonRows {
  counts: number;
  rows: number;
  shares: readonly number[];
}

/** `x2`: the X² of every row summed, each against its group's shares. log P(X² ≤ x2), at most 0. */
export function logLowerTailOfPearson(x2: number, groups: readonly PearsonRows[]): number {
  const transforms = groups
    .filter((g) => g.counts > 0 && g.rows > 0)
    .map((g) => {
      if (g.shares.length < 2 || g.shares.length > 3)
        throw new RangeError(`two or three cells, got ${g.shares.length}`);
      return { rows: g.rows, cells: g.shares.length, terms: rowTerms(g.counts, g.shares) };
    });
  const logBound = (lambda: number) => {
    let sum = lambda * x2;
    for (const { rows, cells, terms } of transforms) sum += rows * logTransform(terms, lambda, cells);
    return sum;
  };
  // The bound is convex in λ: a ternary search over [0, 64] (40 rounds leave 64 · (2/3)⁴⁰ ≈ 10⁻⁵ of it).
  let lo = 0;
  let hi = 64;
  for (let i = 0; i < 40; i++) {
    const a = lo + (hi - lo) / 3;
    const b = hi - (hi - lo) / 3;
    if (logBound(a) <= logBound(b)) hi = b;
    else lo = a;
  }
  return Math.min(0, logBound((lo + hi) / 2));
}

/** A row's values of X² and their probabilities; null past ENUMERATED_COUNTS (the chi² row). */
function rowTerms(n: number, shares: readonly number[]): { x: number; p: number }[] | null {
  if (n > ENUMERATED_COUNTS) return null;
  const terms: { x: number; p: number }[] = [];
  const logFactorial = (k: number) => {
    let sum = 0;
    for (let i = 2; i <= k; i++) sum += Math.log(i);
    return sum;
  };
  const third = shares.length === 3;
  for (let a = 0; a <= n; a++) {
    for (let b = third ? 0 : n - a; b <= n - a; b++) {
      const counts = third ? [a, b, n - a - b] : [a, b];
      let logP = logFactorial(n);
      let x = 0;
      counts.forEach((k, c) => {
        const share = shares[c]!;
        logP += k * Math.log(share) - logFactorial(k);
        x += (k - n * share) ** 2 / (n * share);
      });
      terms.push({ x, p: Math.exp(logP) });
    }
  }
  return terms;
}

/** log E[e^(−λ X²_row)]. */
function logTransform(terms: { x: number; p: number }[] | null, lambda: number, cells: number): number {
  if (terms === null) return (-(cells - 1) / 2) * Math.log1p(2 * lambda);
  let sum = 0;
  for (const { x, p } of terms) sum += p * Math.exp(-lambda * x);
  return Math.log(sum);
}
