import { describe, expect, it } from "vitest";
import { spsaMathConfig } from "../../src/config/config.js";
import { eloBetween } from "../../src/simulate/engine-model.js";
import { cellProblem } from "../../src/simulate/family.js";
import { playGames } from "../../src/simulate/game-model.js";
import { asyncTuner } from "../../src/simulate/tuners.js";
import { createRng } from "../../src/core/rng.js";
import { drawBatch } from "../../src/spsa/option-batches.js";
import { applyBatch } from "../../src/spsa/batch-step.js";

const gainsFor = (n: number) =>
  spsaMathConfig(
    {
      maxIterations: n,
      cEnd: 1.5,
      rEnd: 0.002,
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
      adaptive: { mode: "off", window: 32, floor: 0.25 },
    },
    64,
  );

describe("the simulator's asynchronous tuner", () => {
  const problem = cellProblem({ parameters: 6, offset: 3, curvature: 1, type: "int" }, 0.4, "t");

  it("is UCI-option mode's batch math replayed: draw, play, apply, batch after batch (each its own draw)", () => {
    const trace = asyncTuner("async", gainsFor, 64, 8, 1, true).run(problem, 800, "s");
    const cfg = gainsFor(12);
    const gameRng = createRng("games:s");
    let params = problem.params;
    for (let n = 1, drawn = 0; drawn < 800; n++, drawn += 8) {
      const batch = drawBatch(params, cfg, { seed: "s", drawNumber: n, gamesBefore: drawn, gamesPerIteration: 64 });
      const result = playGames(eloBetween(problem.model, batch.plus, batch.minus), 8, problem.drawRate, gameRng);
      const { newValues } = applyBatch(params, { ...batch, games: 8 }, result, cfg, 64);
      params = params.map((p) => ({ ...p, value: newValues[p.name] ?? p.value }));
    }
    expect(trace.final).toEqual(Object.fromEntries(params.map((p) => [p.name, p.value])));
    expect(trace.games.at(-1)).toBe(800);
  });

  it("applies results late with batches in flight, and still spends exactly the budget", () => {
    const inOrder = asyncTuner("async", gainsFor, 64, 8, 1).run(problem, 2000, "s");
    const late = asyncTuner("async", gainsFor, 64, 8, 4).run(problem, 2000, "s");
    expect(late.games.at(-1)).toBe(2000);
    expect(late.final).not.toEqual(inOrder.final);
    expect(late.eloLeft.at(-1)).toBeLessThan(late.eloLeft[0] ?? 0);
  });

  it("with shared draws, plays each draw of the first half in an iteration's worth of batches, each applied as it comes", () => {
    const trace = asyncTuner("shared", gainsFor, 64, 8, 1).run(problem, 800, "s");
    const cfg = gainsFor(12);
    const gameRng = createRng("games:s");
    let params = problem.params;
    let draws = 0;
    let batch = drawBatch(params, cfg, { seed: "s", drawNumber: 1, gamesBefore: 0, gamesPerIteration: 64 });
    for (let n = 1, drawn = 0; drawn < 800; n++, drawn += 8) {
      // A new draw every 64 games up to half the budget (7 draws cover 448 games), then one per batch.
      if (drawn >= 448 || drawn % 64 === 0) {
        batch = drawBatch(params, cfg, { seed: "s", drawNumber: n, gamesBefore: drawn, gamesPerIteration: 64 });
        draws++;
      }
      const result = playGames(eloBetween(problem.model, batch.plus, batch.minus), 8, problem.drawRate, gameRng);
      const { newValues } = applyBatch(params, { ...batch, games: 8 }, result, cfg, 64);
      params = params.map((p) => ({ ...p, value: newValues[p.name] ?? p.value }));
    }
    expect(draws).toBe(7 + (800 - 448) / 8);
    expect(trace.final).toEqual(Object.fromEntries(params.map((p) => [p.name, p.value])));
    expect(trace.final).not.toEqual(asyncTuner("own", gainsFor, 64, 8, 1, true).run(problem, 800, "s").final);
  });
});
