#!/usr/bin/env node
// Asynchronous (UCI-option mode) against barrier (build mode) SPSA updates at equal games, in
// the simulator (not a test). Needs `npm run build`. Over the family of src/simulate/family.ts
// (5–40 parameters, 1–6 steps off, ¼–4× the reference curvature, int and float) at 5,000,
// 20,000 and 60,000 games: the master's barrier iterations of 64 games, and the asynchronous
// scheme with batches of 8, 16 or 64 games and 1 to 16 batches in flight (their results land
// on a θ the batches claimed before them have moved). Same gains (config.toml's c_end, r_end).
// Prints a markdown table: mean Elo left over the family, cells ending worse than they started.
//   node bench/simulate-async.mjs [--seeds 4] [--draw-rate 0.4] [--variants 8:4,64:4] [--budgets 5000,20000]
// A variant BATCH:IN_FLIGHT plays the master's draws (the first half's shared by an iteration's
// batches, docs/uci-options.md "Shared draws"); BATCH:IN_FLIGHT:own gives every batch its own.
import { parseArgs } from "node:util";
import { DEFAULT_ADAPTIVE, DEFAULT_C_END, DEFAULT_R_END } from "../dist/config/config.js";
import { defaultFamily, familyLine, runFamily } from "../dist/simulate/family.js";
import { simulatedGains } from "../dist/simulate/gains.js";
import { asyncTuner, masterTuner } from "../dist/simulate/tuners.js";

const { values } = parseArgs({
  options: {
    seeds: { type: "string", default: "4" },
    "draw-rate": { type: "string", default: "0.4" },
    variants: { type: "string", default: "8:1,8:4,8:16,16:4,64:4" },
    budgets: { type: "string", default: "5000,20000,60000" },
  },
});
const seeds = Number(values.seeds);
const drawRate = Number(values["draw-rate"]);
const perIteration = 64;
const budgets = values.budgets.split(",").map(Number);
const cells = defaultFamily();
const gainsFor = simulatedGains({}, perIteration);
const tuners = [
  masterTuner(`barrier: iterations of ${perIteration} games (build mode)`, gainsFor, perIteration),
  ...values.variants.split(",").map((v) => {
    const [batch, inFlight, own] = v.split(":");
    return asyncTuner(
      `async: batches of ${batch}, ${inFlight} in flight${own === "own" ? ", each its own draw" : ""}`,
      gainsFor,
      perIteration,
      Number(batch),
      Number(inFlight),
      own === "own",
    );
  }),
];

console.log(
  `${cells.length} cells × ${seeds} seeds, draw rate ${drawRate}, gains c_end ${DEFAULT_C_END}, r_end ${DEFAULT_R_END}, adapt ${DEFAULT_ADAPTIVE.mode} per ${perIteration} games\n`,
);
console.log(`| tuner | ${budgets.map((b) => `${b} games: Elo left · worse / significantly worse`).join(" | ")} |`);
console.log(`| --- | ${budgets.map(() => "---").join(" | ")} |`);
for (const tuner of tuners) {
  const started = Date.now();
  const out = budgets.map((budget) => {
    return familyLine(runFamily(tuner, cells, budget, seeds, drawRate)).text;
  });
  console.log(`| ${tuner.name} | ${out.join(" | ")} |`);
  console.error(`  (${tuner.name}: ${((Date.now() - started) / 1000).toFixed(0)} s)`);
}
