import { describe, expect, it } from "vitest";
import { logLowerTailOfPearson } from "../../src/stats/pearson-tail.js";

/** The exact distribution of X² summed over `rows` rows of `n` counts, by convolving each row's. */
function exactLowerTail(x2: number, shares: number[], n: number, rows: number): number {
  const row = new Map<number, number>();
  const factorial = (k: number): number => (k <= 1 ? 1 : k * factorial(k - 1));
  for (let a = 0; a <= n; a++)
    for (let b = 0; b <= n - a; b++) {
      const counts = [a, b, n - a - b];
      let p = factorial(n);
      let x = 0;
      counts.forEach((k, c) => {
        p *= shares[c]! ** k / factorial(k);
        x += (k - n * shares[c]!) ** 2 / (n * shares[c]!);
      });
      const key = Math.round(x * 1e9) / 1e9;
      row.set(key, (row.get(key) ?? 0) + p);
    }
  let sum = new Map([[0, 1]]);
  for (let r = 0; r < rows; r++) {
    const next = new Map<number, number>();
    for (const [s, p] of sum)
      for (const [x, q] of row) {
        const key = Math.round((s + x) * 1e9) / 1e9;
        next.set(key, (next.get(key) ?? 0) + p * q);
      }
    sum = next;
  }
  let tail = 0;
  for (const [s, p] of sum) if (s <= x2 + 1e-9) tail += p;
  return tail;
}

describe("the lower tail of Pearson's X²", () => {
  it("bounds the exact tail from above, and not by much", () => {
    const shares = [0.5, 0.3, 0.2];
    for (const x2 of [5, 6, 8, 10]) {
      const exact = Math.log(exactLowerTail(x2, shares, 3, 6));
      const bound = logLowerTailOfPearson(x2, [{ counts: 3, rows: 6, shares: shares }]);
      expect(bound).toBeGreaterThanOrEqual(exact - 1e-9);
      // Chernoff's bound is within a few units of log: a test on it is lenient, not blind.
      expect(bound - exact).toBeLessThan(2.5);
    }
    // At or above X²'s mean (2 per row of three cells) the tail is not small.
    expect(logLowerTailOfPearson(12, [{ counts: 3, rows: 6, shares: shares }])).toBeGreaterThan(Math.log(0.3));
  });

  it("finds rows that never vary unlikely however few counts they hold", () => {
    // Rows of 4 at shares 3/4 and 1/4 sit exactly on their expectation 42 % of the time: 40 such rows, 0.42⁴⁰.
    const bound = logLowerTailOfPearson(0, [{ counts: 4, rows: 40, shares: [0.75, 0.25] }]);
    expect(bound).toBeGreaterThanOrEqual(40 * Math.log(0.421875) - 1e-9);
    expect(bound).toBeLessThan(40 * Math.log(0.421875) + 1);
    // Rows too large to enumerate take the chi² row: 40 rows of 100 with X² 0 are as unlikely as
    // 40 chi² variables with 1 degree of freedom summing to nearly 0.
    expect(logLowerTailOfPearson(0.5, [{ counts: 100, rows: 40, shares: [0.75, 0.25] }])).toBeLessThan(-60);
    expect(() => logLowerTailOfPearson(0, [{ counts: 4, rows: 1, shares: [1] }])).toThrow(/two or three cells/);
  });
});
