import { describe, expect, it } from "vitest";
import { simulateCommand } from "../../src/commands/simulate.js";
import { loadConfig, spsaMathConfig } from "../../src/config/config.js";
import { eloBetween } from "../../src/simulate/engine-model.js";
import { cellProblem, runFamily } from "../../src/simulate/family.js";
import { plusVsMinus } from "../../src/simulate/game-model.js";
import { equivalentResult, referencePlay } from "../../src/simulate/reference-mode.js";
import { masterTuner } from "../../src/simulate/tuners.js";
import { eloNoiseVariance } from "../../src/spsa/adaptive.js";
import { DEFAULT_ELO_CAP, measuredElo } from "../../src/spsa/math.js";
import { createRng } from "../../src/core/rng.js";
import { spsa } from "../support/cli.js";
import type { SpsaMathConfig, Values } from "../../src/types/spsa.js";

const gains = (n: number): SpsaMathConfig =>
  spsaMathConfig({ ...loadConfig("config.toml").spsa, maxIterations: n }, 64);

/** Mean and variance of the Elo the update sees, over `n` iterations of 64 games. */
function measured(play: typeof plusVsMinus, plus: Values, minus: Values, n: number) {
  const problem = cellProblem({ parameters: 4, offset: 3, curvature: 1, type: "float" }, 0.4, "ref");
  const rng = createRng("measured");
  const elos = Array.from({ length: n }, () => measuredElo(play(problem, plus, minus, 64, rng)).elo);
  const mean = elos.reduce((s, x) => s + x, 0) / n;
  return { mean, variance: elos.reduce((s, x) => s + (x - mean) ** 2, 0) / (n - 1), problem };
}

describe("reference mode in the simulator", () => {
  it("hands the update a result with the reference mode's Elo and noise", () => {
    for (const elo of [-250, -40, 0, 7, 120, 390]) {
      for (const noise of [500, 4000, 20000]) {
        const result = equivalentResult(elo, noise);
        expect(measuredElo(result).elo).toBeCloseTo(elo, 8);
        expect(eloNoiseVariance(result)).toBeCloseTo(noise, 6);
      }
    }
  });

  it("measures plus against minus without bias, with about 4 times the variance of plus-vs-minus at equal games", () => {
    const problem = cellProblem({ parameters: 4, offset: 3, curvature: 1, type: "float" }, 0.4, "ref");
    // θ+ and θ− 2 steps either side of θ₀ on every parameter: a clear Elo between them.
    const side = (sign: number) =>
      Object.fromEntries(problem.params.map((p, i) => [p.name, p.value + sign * (i % 2 === 0 ? 1 : -1) * 2 * p.step]));
    const [plus, minus] = [side(1), side(-1)];
    const truth = eloBetween(problem.model, plus, minus);
    expect(Math.abs(truth)).toBeGreaterThan(10);
    const direct = measured(plusVsMinus, plus, minus, 4000);
    const reference = measured(referencePlay({ kind: "start" }, DEFAULT_ELO_CAP), plus, minus, 4000);
    expect(direct.mean).toBeCloseTo(truth, -1);
    expect(reference.mean).toBeCloseTo(truth, -1);
    const ratio = reference.variance / direct.variance;
    expect(ratio).toBeGreaterThan(3.4);
    expect(ratio).toBeLessThan(4.8);
    // A reference far from θ± measures less per game still.
    const far = measured(referencePlay({ kind: "fixed", elo: 300 }, DEFAULT_ELO_CAP), plus, minus, 4000);
    expect(far.variance).toBeGreaterThan(reference.variance);
  });

  it("tunes a clear problem closer to its optimum, less far than plus-vs-minus at equal games", () => {
    const cells = [{ parameters: 10, offset: 4, curvature: 1, type: "float" as const }];
    const direct = runFamily(masterTuner("pvm", gains, 64), cells, 5000, 4, 0.4)[0];
    const reference = runFamily(
      masterTuner("ref", gains, 64, 0, undefined, referencePlay({ kind: "start" }, DEFAULT_ELO_CAP)),
      cells,
      5000,
      4,
      0.4,
    )[0];
    if (!direct || !reference) throw new Error("no result");
    expect(reference.end).toBeLessThan(0.8 * reference.start);
    expect(reference.end).toBeGreaterThan(direct.end);
  });
});

describe("spsa simulate --reference", () => {
  it("adds your config in reference mode to the table", async () => {
    const lines: string[] = [];
    const result = await simulateCommand({
      seeds: 2,
      games: 640,
      offset: 3,
      anchors: false,
      reference: "-100",
      out: (text) => lines.push(text),
    });
    expect(result.summaries.map((s) => s.tuner)).toEqual([
      expect.stringContaining("your config ("),
      "your config in reference mode (reference 100 Elo weaker than θ₀)",
    ]);
    expect(lines.join("\n")).toContain("your config in reference mode (reference 100 Elo weaker than θ₀)");
  });

  it("refuses a reference that is neither start nor an Elo, from the CLI", async () => {
    const result = await spsa(["simulate", "--reference", "stockfish", "--seeds", "1"]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr.trim()).toBe(
      'error: --reference: must be "start" or an Elo over θ₀ (e.g. 100 or -100), got "stockfish"',
    );
  });
});
