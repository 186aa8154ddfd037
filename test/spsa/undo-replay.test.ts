import { describe, expect, it } from "vitest";
import { spsaMathConfig, DEFAULT_ADAPTIVE, DEFAULT_C_END, DEFAULT_R_END } from "../../src/config/config.js";
import { cellProblem } from "../../src/simulate/family.js";
import { runFleet, type FleetRun } from "../../src/simulate/bad-workers.js";
import { stepScales } from "../../src/spsa/adaptive.js";
import { update } from "../../src/spsa/math.js";
import { pilotScales } from "../../src/spsa/pilot.js";
import { openStepScales, replayIterations, type RecordedIteration } from "../../src/spsa/undo-replay.js";

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

  it("takes each step with the adaptive scale the replayed results give, not the one a removed result raised", () => {
    const adaptive = { mode: "signal" as const, window: 8, floor: 0.2 };
    const adaptiveSettings = { ...settings(), spsa: { ...settings().spsa, adaptive } };
    // Iteration 1 as recorded: a sweep for plus (a liar's), which raised the scales drawn after it.
    const sweep = { plusWins: 16, minusWins: 0, draws: 0 };
    const raised = stepScales([{ elo: 400, result: sweep }], ["X", "Y"], adaptive);
    expect(raised.X).toBeGreaterThan(adaptive.floor);
    const tuner = (number: number, outcome: RecordedIteration["outcome"], extra = {}): RecordedIteration => ({
      ...iteration(number, 0, 0, 0),
      settings: { ...adaptiveSettings, stepScale: raised, ...extra },
      outcome,
    });
    // The sweep taken out; iteration 3 was drawn while 2 was in flight (staleness 1), after a pilot.
    const pilot = { curvature: 0.1, error: 0.05, saturated: false, factor: 2 };
    const rows = [
      tuner(1, null),
      tuner(2, { plusWins: 7, minusWins: 5, draws: 4 }),
      tuner(3, { plusWins: 3, minusWins: 9, draws: 4 }, { staleness: 1, pilot }),
    ];
    const steps = replayIterations({ X: 5, Y: 5 }, rows);
    // Iteration 2 drawn on nothing measured: the floor; the step it takes is the update's at that scale.
    const floor = stepScales([], ["X", "Y"], adaptive);
    expect(steps[1]!.stepScale).toEqual(floor);
    const params = Object.entries(rows[1]!.settings.parameters).map(([name, p]) => ({ name, value: 5, ...p }));
    const at = (scale: typeof floor) =>
      update(params, { ...rows[1]!, scale }, rows[1]!.outcome!, adaptiveSettings.spsa).newValues;
    expect(steps[1]!.theta).toEqual(at(floor));
    expect(steps[1]!.theta).not.toEqual(at(raised));
    // Iteration 3 saw iteration 1 only (nothing measured) when it was drawn: the floor, raised by its pilot.
    expect(steps[2]!.stepScale).toEqual(pilotScales(floor, adaptive, 2));
    // An iteration still open after them reads both replayed measures.
    const [open] = openStepScales(rows, steps, [tuner(4, null)]);
    expect(open).toEqual(
      stepScales(
        [
          { elo: steps[1]!.measured!.elo, result: rows[1]!.outcome! },
          { elo: steps[2]!.measured!.elo, result: rows[2]!.outcome! },
        ],
        ["X", "Y"],
        adaptive,
      ),
    );
  });

  it("keeps a scale recorded without adaptive gains", () => {
    const row = { ...iteration(1, 9, 3, 4), settings: { ...settings(), stepScale: { X: 3, Y: 3 } } };
    expect(replayIterations({ X: 5, Y: 5 }, [row])[0]!.stepScale).toEqual({ X: 3, Y: 3 });
  });
});
