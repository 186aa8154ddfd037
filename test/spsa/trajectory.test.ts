import { describe, expect, it } from "vitest";
import { gains, perturb, update } from "../../src/spsa/math.js";
import { createRng } from "../../src/core/rng.js";
import {
  previousMove,
  SC_MAX_FACTOR,
  SC_MIN_FACTOR,
  selfCorrectingCk,
  selfCorrectingFactor,
  tailAverage,
} from "../../src/spsa/trajectory.js";
import type { SpsaMathConfig, SpsaParam } from "../../src/types/spsa.js";

const float = (name: string, over: Partial<SpsaParam> = {}): SpsaParam => ({
  name,
  value: 5,
  min: 0,
  max: 100,
  step: 0.5,
  type: "float",
  ...over,
});
const result = (plusWins: number, minusWins: number, draws: number) => ({ plusWins, minusWins, draws });
/** θ of iterations 1..n for one parameter X, from its moves in steps of 0.5. */
const walk = (moves: number[]) =>
  moves.reduce((thetas, m) => [...thetas, { X: (thetas.at(-1)?.X ?? 5) + m * 0.5 }], [{ X: 5 }]);

describe("self-correcting schedule (SCSPSA)", () => {
  it("ends on c_end, falls to its least near N/4 and rises again", () => {
    const N = 400;
    expect(selfCorrectingCk(1.5, N, N)).toBeCloseTo(1.5, 12);
    const least = Array.from({ length: N }, (_, i) => i + 1).reduce((best, k) =>
      selfCorrectingCk(1.5, k, N) < selfCorrectingCk(1.5, best, N) ? k : best,
    );
    expect(least).toBe(N / 4);
    expect(selfCorrectingCk(1.5, 1, N)).toBeGreaterThan(selfCorrectingCk(1.5, N, N));
  });

  it("keeps a until the third block, then raises it while θ drifts and lowers it while θ wanders", () => {
    const params = [float("X")];
    const drifting = walk(Array<number>(12).fill(1));
    const wandering = walk([1, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1]);
    // Block length 4: the first correction uses moves 5..8 and applies from iteration 9.
    expect(selfCorrectingFactor(params, drifting, 8, 4)).toBe(1);
    expect(selfCorrectingFactor(params, drifting, 9, 4)).toBe(SC_MAX_FACTOR);
    expect(selfCorrectingFactor(params, wandering, 9, 4)).toBe(SC_MIN_FACTOR);
    // A second block compounds.
    expect(selfCorrectingFactor(params, drifting, 13, 4)).toBeCloseTo(SC_MAX_FACTOR ** 2, 12);
  });

  it("ignores frozen parameters and refuses a trajectory shorter than k", () => {
    const params = [float("X"), float("F", { frozen: true })];
    const thetas = walk([1, -1, 1, -1, 1, -1, 1, -1]).map((t, i) => ({ ...t, F: i }));
    expect(selfCorrectingFactor(params, thetas, 9, 4)).toBe(SC_MIN_FACTOR);
    expect(() => selfCorrectingFactor(params, thetas, 10, 4)).toThrow(/needs θ of iterations 1..10, got 9/);
  });

  it("gives the gains of the master: c_k of SCSPSA, a_k the standard mean times the factor", () => {
    const cfg: SpsaMathConfig = {
      a: 2,
      c: 3,
      A: 4,
      alpha: 0.602,
      gamma: 0.101,
      maxIterations: 12,
      schedule: "self-correcting",
    };
    const params = [float("X")];
    const thetas = walk(Array<number>(12).fill(1));
    let meanA = 0;
    for (let j = 1; j <= 12; j++) meanA += gains({ ...cfg, schedule: "standard" }, j).ak / 12;
    const g = gains(cfg, 9, { params, trajectory: thetas });
    expect(g.ak).toBeCloseTo(meanA * SC_MAX_FACTOR, 12);
    expect(g.ck).toBeCloseTo(selfCorrectingCk(3 / 12 ** 0.101, 9, 12), 12);
    expect(perturb(params, cfg, 9, createRng("s"), thetas).ak).toBe(g.ak);
    expect(() => perturb(params, cfg, 9, createRng("s"))).toThrow(/needs θ of iterations 1..9, got 0/);
  });
});

describe("momentum", () => {
  it("takes the previous move from the trajectory: 0 at the first iteration and for a new parameter", () => {
    expect(previousMove([{ X: 5 }], 1)).toEqual({ X: 0 });
    expect(previousMove([{ X: 5 }, { X: 6.5, Y: 2 }], 2)).toEqual({ X: 1.5, Y: 0 });
    expect(() => previousMove([{ X: 5 }], 2)).toThrow(/needs θ of iterations 1..2/);
  });

  it("adds β times the previous move to the step, clipped to max_step as a whole", () => {
    const p = float("X");
    const played = { ak: 0.01, plus: { X: 5.5 }, minus: { X: 4.5 } };
    const plain = update([p], played, result(20, 10, 10), { maxStep: 2 });
    const withMomentum = update([p], played, result(20, 10, 10), { maxStep: 2, momentum: 0.5 }, { X: 0.4 });
    expect(withMomentum.newValues.X).toBeCloseTo((plain.newValues.X ?? 0) + 0.2, 12);
    // A previous move of 4 steps would carry 2 steps on its own: the total stays within max_step.
    const capped = update([p], played, result(20, 10, 10), { maxStep: 2, momentum: 0.5 }, { X: 4 * 0.5 * 2 });
    expect(capped.newValues.X).toBeCloseTo(5 + 2 * 0.5, 12);
  });

  it("refuses to run without the previous move", () => {
    const played = { ak: 0.01, plus: { X: 5.5 }, minus: { X: 4.5 } };
    expect(() => update([float("X")], played, result(1, 0, 0), { momentum: 0.9 })).toThrow(
      /momentum needs the previous move/,
    );
  });
});

describe("tail averaging", () => {
  it("averages the last share of θ, the final θ at share 0", () => {
    const thetas = [{ X: 1 }, { X: 2 }, { X: 3 }, { X: 4 }, { X: 10 }];
    expect(tailAverage(thetas, 0)).toEqual({ X: 10 });
    expect(tailAverage(thetas, 0.4)).toEqual({ X: 7 });
    // ⌈0.5 · 5⌉ = 3 points.
    expect(tailAverage(thetas, 0.5).X).toBeCloseTo(17 / 3, 12);
    expect(tailAverage(thetas, 1).X).toBeCloseTo(4, 12);
  });

  it("averages a parameter that joined late over the points that have it", () => {
    expect(tailAverage([{ X: 1 }, { X: 3, Y: 10 }, { X: 5, Y: 20 }], 1)).toEqual({ X: 3, Y: 15 });
    expect(() => tailAverage([], 0.5)).toThrow(/empty/);
  });
});
