#!/usr/bin/env node
// How far ours and plain SPSA are from the best a tuner could reach, in the simulator (not a
// test). Needs `npm run build`. Over the family of src/simulate/family.ts (72 cells: 5–40
// parameters, 1–6 steps off, ¼–4× the reference curvature, int and float), per budget: plain
// SPSA (adapt off, c_end 1.5, r_end 0.002: fishtest's and OpenBench's rule at the gains the
// family table calls plain), ours (the shipped defaults, the curvature pilot included), and the
// hindsight oracle (src/simulate/limit.ts): per cell, the best of a grid of gains for plain SPSA
// and for ours, chosen on --train-seeds problems and scored on --test-seeds others, which plain
// and ours are scored on too. Prints a markdown table: mean Elo left, and ours as a share of the
// way from plain to the limit. `--surface minnow` runs minnow's measured surface instead
// (docs/adaptive-gains.md, "The simulator held to reality": 18 int parameters 5.5 steps from
// their optima on average, 1.45 Elo lost at 4 steps, draw rate 0.15).
//   node bench/simulate-limit.mjs [--surface family|minnow] [--budgets 5000,20000,60000]
//     [--train-seeds 8] [--test-seeds 16] [--draw-rate 0.4]
import { parseArgs } from "node:util";
import { DEFAULT_ADAPTIVE } from "../dist/config/config.js";
import { defaultFamily, runFamily } from "../dist/simulate/family.js";
import { simulatedGains } from "../dist/simulate/gains.js";
import { hindsightLimit, limitCandidates, shareOfTheWay, TEST_FIRST_SEED } from "../dist/simulate/limit.js";
import { masterTuner } from "../dist/simulate/tuners.js";
import { mean } from "./bench-stats.mjs";

const { values } = parseArgs({
  options: {
    surface: { type: "string", default: "family" },
    budgets: { type: "string", default: "5000,20000,60000" },
    "train-seeds": { type: "string", default: "8" },
    "test-seeds": { type: "string", default: "16" },
    "draw-rate": { type: "string" },
  },
});
const SURFACES = {
  family: { cells: defaultFamily(), drawRate: 0.4 },
  minnow: { cells: [{ parameters: 18, offset: 5.5, curvature: 1.448 / 5, type: "int" }], drawRate: 0.15 },
};
const surface = SURFACES[values.surface];
if (surface === undefined) throw new Error(`--surface: expected family or minnow, got "${values.surface}"`);
const budgets = values.budgets.split(",").map(Number);
const seeds = { train: Number(values["train-seeds"]), test: Number(values["test-seeds"]) };
const drawRate = Number(values["draw-rate"] ?? surface.drawRate);
const perIteration = 64;
const cells = surface.cells;

const tuner = (name, changes) => masterTuner(name, simulatedGains(changes, perIteration), perIteration);
const plain = tuner("plain", { cEnd: 1.5, rEnd: 0.002, adaptive: { ...DEFAULT_ADAPTIVE, mode: "off" } });
const ours = tuner("ours", {});
const candidates = limitCandidates(tuner);

console.log(
  `${cells.length} cells, draw rate ${drawRate}, ${perIteration} games per iteration; the oracle picks among ` +
    `${candidates.length} gains per cell on ${seeds.train} problems, everything is scored on ${seeds.test} others\n`,
);
console.log(
  "| games | start | plain | ours | limit | ours: share of the way from plain to the limit | oracle's picks |",
);
console.log("| --- | --- | --- | --- | --- | --- | --- |");
for (const budget of budgets) {
  const started = Date.now();
  const scored = (t) => runFamily(t, cells, budget, seeds.test, drawRate, TEST_FIRST_SEED);
  const plainEnd = mean(scored(plain).map((r) => r.end));
  const oursResults = scored(ours);
  const oursEnd = mean(oursResults.map((r) => r.end));
  const limit = hindsightLimit(candidates, cells, budget, seeds, drawRate);
  const limitEnd = mean(limit.map((r) => r.end));
  const share = shareOfTheWay(plainEnd, oursEnd, limitEnd);
  const picks = new Map();
  for (const r of limit) {
    const kind = r.chosen.startsWith("ours") ? "ours" : "plain";
    picks.set(kind, (picks.get(kind) ?? 0) + 1);
  }
  const picked = [...picks].map(([kind, n]) => `${kind}'s rule ${n}`).join(", ");
  console.log(
    `| ${budget} | ${mean(oursResults.map((r) => r.start)).toFixed(1)} | ${plainEnd.toFixed(1)} | ${oursEnd.toFixed(1)} | ` +
      `${limitEnd.toFixed(1)} | ${share === undefined ? "—" : `${(100 * share).toFixed(0)} %`} | ${picked} |`,
  );
  for (const [i, r] of limit.entries())
    console.error(
      `  ${budget} cell ${i}: ours ${oursResults[i].end.toFixed(2)}, limit ${r.end.toFixed(2)} (${r.chosen})`,
    );
  console.error(`  (${budget} games: ${((Date.now() - started) / 1000).toFixed(0)} s)`);
}
