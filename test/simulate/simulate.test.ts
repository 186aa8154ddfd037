import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { simulateCommand } from "../../src/commands/simulate.js";
import { loadConfig, spsaMathConfig } from "../../src/config/config.js";
import { curvatureFor, eloBetween, eloLeft } from "../../src/simulate/engine-model.js";
import { cellProblem, familyLine, newRows, runFamily } from "../../src/simulate/family.js";
import { playGames } from "../../src/simulate/game-model.js";
import { referenceOutcome } from "../../src/simulate/reference-mode.js";
import { fishtestTuner, masterTuner, seedTuner } from "../../src/simulate/tuners.js";
import { perturb, update } from "../../src/spsa/math.js";
import { pilotMeasure, pilotScale, spreadSquared, widenedGains } from "../../src/spsa/pilot.js";
import { createRng } from "../../src/core/rng.js";
import { stepScales } from "../../src/spsa/adaptive.js";
import { spsa } from "../support/cli.js";
import {
  isReferenceResult,
  type IterationOutcome,
  type SpsaMathConfig,
  type PilotIteration,
  type MeasuredIteration,
} from "../../src/types/spsa.js";

const gains = (n: number): SpsaMathConfig =>
  spsaMathConfig({ ...loadConfig("config.toml").spsa, maxIterations: n }, 64);

describe("the synthetic engine and its games", () => {
  it("loses curvature × steps² per parameter, ints built rounded", () => {
    const model = [
      { name: "F", optimum: 1, curvature: curvatureFor(5, 4), step: 0.5, type: "float" as const },
      { name: "I", optimum: 10, curvature: 1, step: 2, type: "int" as const },
    ];
    // F: 2 steps off at 5/16 Elo per step² = 1.25; I: 10.6 builds as 11, half a step off = 0.25.
    expect(eloLeft(model, { F: 2, I: 10.6 })).toBeCloseTo(1.5, 12);
    expect(eloBetween(model, { F: 1, I: 10 }, { F: 2, I: 10.6 })).toBeCloseTo(1.5, 12);
  });

  it("has asymmetric and flat-topped curves besides the quadratic one", () => {
    const asymmetric = [
      {
        name: "A",
        optimum: 0,
        curvature: 1,
        step: 1,
        type: "float" as const,
        shape: { kind: "asymmetric" as const, ratio: 8 },
      },
    ];
    expect(eloLeft(asymmetric, { A: -2 })).toBeCloseTo(4, 12);
    expect(eloLeft(asymmetric, { A: 2 })).toBeCloseTo(32, 12);
    const flat = [
      {
        name: "F",
        optimum: 0,
        curvature: 1,
        step: 0.5,
        type: "float" as const,
        shape: { kind: "flat" as const, halfWidth: 2 },
      },
    ];
    expect(eloLeft(flat, { F: 0.9 })).toBe(0);
    expect(eloLeft(flat, { F: -1.5 })).toBeCloseTo(1, 12);
  });

  it("new rows start only the first `far` parameters off, and a cell reports how far the others end", () => {
    expect(newRows()).toHaveLength(10);
    const cell = { parameters: 5, far: 2, offset: 3, curvature: 1, type: "float" as const };
    const problem = cellProblem(cell, 0.4, "x");
    const off = problem.params.map((p, i) => Math.abs(p.value - (problem.model[i]?.optimum ?? Number.NaN)) / p.step);
    off.forEach((steps, i) => expect(steps, `P${i}`).toBeCloseTo(i < 2 ? 3 : 0, 9));
    // A tuner that moves the third parameter one step and nothing else.
    const nudge = {
      name: "nudge",
      run: (p: typeof problem) => {
        const final = Object.fromEntries(p.params.map((q) => [q.name, q.name === "P2" ? q.value + q.step : q.value]));
        return { games: [0], eloLeft: [eloLeft(p.model, final)], final };
      },
    };
    expect(runFamily(nudge, [cell], 64, 2, 0.4)[0]?.wander).toBeCloseTo(1, 9);
  });

  it("summarises a budget's results: mean left, cells worse and significantly worse", () => {
    const cell = { parameters: 5, offset: 1, curvature: 1, type: "int" as const };
    const r = (start: number, end: number, changeError: number) => ({
      cell,
      budget: 1,
      start,
      end,
      changeError,
      wander: 0,
    });
    const line = familyLine([r(10, 2, 1), r(1, 1.5, 1), r(1, 4, 1)]);
    expect(line.text).toBe("2.5 (of 4.0) · 2 / 1");
    expect(line.significant.map((x) => x.end)).toEqual([4]);
  });

  it("gives the logistic expected score and the draw rate at equal strength", () => {
    const rng = createRng("games");
    const even = playGames(0, 200_000, 0.4, rng);
    expect(even.draws / 200_000).toBeCloseTo(0.4, 2);
    const strong = playGames(100, 200_000, 0.4, rng);
    const score = (strong.plusWins + strong.draws / 2) / 200_000;
    expect(score).toBeCloseTo(1 / (1 + 10 ** (-100 / 400)), 2);
  });
});

describe("the master tuner", () => {
  const problem = cellProblem({ parameters: 6, offset: 3, curvature: 1, type: "int" }, 0.4, "t");

  it("replays the master's formulas: perturb, games, update, with the master's seeding", () => {
    const trace = masterTuner("m", gains, 64).run(problem, 640, "s");
    // The same steps by hand.
    const cfg = gains(10);
    const gameRng = createRng("games:s");
    let params = problem.params;
    const history: MeasuredIteration[] = [];
    const names = params.map((p) => p.name);
    const { adaptive } = cfg;
    if (!adaptive) throw new Error("config.toml has no adaptive gains");
    const pilots = adaptive.pilot ?? 0;
    expect(pilots).toBeGreaterThan(0);
    const steps = Object.fromEntries(params.map((p) => [p.name, p.step]));
    const pilotIterations: PilotIteration[] = [];
    for (let k = 1; k <= 10; k++) {
      // The adaptive gains' scales from the iterations before (the floor at the first), raised by the curvature pilot's factor after it.
      const factor = k > pilots ? pilotMeasure(pilotIterations).factor : 1;
      const scale = Object.fromEntries(
        Object.entries(stepScales(history, names, adaptive)).map(([n, s]) => [n, pilotScale(s, adaptive, factor)]),
      );
      // … and its perturbation widened by the factor.
      const played = { ...perturb(params, widenedGains(cfg, factor), k, createRng(`s:${k}`)), scale };
      // The pilot's iterations play θ+ and θ− each against θ₀.
      const result: IterationOutcome =
        k <= pilots
          ? referenceOutcome({ kind: "start" }, problem, played.plus, played.minus, 64, gameRng)
          : playGames(eloBetween(problem.model, played.plus, played.minus), 64, 0.4, gameRng);
      if (isReferenceResult(result))
        pilotIterations.push({ outcome: result, spreadSquared: spreadSquared(steps, played.plus, played.minus) });
      const { newValues, elo } = update(params, played, result, cfg);
      history.push({ elo, result });
      params = params.map((p) => ({ ...p, value: newValues[p.name] ?? p.value }));
      expect(trace.eloLeft[k], `iteration ${k}`).toBeCloseTo(eloLeft(problem.model, newValues), 12);
    }
    expect(trace.games).toEqual(Array.from({ length: 11 }, (_, k) => 64 * k));
  });

  it("with the default gains, gets closer to the optimum on a clear problem and beats both anchors", () => {
    const cells = [{ parameters: 10, offset: 4, curvature: 1, type: "float" as const }];
    const ours = runFamily(masterTuner("m", gains, 64), cells, 20_000, 6, 0.4)[0];
    const fishtest = runFamily(fishtestTuner({ cEnd: 1, rEnd: 0.002, batchGames: 8 }), cells, 20_000, 6, 0.4)[0];
    const seed = runFamily(seedTuner(), cells, 20_000, 6, 0.4)[0];
    if (!ours || !fishtest || !seed) throw new Error("no result");
    expect(ours.end).toBeLessThan(ours.start / 2);
    expect(ours.end).toBeLessThan(fishtest.end);
    expect(ours.end).toBeLessThan(seed.end);
  });
});

describe("the pilot widens the perturbation (adapt_widen)", () => {
  const widening = (widen: number) => (n: number) => {
    const cfg = gains(n);
    return { ...cfg, adaptive: { ...cfg.adaptive!, widen } };
  };
  const tuner = (widen: number) => masterTuner("m", widening(widen), 64);

  it("widens c by the factor to the power adapt_widen, and only once the pilot has a factor", () => {
    const cfg = widening(0.5)(10);
    expect(widenedGains(cfg, 4).c).toBeCloseTo(2 * cfg.c, 12);
    expect(widenedGains(cfg, undefined)).toBe(cfg);
    expect(widenedGains(widening(0)(10), 4).c).toBe(cfg.c);
    expect(gains(10).adaptive?.widen).toBe(1);
  });

  it("changes nothing where the pilot keeps the default step (factor 1: a sharp problem)", () => {
    const sharp = cellProblem({ parameters: 40, offset: 3, curvature: 4, type: "int" }, 0.4, "w");
    expect(tuner(1).run(sharp, 3200, "s")).toEqual(tuner(0).run(sharp, 3200, "s"));
  });

  it("perturbs wider where the pilot finds the problem flat, and leaves less Elo there", () => {
    const flat = [{ parameters: 18, offset: 6, curvature: 0.25, type: "int" as const }];
    const [unwidened] = runFamily(tuner(0), flat, 3200, 4, 0.4);
    const [widened] = runFamily(tuner(1), flat, 3200, 4, 0.4);
    expect(widened!.end).toBeLessThan(unwidened!.end);
  });
});

describe("spsa simulate", () => {
  it("runs the repository's params.toml and config.toml, with a table, a chart and an SVG", async () => {
    const lines: string[] = [];
    const svg = join(mkdtempSync(join(tmpdir(), "spsa-sim-")), "chart.svg");
    const result = await simulateCommand({ seeds: 4, games: 3200, offset: 3, svg, out: (text) => lines.push(text) });
    expect(result.iterations).toBe(50);
    expect(result.summaries.map((s) => s.tuner)).toEqual([
      expect.stringContaining("your config (c_end 3, r_end 0.003, adapt signal (window 256, floor 0.1667)"),
      expect.stringContaining("fishtest"),
      expect.stringContaining("seed design"),
    ]);
    const [ours] = result.summaries;
    expect(ours?.checkpoints.at(-1)).toBe(3200);
    expect(ours?.mean.at(-1)).toBeLessThan(ours?.mean[0] ?? 0);
    const text = lines.join("\n");
    expect(text).toContain("18 parameters of params.toml, 3200 games (50 iterations × 64), 4 seeds");
    expect(text).toContain("KING_ATTACK_SCALE");
    expect(existsSync(svg)).toBe(true);
    expect(readFileSync(svg, "utf8").match(/<polyline/g)).toHaveLength(3);
  });

  it("refuses a model file naming an unknown parameter, from the CLI", async () => {
    const dir = mkdtempSync(join(tmpdir(), "spsa-sim-"));
    const model = join(dir, "model.toml");
    writeFileSync(model, "[KNIGHT_VALUE]\noptimum = 300\n");
    const result = await spsa(["simulate", "--model", model, "--seeds", "1"]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr.trim()).toBe(
      `error: ${model}: [KNIGHT_VALUE] (line 1): no parameter KNIGHT_VALUE in the parameters file (did you mean \`KNIGHT_VALUE_MG\`?)`,
    );
  });
});
