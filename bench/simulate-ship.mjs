#!/usr/bin/env node
// The ship check's candidates in the simulator (docs/ship-check.md; not a test). Needs `npm run
// build`. Runs the master's math with the default gains over the README's family
// (src/simulate/family.ts, 72 cells) at each budget and measures, per run:
//  - how often the final θ is not the best of the two candidates (final θ, tail average of the
//    last --tail of the iterations), by true Elo, and by how much;
//  - at equal total games, the Elo left by shipping the final θ of a run of the whole budget
//    against a run of budget − E games whose candidates then play an elimination match of E games
//    (--elimination; the tail average must score more than the final θ to be chosen, as the
//    master does: src/spsa/ship.ts), and against picking the truly better candidate (oracle).
// Prints a markdown table.
//   node bench/simulate-ship.mjs [--seeds 8] [--budgets 5000,20000,60000] [--elimination 400] [--tail 0.5]
import { parseArgs } from "node:util";
import { cellProblem, defaultFamily } from "../dist/simulate/family.js";
import { simulatedGains } from "../dist/simulate/gains.js";
import { masterTuner } from "../dist/simulate/tuners.js";
import { eloBetween, eloLeft } from "../dist/simulate/engine-model.js";
import { playGames } from "../dist/simulate/game-model.js";
import { challengerWins } from "../dist/spsa/ship.js";
import { createRng } from "../dist/core/rng.js";
import { mean, sd } from "./bench-stats.mjs";

const { values } = parseArgs({
  options: {
    seeds: { type: "string", default: "8" },
    budgets: { type: "string", default: "5000,20000,60000" },
    elimination: { type: "string", default: "400" },
    tail: { type: "string", default: "0.5" },
    "draw-rate": { type: "string", default: "0.4" },
  },
});
const seeds = Number(values.seeds);
const drawRate = Number(values["draw-rate"]);
const elimination = Number(values.elimination);
const tail = Number(values.tail);
const perIteration = 64;
const budgets = values.budgets.split(",").map(Number);
const cells = defaultFamily();
const gainsFor = simulatedGains({}, perIteration);
// One run gives both candidates: its final θ (unaveraged) and its tail average (final).
const tuner = masterTuner("default gains", gainsFor, perIteration, tail);

/** Elo left by each candidate of a run of `budget` games. */
function candidates(problem, budget, seed) {
  const trace = tuner.run(problem, budget, seed);
  const final = trace.unaveraged ?? trace.final;
  return {
    final,
    tail: trace.final,
    finalLeft: eloLeft(problem.model, final),
    tailLeft: eloLeft(problem.model, trace.final),
  };
}

const stderr = (xs) => sd(xs) / Math.sqrt(xs.length);

console.log(
  `${cells.length} cells × ${seeds} seeds, draw rate ${drawRate}, ${perIteration} games per iteration, default gains; tail average of the last ${tail} of the iterations; elimination ${elimination} games\n`,
);
console.log(
  "| budget | final θ not the best (share of runs) | by > 1 Elo | mean Elo left: final θ, full budget | tail average, full budget | selected (budget − E, then E elimination games) | oracle pick (budget − E) | selected − final (± 2 s.e.) | elimination picks the better |",
);
console.log("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
for (const budget of budgets) {
  const started = Date.now();
  const rows = [];
  for (const cell of cells) {
    for (let s = 0; s < seeds; s++) {
      const problem = cellProblem(cell, drawRate, String(s));
      const full = candidates(problem, budget, `run${s}`);
      const short = candidates(problem, budget - elimination, `run${s}`);
      const match = playGames(
        eloBetween(problem.model, short.tail, short.final),
        elimination,
        drawRate,
        createRng(`ship:${s}:${budget}:${cell.parameters}`),
      );
      const chosen = challengerWins({ wins: match.plusWins, losses: match.minusWins })
        ? short.tailLeft
        : short.finalLeft;
      rows.push({
        full,
        chosen,
        oracle: Math.min(short.finalLeft, short.tailLeft),
        right: chosen === Math.min(short.finalLeft, short.tailLeft) || short.finalLeft === short.tailLeft,
      });
    }
  }
  const gain = rows.map((r) => r.chosen - r.full.finalLeft);
  const share = (f) => `${((100 * rows.filter(f).length) / rows.length).toFixed(1)} %`;
  console.log(
    `| ${budget} | ${share((r) => r.full.tailLeft < r.full.finalLeft)} | ${share((r) => r.full.tailLeft < r.full.finalLeft - 1)} | ${mean(rows.map((r) => r.full.finalLeft)).toFixed(2)} | ` +
      `${mean(rows.map((r) => r.full.tailLeft)).toFixed(2)} | ${mean(rows.map((r) => r.chosen)).toFixed(2)} | ${mean(rows.map((r) => r.oracle)).toFixed(2)} | ` +
      `${mean(gain) >= 0 ? "+" : ""}${mean(gain).toFixed(2)} ± ${(2 * stderr(gain)).toFixed(2)} | ${share((r) => r.right)} |`,
  );
  console.error(`  (${budget} games: ${((Date.now() - started) / 1000).toFixed(0)} s)`);
}
