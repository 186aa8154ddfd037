import { describe, expect, it } from "vitest";
import { spsaMathConfig, DEFAULT_ADAPTIVE, DEFAULT_C_END, DEFAULT_R_END } from "../../src/config/config.js";
import { cellProblem } from "../../src/simulate/family.js";
import { runFleet, type FleetRun } from "../../src/simulate/bad-workers.js";
import { update } from "../../src/spsa/math.js";
import { replayIterations, type RecordedIteration } from "../../src/spsa/undo-replay.js";

const settings = (momentum = 0) => ({
  spsa: { eloCap: 400, maxStep: 2, momentum },
  parameters: {
    X: { min: 0, max: 10, step: 1, type: "float" as const, frozen: false },
    Y: { min: 0, max: 10, step: 1, type: "float" as const, frozen: false },
  },
});

function iteration(
  number: number,
  plusWins: number,
  minusWins: number,
  draws: number,
  momentum = 0,
): RecordedIteration {
  return {
    number,
    ak: 0.05,
    base: {},
    plus: { X: 6, Y: 4 },
    minus: { X: 4, Y: 6 },
    settings: settings(momentum),
    outcome: { plusWins, minusWins, draws },
  };
}

describe("θ replayed from the recorded rows", () => {
  it("takes each build-mode step as the master does, in order, momentum from the replayed moves", () => {
    const start = { X: 5, Y: 5 };
    const rows = [iteration(1, 10, 4, 2, 0.5), iteration(2, 3, 9, 4, 0.5), iteration(3, 8, 8, 0, 0.5)];
    const steps = replayIterations(start, rows);
    // By hand: update() with the previous move θ_k − θ_{k−1} of this very chain.
    let theta = start;
    let previous = { X: 0, Y: 0 };
    for (const [i, row] of rows.entries()) {
      const params = Object.entries(row.settings.parameters).map(([name, s]) => ({
        name,
        value: theta[name as "X"]!,
        ...s,
      }));
      const next = { ...theta, ...update(params, row, row.outcome!, row.settings.spsa, previous).newValues };
      previous = { X: next.X - theta.X, Y: next.Y - theta.Y };
      theta = next;
      expect(steps[i]!.theta).toEqual(theta);
      expect(steps[i]!.measured?.elo).not.toBeUndefined();
    }
    expect(theta.X).not.toBe(5);
  });

  it("takes no step for an iteration left without games, and starts a parameter that joined later at its iteration's base", () => {
    const joined: RecordedIteration = {
      number: 2,
      ak: 0.05,
      base: { X: 5, Y: 5, Z: 3 },
      plus: { X: 6, Y: 4, Z: 4 },
      minus: { X: 4, Y: 6, Z: 2 },
      settings: {
        ...settings(),
        parameters: { ...settings().parameters, Z: { min: 0, max: 10, step: 1, type: "float", frozen: false } },
      },
      outcome: { plusWins: 6, minusWins: 2, draws: 0 },
    };
    const steps = replayIterations({ X: 5, Y: 5 }, [iteration(1, 0, 0, 0), joined]);
    expect(steps[0]).toEqual({ theta: { X: 5, Y: 5 }, measured: null });
    expect(steps[1]!.theta.Z).toBeGreaterThan(3);
    expect(steps[1]!.theta.X).toBeGreaterThan(5);
  });

  it("gives back the master's own θ when nothing is taken out, in both modes (a whole simulated run)", () => {
    for (const mode of ["build", "options"] as const) {
      const problem = cellProblem({ parameters: 5, offset: 3, curvature: 1, type: "int" }, 0.3, "replay");
      const gains = spsaMathConfig(
        {
          maxIterations: 30,
          cEnd: DEFAULT_C_END,
          rEnd: DEFAULT_R_END,
          a: undefined,
          c: undefined,
          A: undefined,
          alpha: 0.602,
          gamma: 0.101,
          eloCap: 400,
          maxStep: 2,
          schedule: "standard",
          momentum: 0,
          averageTail: 0,
          maxStaleness: 0,
          adaptive: DEFAULT_ADAPTIVE,
        },
        32,
      );
      const run: FleetRun = {
        mode,
        problem,
        gains,
        gamesPerIteration: 32,
        batchGames: 8,
        budget: 960,
        quarantine: true,
        seed: "r",
        openingSd: 50,
        stratumGames: 32,
        workers: [1, 2, 3].map((i) => ({ name: `h${i}`, share: 1, behaviour: { kind: "honest" } })),
      };
      const result = runFleet(run);
      expect(result.flags, mode).toEqual([]);
      expect(result.replayed, mode).toEqual(result.theta);
      expect(result.theta, mode).not.toEqual(Object.fromEntries(problem.params.map((p) => [p.name, p.value])));
    }
  });
});
