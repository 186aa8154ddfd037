import { describe, expect, it } from "vitest";
import {
  estimate,
  pearson,
  scoreDifference,
  spreadInSteps,
  transferReport,
  type TransferSample,
} from "../../src/spsa/transfer.js";

describe("transfer in the run: the gradient at the ship limits against the tuning limits'", () => {
  it("scores plus against minus per game, and reference mode as θ+'s minus θ−'s", () => {
    expect(scoreDifference({ plusWins: 5, minusWins: 1, draws: 2 })).toBe(0.5);
    expect(scoreDifference({ plusWins: 0, minusWins: 0, draws: 0 })).toBe(0);
    expect(
      scoreDifference({
        plus: { plusWins: 3, minusWins: 1, draws: 0 },
        minus: { plusWins: 1, minusWins: 2, draws: 1 },
      }),
    ).toBe(0.5 - -0.25);
  });

  it("divides by the spread played in steps, sign included, as the step does", () => {
    expect(spreadInSteps({ A: 2, B: 0.5 }, { A: 13, B: 1.5 }, { A: 7, B: 2.5 })).toEqual({ A: 3, B: -2 });
  });

  it("gives the mean and its standard error", () => {
    expect(estimate([])).toEqual({ mean: 0, error: null });
    expect(estimate([4])).toEqual({ mean: 4, error: null });
    const e = estimate([1, 2, 3, 4]);
    expect(e.mean).toBe(2.5);
    expect(e.error).toBeCloseTo(Math.sqrt(5 / 3 / 4), 12);
  });

  it("correlates, and refuses to with too few points or no spread", () => {
    expect(pearson([1, 2, 3], [2, 4, 6])).toBeCloseTo(1, 12);
    expect(pearson([1, 2, 3], [3, 2, 1])).toBeCloseTo(-1, 12);
    expect(pearson([1, 2], [1, 2])).toBeNull();
    expect(pearson([1, 1, 1], [1, 2, 3])).toBeNull();
  });

  // A: plus and minus 2 steps apart with signs +,−,+,−; B with signs +,+,−,−.
  const spreads = [
    { A: 2, B: 2 },
    { A: -2, B: 2 },
    { A: 2, B: -2 },
    { A: -2, B: -2 },
  ];
  const samples = (tune: number[], ship: number[]): TransferSample[] =>
    spreads.map((spread, k) => ({ iteration: 2 * (k + 1), spread, tune: tune[k] ?? 0, ship: ship[k] ?? 0 }));

  it("per parameter: mean_k(s_k / spread_ki) at both limits, and whether the signs agree", () => {
    // Tuning limits: A helps (+0.2 per iteration where A is up), B is flat. Ship limits: A flat, B hurts.
    const report = transferReport(samples([0.2, -0.2, 0.2, -0.2], [-0.1, -0.1, 0.1, 0.1]), ["A", "B", "FROZEN"]);
    const [a, b, frozen] = report.parameters;
    expect(a).toMatchObject({ name: "A", n: 4, tune: { mean: 0.1, error: 0 }, ship: { mean: 0 } });
    expect(b).toMatchObject({ name: "B", n: 4, tune: { mean: 0 }, ship: { mean: -0.05, error: 0 } });
    // A parameter no transfer iteration perturbed measured nothing, and is not said to disagree.
    expect(frozen).toMatchObject({ name: "FROZEN", n: 0, tune: { mean: 0, error: null }, withinNoise: true });
    expect(report.n).toBe(4);
    expect(report.correlation).toBeCloseTo(0, 12);
    expect(report.disagree).toEqual([]);
  });

  it("names the parameters whose signs disagree, and says when an estimate is within noise", () => {
    const report = transferReport(samples([0.3, -0.1, 0.1, -0.3], [-0.25, 0.05, -0.05, 0.35]), ["A", "B"]);
    const [a, b] = report.parameters;
    expect(a?.tune.mean).toBeCloseTo(0.1, 12);
    expect(a?.ship.mean).toBeCloseTo(-0.0875, 12);
    expect(a?.agree).toBe(false);
    expect(b?.agree).toBe(false);
    expect(report.disagree).toEqual(["A", "B"]);
    // A's tuning estimate: 0.15, 0.05, 0.05, 0.15 → 0.1 ± 0.029, clear of 0; B's: 0.15, −0.05, 0.05, −0.15 → within noise.
    expect(a?.tune.error).toBeCloseTo(Math.sqrt(0.01 / 3 / 4), 12);
    expect(a?.withinNoise).toBe(false);
    expect(b?.withinNoise).toBe(true);
    expect(report.correlation).toBeLessThan(-0.9);
    const [lo, hi] = report.interval ?? [Number.NaN, Number.NaN];
    expect(lo).toBeGreaterThanOrEqual(-1);
    expect(lo).toBeLessThan(report.correlation ?? 0);
    expect(hi).toBeGreaterThan(report.correlation ?? 0);
  });

  it("leaves the correlation unmeasured with fewer than 3 iterations, and its interval with fewer than 4", () => {
    expect(transferReport(samples([0.1, 0.2], [0.1, 0.3]).slice(0, 2), ["A"])).toMatchObject({
      n: 2,
      correlation: null,
      interval: null,
    });
    const three = transferReport(samples([0.1, 0.2, 0.4], [0.1, 0.3, 0.2]).slice(0, 3), ["A"]);
    expect(three.correlation).not.toBeNull();
    expect(three.interval).toBeNull();
  });
});
