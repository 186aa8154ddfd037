import { describe, expect, it } from "vitest";
import {
  defaultA,
  deriveFromEnd,
  gains,
  iterationElo,
  measuredElo,
  perturb,
  scoreToElo,
  update,
} from "../../src/spsa/math.js";
import { createRng, type Rng } from "../../src/core/rng.js";
import type { SpsaMathConfig, SpsaParam } from "../../src/types/spsa.js";

/** An rng that returns the given draws in order, so a test knows every sign and u. */
function scripted(...draws: number[]): Rng {
  let i = 0;
  return {
    next: () => {
      const x = draws[i++];
      if (x === undefined) throw new Error("scripted rng ran out of draws");
      return x;
    },
  };
}

const cfg: SpsaMathConfig = { a: 1, c: 1, A: undefined, alpha: 0.602, gamma: 0.101, maxIterations: 100 };
const int = (over: Partial<SpsaParam> = {}): SpsaParam => ({
  name: "P",
  value: 10,
  min: 0,
  max: 20,
  step: 1,
  type: "int",
  ...over,
});
const result = (plusWins: number, minusWins: number, draws: number) => ({ plusWins, minusWins, draws });

describe("gains", () => {
  it("defaults A to 10 % of max_iterations", () => {
    expect(defaultA(1000)).toBe(100);
    expect(gains({ ...cfg, alpha: 1, A: undefined, maxIterations: 1000 }, 1).ak).toBeCloseTo(1 / 101, 12);
    expect(gains({ ...cfg, alpha: 1, A: 0, maxIterations: 1000 }, 1).ak).toBe(1);
  });

  it("decays c_k with k^gamma and a_k with (k + A)^alpha", () => {
    const g = gains({ ...cfg, a: 3, c: 2, A: 5, alpha: 0.5, gamma: 0.5 }, 4);
    expect(g.ck).toBeCloseTo(1, 12);
    expect(g.ak).toBeCloseTo(1, 12);
  });

  it("rejects k < 1 (k is 1-based)", () => {
    expect(() => gains(cfg, 0)).toThrow(RangeError);
    expect(() => gains(cfg, 1.5)).toThrow(RangeError);
  });
});

describe("perturb: integer rule", () => {
  it("keeps plus and minus at least 1 apart with a tiny step and c_k, whatever u", () => {
    const tiny = { ...cfg, c: 0.01 };
    for (let k = 1; k <= 200; k++) {
      const p = perturb([int({ step: 0.05, value: 10.37 })], tiny, k, createRng(`int:${k}`));
      expect(p.delta.P).toBe(0.5);
      expect(Math.abs((p.plus.P ?? 0) - (p.minus.P ?? 0))).toBeGreaterThanOrEqual(1);
      expect(Number.isInteger(p.plus.P)).toBe(true);
      expect(Number.isInteger(p.minus.P)).toBe(true);
    }
  });

  it("rounds plus and minus with one shared u", () => {
    // θ = 10.3, δ = 0.5, s = +1: raw 10.8 and 9.8; u = 0.1 → 10 and 9; u = 0.3 → 11 and 10.
    expect(perturb([int({ value: 10.3, step: 0.1 })], cfg, 1, scripted(0.2, 0.1))).toMatchObject({
      plus: { P: 10 },
      minus: { P: 9 },
    });
    expect(perturb([int({ value: 10.3, step: 0.1 })], cfg, 1, scripted(0.2, 0.3))).toMatchObject({
      plus: { P: 11 },
      minus: { P: 10 },
    });
  });

  it("moves the pair inward at a bound instead of collapsing it", () => {
    // θ at max 20, δ = 0.5: the centre moves to 19.5, so plus and minus are 20 and 19 (or 19 and 20).
    for (const u of [0, 0.5, 0.99]) {
      const p = perturb([int({ value: 20, step: 0.1 })], cfg, 1, scripted(0.2, u));
      expect(p.plus.P).toBe(20);
      expect(p.minus.P).toBe(19);
    }
    // θ = 0.2 at min 0, δ 0.5, u 0.2: before, plus and minus both rounded to 0.
    const low = perturb([int({ value: 0.2, step: 0.5 })], cfg, 1, scripted(0.2, 0.2));
    expect([low.plus.P, low.minus.P]).toEqual([1, 0]);
  });

  it("shrinks a wide pair near a bound so it stays centred on θ, never below one step", () => {
    const wide = { ...cfg, c: 4 }; // c_1 = 4 steps
    // θ = 3, 2 steps above min 1: δ 4 shrinks to 2, plus and minus 5 and 1 around θ (u 0, s +1).
    const near = perturb([int({ value: 3, min: 1 })], wide, 1, scripted(0.2, 0));
    expect([near.plus.P, near.minus.P]).toEqual([5, 1]);
    // Far from the bounds the full δ: θ = 10 → 14 and 6.
    expect(perturb([int({ value: 10 })], wide, 1, scripted(0.2, 0))).toMatchObject({
      plus: { P: 14 },
      minus: { P: 6 },
    });
    // At the bound one step is left: the pair is moved inward by it (min 1 → 3 and 1).
    const at = perturb([int({ value: 1, min: 1 })], wide, 1, scripted(0.2, 0));
    expect([at.plus.P, at.minus.P]).toEqual([3, 1]);
    // A float 0.05 from its top 1 with step 0.1: one step around a centre moved to 0.9.
    const top = perturb([{ name: "F", value: 0.95, min: 0, max: 1, step: 0.1, type: "float" }], wide, 1, scripted(0.2));
    expect(top.plus.F).toBe(1);
    expect(top.minus.F).toBeCloseTo(0.8, 12);
  });

  it("narrows the pair only when the integer range is narrower than 2δ", () => {
    const p = perturb([int({ value: 1, min: 0.5, max: 3.5, step: 4 })], cfg, 1, scripted(0.9, 0.99));
    // Integers 1..3, δ = 4 > 1: centre 2, half-width 1 → plus 1, minus 3 (s = −1).
    expect(p.signs.P).toBe(-1);
    expect(p.plus.P).toBe(1);
    expect(p.minus.P).toBe(3);
    const single = perturb([int({ value: 2, min: 1.5, max: 2.5 })], cfg, 1, scripted(0.1, 0.5));
    expect([single.plus.P, single.minus.P]).toEqual([2, 2]);
  });

  it("plays a frozen parameter at its rounded value and draws nothing for it", () => {
    const p = perturb([int({ name: "F", value: 7.6, frozen: true }), int({ name: "Q" })], cfg, 1, scripted(0.1, 0.5));
    expect(p.plus.F).toBe(8);
    expect(p.minus.F).toBe(8);
    expect(p.signs.F).toBeUndefined();
    expect([p.plus.Q, p.minus.Q]).toEqual([11, 9]);
  });
});

describe("perturb", () => {
  it("keeps float plus and minus 2δ apart inside the bounds, without rounding", () => {
    const top = perturb([{ name: "F", value: 0.95, min: 0, max: 1, step: 0.1, type: "float" }], cfg, 1, scripted(0.1));
    expect(top.plus.F).toBe(1);
    expect(top.minus.F).toBeCloseTo(0.8, 12);
    const bottom = perturb([{ name: "F", value: 0, min: 0, max: 1, step: 0.1, type: "float" }], cfg, 1, scripted(0.9));
    expect(bottom.plus.F).toBe(0);
    expect(bottom.minus.F).toBeCloseTo(0.2, 12);
  });

  it("is deterministic for a seed and differs between iterations", () => {
    const params = Array.from({ length: 12 }, (_, i) => int({ name: `P${i}`, step: 3 }));
    expect(perturb(params, cfg, 3, createRng("s:3"))).toEqual(perturb(params, cfg, 3, createRng("s:3")));
    expect(perturb(params, cfg, 3, createRng("s:3")).signs).not.toEqual(
      perturb(params, cfg, 4, createRng("s:4")).signs,
    );
  });
});

describe("measuredElo", () => {
  it("gives a finite, capped Elo of the right sign at 100 % and 0 %", () => {
    const sweep = measuredElo(result(10, 0, 0), 1000);
    expect(sweep.score).toBe(0.95);
    expect(sweep.elo).toBeCloseTo(scoreToElo(0.95), 9);
    expect(sweep.elo).toBeGreaterThan(500);
    expect(measuredElo(result(0, 10, 0), 1000).elo).toBeCloseTo(-sweep.elo, 9);
    expect(measuredElo(result(10, 0, 0)).elo).toBe(400);
    expect(measuredElo(result(0, 10, 0)).elo).toBe(-400);
  });

  it("caps at elo_cap and leaves smaller values alone", () => {
    expect(measuredElo(result(7, 3, 0), 50).elo).toBe(50);
    expect(measuredElo(result(3, 7, 0), 50).elo).toBe(-50);
    expect(measuredElo(result(6, 4, 0)).elo).toBeCloseTo(70.437, 3);
    expect(measuredElo(result(3, 3, 4)).elo).toBe(0);
  });

  it("refuses zero games", () => {
    expect(() => measuredElo(result(0, 0, 0))).toThrow(RangeError);
  });
});

describe("update", () => {
  const float: SpsaParam = { name: "F", value: 5, min: 0, max: 10, step: 1, type: "float" };
  const flat = { ...cfg, A: 0, alpha: 0, gamma: 0 }; // a_k = a, c_k = c

  it("clips each step to max_step steps", () => {
    const p = perturb([float], { ...flat, a: 100 }, 1, scripted(0.1));
    const r = update([float], p, result(7, 3, 0), { maxStep: 1.5 });
    expect(r.newValues.F).toBe(6.5);
    expect(update([float], p, result(3, 7, 0), {}).newValues.F).toBe(3); // default max_step 2
  });

  it("clips θ to bounds", () => {
    const edge = { ...float, value: 9.9 };
    const p = perturb([edge], { ...flat, a: 100 }, 1, scripted(0.1));
    expect(update([edge], p, result(7, 3, 0), {}).newValues.F).toBe(10);
  });

  it("moves θ toward the winning side", () => {
    const down = perturb([float], { ...flat, a: 0.001 }, 1, scripted(0.9)); // s = −1: plus is below θ
    expect(update([float], down, result(6, 4, 0), {}).newValues.F).toBeLessThan(5);
    expect(update([float], down, result(4, 6, 0), {}).newValues.F).toBeGreaterThan(5);
  });

  it("divides by the perturbation actually played, at both bounds, for int and float", () => {
    const played = (plus: number, minus: number) => ({ ak: 0.01, plus: { P: plus }, minus: { P: minus } });
    const win = result(6, 2, 2); // Elo 147.19
    // Float at the top bound: plus 10, minus 9.5 with step 1 → spread 0.5 steps, g = Elo / 0.5.
    const top = update([{ ...float, name: "P", value: 10 }], played(10, 9.5), win, { eloCap: 200 });
    expect(top.gradient.P).toBeCloseTo(147.1907 / 0.5, 3);
    // Float at the bottom bound, plus below minus: g negative.
    const bottom = update([{ ...float, name: "P", value: 0 }], played(0, 0.25), win, { eloCap: 200 });
    expect(bottom.gradient.P).toBeCloseTo(-147.1907 / 0.25, 3);
    expect(bottom.newValues.P).toBe(0); // clipped at min
    // Int with step 2: plus 3, minus 2 → spread 0.5 steps.
    const i = update([int({ value: 2.4, step: 2 })], played(3, 2), win, { eloCap: 200, maxStep: 100 });
    expect(i.gradient.P).toBeCloseTo(147.1907 * 2, 3);
    expect(i.newValues.P).toBeCloseTo(2.4 + 0.01 * 147.1907 * 2 * 2, 4);
  });

  it("leaves a parameter whose plus equals minus where it is", () => {
    const r = update([int({ value: 0.2 })], { ak: 1, plus: { P: 0 }, minus: { P: 0 } }, result(9, 1, 0), {});
    expect(r.gradient.P).toBe(0);
    expect(r.newValues.P).toBe(0.2);
  });

  it("matches a hand-computed example", () => {
    // k = 2, c = 2, gamma = 1 → c_k = 1; a = 0.12, A = default 10 (max_iterations 100), alpha = 1 → a_k = 0.01.
    const config: SpsaMathConfig = { a: 0.12, c: 2, alpha: 1, gamma: 1, maxIterations: 100, eloCap: 200 };
    const params: SpsaParam[] = [
      { name: "X", value: 10, min: 0, max: 20, step: 2, type: "int" },
      { name: "Y", value: 3.6, min: 0, max: 5, step: 0.2, type: "int" },
      { name: "Z", value: 0.5, min: 0, max: 1, step: 0.1, type: "float" },
    ];
    // Draws: X sign 0.3 → +1, u 0.25; Y sign 0.7 → −1, u 0.5; Z sign 0.1 → +1.
    const p = perturb(params, config, 2, scripted(0.3, 0.25, 0.7, 0.5, 0.1));
    expect(p.ck).toBe(1);
    expect(p.ak).toBeCloseTo(0.01, 15);
    expect(p.signs).toEqual({ X: 1, Y: -1, Z: 1 });
    expect(p.delta.X).toBe(2); // c_k · step
    expect(p.delta.Y).toBe(0.5); // c_k · step = 0.2, raised to 0.5
    expect(p.delta.Z).toBeCloseTo(0.1, 15);
    // X: 12 + .25 → 12, 8 + .25 → 8. Y: 3.1 + .5 → 3, 4.1 + .5 → 4. Z: 0.6, 0.4.
    expect(p.plus).toEqual({ X: 12, Y: 3, Z: expect.closeTo(0.6, 15) });
    expect(p.minus).toEqual({ X: 8, Y: 4, Z: expect.closeTo(0.4, 15) });

    // +6 −2 =2: score 0.7, Elo = −400·log10(3/7) = 147.1907.
    const r = update(params, p, result(6, 2, 2), config);
    expect(r.score).toBeCloseTo(0.7, 15);
    expect(r.elo).toBeCloseTo(147.1907, 4);
    // g = Elo·s / (2·δ/step): X δ/step = 1, Y δ/step = 2.5, Z δ/step = 1.
    expect(r.gradient.X).toBeCloseTo(73.5954, 4);
    expect(r.gradient.Y).toBeCloseTo(-29.4381, 4);
    expect(r.gradient.Z).toBeCloseTo(73.5954, 4);
    // θ + a_k·g·step: 10 + 1.4719, 3.6 − 0.058876, 0.5 + 0.0735954.
    expect(r.newValues.X).toBeCloseTo(11.47191, 5);
    expect(r.newValues.Y).toBeCloseTo(3.541124, 6);
    expect(r.newValues.Z).toBeCloseTo(0.5735954, 7);
  });
});

describe("deriveFromEnd", () => {
  const end = { cEnd: 1.5, rEnd: 0.002, N: 400, A: 40, alpha: 0.602, gamma: 0.101, gamesPerIteration: 64 };
  const lastGains = () => {
    const { c, a } = deriveFromEnd(end);
    return gains({ a, c, A: end.A, alpha: end.alpha, gamma: end.gamma, maxIterations: end.N }, end.N);
  };

  it("gives c_N = c_end at the last iteration", () => {
    expect(lastGains().ck).toBeCloseTo(1.5, 12);
  });

  it("moves θ at the last iteration as fishtest's r_end·c_end·(wins − losses) would, for a small Elo", () => {
    const g = lastGains();
    const p: SpsaParam = { name: "P", value: 10, min: 0, max: 20, step: 1, type: "float" };
    // 64 games at 52 %: wins − losses = 2.56; fishtest moves θ by 0.002 · 1.5 · 2.56 = 0.00768 steps.
    const played = { ak: g.ak, plus: { P: 10 + g.ck }, minus: { P: 10 - g.ck } };
    const moved = update([p], played, result(20, 17.44, 26.56), { eloCap: 400 }).newValues.P ?? 0;
    expect((moved - 10) / 0.00768).toBeCloseTo(1, 2);
  });
});

describe("reference mode's Elo and update", () => {
  const sides = (plus: ReturnType<typeof result>, minus: ReturnType<typeof result>) => ({ plus, minus });
  const params: SpsaParam[] = [{ name: "X", value: 5, min: 0, max: 10, step: 1, type: "float" }];
  const played = { ak: 0.01, plus: { X: 6 }, minus: { X: 4 } };

  it("is plus-vs-minus's measuredElo for a plus-vs-minus result, to the bit", () => {
    for (const counts of [result(6, 4, 0), result(10, 0, 0), result(3, 3, 4), result(17, 29, 18)]) {
      expect(iterationElo(counts)).toEqual(measuredElo(counts));
      expect(iterationElo(counts, 50)).toEqual(measuredElo(counts, 50));
    }
  });

  it("is the difference of both sides' Elo against the reference, each measured as measuredElo measures it", () => {
    // θ+ scores 6/10 against the reference (+70.4), θ− 5/10 (0): θ+ is 70.4 Elo better than θ−.
    const outcome = sides(result(6, 4, 0), result(3, 3, 4));
    expect(iterationElo(outcome).elo).toBeCloseTo(measuredElo(result(6, 4, 0)).elo, 12);
    expect(iterationElo(sides(result(3, 3, 4), result(6, 4, 0))).elo).toBeCloseTo(-70.437, 3);
    // The score is what plus would score against minus at that Elo.
    expect(iterationElo(outcome).score).toBeCloseTo(0.6, 12);
  });

  it("caps each side and the difference at elo_cap", () => {
    // A sweep for θ+ (+400 capped) and for the reference against θ− (−400): 800, capped to 400.
    expect(iterationElo(sides(result(10, 0, 0), result(0, 10, 0))).elo).toBe(400);
    expect(iterationElo(sides(result(0, 10, 0), result(10, 0, 0)), 50).elo).toBe(-50);
    expect(iterationElo(sides(result(7, 3, 0), result(3, 7, 0)), 100).elo).toBe(100);
  });

  it("moves θ as plus-vs-minus does for the same Elo", () => {
    const outcome = sides(result(6, 4, 0), result(3, 3, 4));
    const fromReference = update(params, played, outcome, {});
    const fromPair = update(params, played, result(6, 4, 0), {});
    expect(fromReference.elo).toBeCloseTo(fromPair.elo, 12);
    expect(fromReference.newValues.X).toBeCloseTo(fromPair.newValues.X ?? Number.NaN, 12);
    // g = Elo / spread in steps (2), Δθ = a_k · g · step.
    expect(fromReference.gradient.X).toBeCloseTo(fromReference.elo / 2, 12);
    expect(fromReference.newValues.X).toBeCloseTo(5 + 0.01 * (fromReference.elo / 2), 12);
    // Equal results against the reference measure no difference: θ stays.
    expect(update(params, played, sides(result(4, 4, 2), result(4, 4, 2)), {}).newValues.X).toBe(5);
  });
});
