import { describe, expect, it } from "vitest";
import { eloBetween, eloLeft, type ParamModel } from "../../src/simulate/engine-model.js";
import { symmetricEigen } from "../../src/simulate/eigen.js";
import { fitLossModel, type RecordedIteration } from "../../src/simulate/fit-model.js";
import { playGames } from "../../src/simulate/game-model.js";
import { createRng } from "../../src/core/rng.js";
import { deriveFromEnd, perturb, update } from "../../src/spsa/math.js";
import type { SpsaMathConfig, SpsaParam, Values } from "../../src/types/spsa.js";

/** A run of the master's math on a quadratic engine whose curvature and optima are known. */
function syntheticRun(options: {
  parameters: number;
  offset: number;
  curvature: number;
  iterations: number;
  rEnd: number;
  seed: string;
  type?: "int" | "float";
  move?: boolean;
}) {
  const type = options.type ?? "float";
  const rng = createRng(`optima:${options.seed}`);
  let params: SpsaParam[] = Array.from({ length: options.parameters }, (_, i) => ({
    name: `P${i}`,
    value: 100,
    min: 0,
    max: 200,
    step: 2,
    type,
  }));
  const model: ParamModel[] = params.map((p) => ({
    name: p.name,
    optimum: p.value + (rng.next() < 0.5 ? -1 : 1) * options.offset * p.step,
    curvature: options.curvature,
    step: p.step,
    type,
  }));
  const games = 64;
  const A = Math.round(options.iterations / 10);
  const cfg: SpsaMathConfig = {
    ...deriveFromEnd({
      cEnd: 1.5,
      rEnd: options.rEnd,
      N: options.iterations,
      A,
      alpha: 0.602,
      gamma: 0.101,
      gamesPerIteration: games,
    }),
    A,
    alpha: 0.602,
    gamma: 0.101,
    maxIterations: options.iterations,
  };
  const start: Values = Object.fromEntries(params.map((p) => [p.name, p.value]));
  const iterations: RecordedIteration[] = [];
  const gameRng = createRng(`games:${options.seed}`);
  for (let k = 1; k <= options.iterations; k++) {
    const played = perturb(params, cfg, k, createRng(`${options.seed}:${k}`));
    const result = playGames(eloBetween(model, played.plus, played.minus), games, 0.4, gameRng);
    const { newValues, elo } = update(params, played, result, cfg);
    iterations.push({ plus: played.plus, minus: played.minus, result, elo });
    if (options.move ?? true) params = params.map((p) => ({ ...p, value: newValues[p.name] ?? p.value }));
  }
  const end: Values = Object.fromEntries(params.map((p) => [p.name, p.value]));
  const trueEnd = Math.sqrt(
    model.reduce((s, m) => s + ((end[m.name] as number) - m.optimum) ** 2 / (m.step * m.step), 0) / model.length,
  );
  return { params, start, end, iterations, eloLeftAtStart: eloLeft(model, start), trueEnd };
}

describe("symmetricEigen", () => {
  it("returns vectors with M v = λ v, orthonormal", () => {
    const m = [
      [4, 1, -2],
      [1, 3, 0.5],
      [-2, 0.5, 1],
    ];
    const { values, vectors } = symmetricEigen(m);
    for (let j = 0; j < 3; j++) {
      const vj = vectors.map((row) => row[j] as number);
      const mv = m.map((row) => row.reduce((s, x, i) => s + x * (vj[i] as number), 0));
      mv.forEach((x, i) => expect(x).toBeCloseTo((values[j] as number) * (vj[i] as number), 10));
      expect(vj.reduce((s, x) => s + x * x, 0)).toBeCloseTo(1, 12);
    }
    expect(values.reduce((s, x) => s + x, 0)).toBeCloseTo(8, 10);
  });
});

describe("fitLossModel on synthetic runs whose true model is known", () => {
  // Tolerance: the truth inside the fit's 95 % interval, and the point within 40 % of it (runs of 400–800 iterations × 64
  // games); the offset left at the end within 40 % of the start's offset.
  const cases = [
    { parameters: 10, offset: 4, curvature: 5 / 16, iterations: 400, rEnd: 0.012, seed: "far", type: "float" as const },
    {
      parameters: 20,
      offset: 3,
      curvature: 1.25 / 4,
      iterations: 600,
      rEnd: 0.012,
      seed: "many",
      type: "int" as const,
    },
    { parameters: 8, offset: 6, curvature: 0.1, iterations: 800, rEnd: 0.012, seed: "flat", type: "float" as const },
  ];
  for (const c of cases) {
    it(`recovers curvature ${c.curvature.toFixed(3)} and offset ${c.offset} (${c.parameters} ${c.type} parameters, ${c.iterations} iterations)`, () => {
      const run = syntheticRun(c);
      const fit = fitLossModel({ params: run.params, start: run.start, end: run.end, iterations: run.iterations });
      expect(fit.parameters).toBe(c.parameters);
      expect(fit.bounded).toBe(true);
      expect(fit.curvature.low).toBeLessThanOrEqual(c.curvature);
      expect(fit.curvature.high).toBeGreaterThanOrEqual(c.curvature);
      expect(Math.abs(fit.curvature.value / c.curvature - 1)).toBeLessThan(0.4);
      expect(fit.offset.low).toBeLessThanOrEqual(c.offset);
      expect(fit.offset.high).toBeGreaterThanOrEqual(c.offset);
      expect(Math.abs(fit.offset.value / c.offset - 1)).toBeLessThan(0.4);
      expect(fit.eloLeftAtStart.low).toBeLessThanOrEqual(run.eloLeftAtStart);
      expect(fit.eloLeftAtStart.high).toBeGreaterThanOrEqual(run.eloLeftAtStart);
      expect(Math.abs(fit.offsetAtEnd - run.trueEnd)).toBeLessThan(0.4 * c.offset);
      // A flat curve far off: the run cannot tell κ from S apart below some curvature, and says so.
      if (c.seed === "flat") expect(fit.curvature.open.low).toBe(true);
      expect(fit.drawRate).toBeGreaterThan(0.3);
      expect(fit.drawRate).toBeLessThan(0.45);
    });
  }

  it("on a run with nothing to gain, finds no offset (θ's wandering still shows the curvature)", () => {
    const run = syntheticRun({ parameters: 10, offset: 0, curvature: 0.3, iterations: 200, rEnd: 0.012, seed: "none" });
    const fit = fitLossModel({ params: run.params, start: run.start, end: run.end, iterations: run.iterations });
    expect(fit.offset.low).toBeLessThan(0.5);
    expect(fit.eloLeftAtStart.low).toBeLessThan(1);
    expect(fit.curvature.low).toBeLessThanOrEqual(0.3);
    expect(fit.curvature.high).toBeGreaterThanOrEqual(0.3);
  });

  it("says when θ never moved, so the curvature cannot be told from the offset (only their product, the slope)", () => {
    const run = syntheticRun({
      parameters: 18,
      offset: 6,
      curvature: 0.3,
      iterations: 200,
      rEnd: 0.012,
      seed: "still",
      move: false,
    });
    const fit = fitLossModel({ params: run.params, start: run.start, end: run.end, iterations: run.iterations });
    expect(fit.bounded).toBe(false);
    expect(fit.curvature.open.low && fit.curvature.open.high).toBe(true);
    // The slope κ·S = 1.8 Elo per step is measured all the same.
    expect(fit.slope.low).toBeLessThanOrEqual(1.8);
    expect(fit.slope.high).toBeGreaterThanOrEqual(1.8);
    expect(fit.slope.open.low || fit.slope.open.high).toBe(false);
  });

  it("refuses a run with fewer than 2 completed iterations", () => {
    const run = syntheticRun({ parameters: 3, offset: 2, curvature: 0.3, iterations: 1, rEnd: 0.012, seed: "short" });
    expect(() =>
      fitLossModel({ params: run.params, start: run.start, end: run.end, iterations: run.iterations }),
    ).toThrow(/too few completed iterations/);
  });
});
