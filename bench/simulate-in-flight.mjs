#!/usr/bin/env node
// The Elo cost of build mode's iterations in flight (docs/in-flight.md; not a test). Needs
// `npm run build`. Runs the master's math with the default gains (adaptive, curvature pilot) at
// each staleness d of --staleness, 0 being today's barrier (iteration k drawn from θ after the
// steps of 1..k − 1 − d, its step applied to the θ of k − 1's: src/simulate/tuners.ts), at equal
// games, over the README's family (src/simulate/family.ts, 72 cells) and the hidden-style rows
// (newRows: a few parameters far off, the rest at their optimum; asymmetric and flat-topped
// curves). Prints mean Elo left · cells ending worse than their start / significantly worse.
//   node bench/simulate-in-flight.mjs [--seeds 8] [--staleness 0,1,2,6] [--rows family,new] [--budgets 2000,5000,20000,60000]
import { parseArgs } from "node:util";
import { DEFAULT_ADAPTIVE, DEFAULT_C_END, DEFAULT_R_END } from "../dist/config/config.js";
import { defaultFamily, familyLine, newRows, runFamily } from "../dist/simulate/family.js";
import { simulatedGains } from "../dist/simulate/gains.js";
import { masterTuner } from "../dist/simulate/tuners.js";
import { plusVsMinus } from "../dist/simulate/game-model.js";

const { values } = parseArgs({
  options: {
    seeds: { type: "string", default: "8" },
    staleness: { type: "string", default: "0,1,2,6" },
    rows: { type: "string", default: "family,new" },
    budgets: { type: "string", default: "2000,5000,20000,60000" },
    "draw-rate": { type: "string", default: "0.4" },
  },
});
const seeds = Number(values.seeds);
const drawRate = Number(values["draw-rate"]);
const perIteration = 64;
const budgets = values.budgets.split(",").map(Number);
const families = { family: defaultFamily(), new: newRows() };
const gainsFor = simulatedGains({}, perIteration);
const tuners = values.staleness
  .split(",")
  .map(Number)
  .map((d) =>
    masterTuner(
      d === 0 ? "barrier (staleness 0)" : `in flight, staleness ${d}`,
      gainsFor,
      perIteration,
      0,
      undefined,
      plusVsMinus,
      d,
    ),
  );

console.log(
  `${seeds} seeds, draw rate ${drawRate}, ${perIteration} games per iteration, default gains (c_end ${DEFAULT_C_END}, r_end ${DEFAULT_R_END}, adapt ${DEFAULT_ADAPTIVE.mode}, pilot ${DEFAULT_ADAPTIVE.pilot})\n`,
);
for (const row of values.rows.split(",")) {
  const cells = families[row];
  if (!cells) throw new Error(`--rows: expected family or new, got "${row}"`);
  console.log(`\n${row === "family" ? "family" : "hidden-style rows (newRows)"}: ${cells.length} cells\n`);
  console.log(`| tuner | ${budgets.map((b) => `${b} games: Elo left · worse / significantly worse`).join(" | ")} |`);
  console.log(`| --- | ${budgets.map(() => "---").join(" | ")} |`);
  for (const tuner of tuners) {
    const started = Date.now();
    const out = budgets.map((budget) => familyLine(runFamily(tuner, cells, budget, seeds, drawRate)).text);
    console.log(`| ${tuner.name} | ${out.join(" | ")} |`);
    console.error(`  (${row}, ${tuner.name}: ${((Date.now() - started) / 1000).toFixed(0)} s)`);
  }
}
