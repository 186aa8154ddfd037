import { describe, expect, it } from "vitest";
import { loadConfig, spsaMathConfig } from "../../src/config/config.js";
import { cellProblem } from "../../src/simulate/family.js";
import { plusVsMinus } from "../../src/simulate/game-model.js";
import { masterTuner } from "../../src/simulate/tuners.js";
import { update } from "../../src/spsa/math.js";
import type { SpsaMathConfig } from "../../src/types/spsa.js";

const gains = (n: number): SpsaMathConfig =>
  spsaMathConfig({ ...loadConfig("config.toml").spsa, maxIterations: n }, 64);
const problem = cellProblem({ parameters: 8, offset: 4, curvature: 1, type: "float" }, 0.4, "in-flight");

describe("the simulator's iterations in flight (masterTuner's staleness)", () => {
  it("is the barrier at staleness 0, and a different chain of the same draws at staleness 2", () => {
    const barrier = masterTuner("barrier", gains, 64).run(problem, 6400, "s");
    expect(masterTuner("d0", gains, 64, 0, undefined, plusVsMinus, 0).run(problem, 6400, "s")).toEqual(barrier);
    const stale = masterTuner("d2", gains, 64, 0, undefined, plusVsMinus, 2).run(problem, 6400, "s");
    expect(stale.games).toEqual(barrier.games);
    expect(stale.final).not.toEqual(barrier.final);
  });

  it("still closes most of a clear gap with stale perturbations", () => {
    const start = masterTuner("d6", gains, 64, 0, undefined, plusVsMinus, 6).run(problem, 20000, "s");
    expect(start.eloLeft.at(-1)!).toBeLessThan(start.eloLeft[0]! / 4);
  });
});

describe("a stale step", () => {
  it("moves today's θ by the step measured around the θ the iteration was drawn from", () => {
    // Drawn at X = 1 (plus 2, minus 0); θ has moved to 3 since. The step is the same; it lands on 3.
    const param = { name: "X", min: -10, max: 10, step: 1, type: "float" as const };
    const played = { ak: 0.1, plus: { X: 2 }, minus: { X: 0 } };
    const result = { plusWins: 6, minusWins: 2, draws: 0 };
    const atBase = update([{ ...param, value: 1 }], played, result, {});
    const atToday = update([{ ...param, value: 3 }], played, result, {});
    expect(atToday.gradient).toEqual(atBase.gradient);
    expect(atToday.newValues.X! - 3).toBeCloseTo(atBase.newValues.X! - 1, 12);
  });
});
