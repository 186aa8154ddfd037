#!/usr/bin/env node
// Reference mode against plus-vs-minus at equal games, in the simulator (not a test). Needs
// `npm run build`. Over the family of src/simulate/family.ts (72 problems: 5–40 parameters, 1–6
// steps off, ¼–4× the reference curvature, int and float), the master with the default gains
// (config.toml's c_end, r_end, adaptive gains), 64 games per iteration, at 2,000, 5,000 and
// 20,000 games: every game θ+ against θ− (the default), or half θ+ and half θ− against a fixed
// reference engine (src/simulate/reference-mode.ts): θ₀, an engine 100 Elo stronger than θ₀,
// one 100 Elo weaker; and plus-vs-minus at ½ and ¼ of the games, to read what a reference game
// is worth. Every row plays the same problems (seed s of each cell).
// Prints a markdown table: mean Elo left over the family with its 95 % interval over seeds (a
// seed's value is its mean over the 72 cells), and reference mode minus plus-vs-minus, paired
// by seed, with its 95 % interval.
//   node bench/reference-mode.mjs [--seeds 16] [--draw-rate 0.4] [--budgets 2000,5000,20000]
import { parseArgs } from "node:util";
import { DEFAULT_ADAPTIVE, DEFAULT_C_END, DEFAULT_R_END } from "../dist/config/config.js";
import { cellProblem, defaultFamily } from "../dist/simulate/family.js";
import { simulatedGains } from "../dist/simulate/gains.js";
import { describeReference, referencePlay } from "../dist/simulate/reference-mode.js";
import { masterTuner } from "../dist/simulate/tuners.js";
import { DEFAULT_ELO_CAP } from "../dist/spsa/math.js";
import { mean, sd } from "./bench-stats.mjs";

const { values } = parseArgs({
  options: {
    seeds: { type: "string", default: "16" },
    "draw-rate": { type: "string", default: "0.4" },
    budgets: { type: "string", default: "2000,5000,20000" },
  },
});
const seeds = Number(values.seeds);
const drawRate = Number(values["draw-rate"]);
const budgets = values.budgets.split(",").map(Number);
const perIteration = 64;
const cells = defaultFamily();
const gainsFor = simulatedGains({}, perIteration);
const references = [{ kind: "start" }, { kind: "fixed", elo: 100 }, { kind: "fixed", elo: -100 }];
const plusVsMinus = masterTuner("plus-vs-minus (the default)", gainsFor, perIteration);
// Rows: a tuner and the share of the budget it plays. Plus-vs-minus at ½ and ¼ of the games
// calibrates what a reference game is worth.
const tuners = [
  { tuner: plusVsMinus, share: 1 },
  ...references.map((reference) => ({
    tuner: masterTuner(
      `reference mode, ${describeReference(reference)}`,
      gainsFor,
      perIteration,
      0,
      undefined,
      referencePlay(reference, DEFAULT_ELO_CAP),
    ),
    share: 1,
  })),
  { tuner: plusVsMinus, share: 0.5 },
  { tuner: plusVsMinus, share: 0.25 },
];
const nameOf = ({ tuner, share }) =>
  share === 1 ? tuner.name : `plus-vs-minus at ${share === 0.5 ? "½" : "¼"} of the games`;

/** Two-sided 95 % quantile of Student's t with n − 1 degrees of freedom (n seeds). */
const t95 = (n) => ({ 2: 12.71, 3: 4.3, 4: 3.18, 5: 2.78, 6: 2.57, 8: 2.36, 16: 2.13 })[n] ?? 1.96;
const interval = (xs) => {
  return { mean: mean(xs), half: (t95(xs.length) * sd(xs)) / Math.sqrt(xs.length) };
};
const show = ({ mean, half }) => `${mean.toFixed(1)} ± ${half.toFixed(1)}`;

// perSeed[tuner][budget][seed]: that seed's mean Elo left over the family's cells.
const perSeed = tuners.map(() => budgets.map(() => Array(seeds).fill(0)));
let start = 0;
const began = Date.now();
for (const cell of cells) {
  for (let s = 0; s < seeds; s++) {
    const problem = cellProblem(cell, drawRate, String(s));
    tuners.forEach(({ tuner, share }, t) =>
      budgets.forEach((budget, b) => {
        const trace = tuner.run(problem, Math.round(budget * share), `run${s}`);
        if (t === 0 && b === 0) start += (trace.eloLeft[0] ?? Number.NaN) / (cells.length * seeds);
        perSeed[t][b][s] += (trace.eloLeft.at(-1) ?? Number.NaN) / cells.length;
      }),
    );
  }
}
console.log(
  `${cells.length} cells × ${seeds} seeds, draw rate ${drawRate}, gains c_end ${DEFAULT_C_END}, r_end ${DEFAULT_R_END}, adapt ${DEFAULT_ADAPTIVE.mode}, ${perIteration} games per iteration; ` +
    `mean Elo left at the start ${start.toFixed(1)}; ± is the 95 % interval over seeds (${((Date.now() - began) / 1000).toFixed(0)} s)\n`,
);
console.log(`| games | ${budgets.map((b) => `${b.toLocaleString("en-US")}`).join(" | ")} |`);
console.log(`| --- | ${budgets.map(() => "---").join(" | ")} |`);
tuners.forEach((row, t) => {
  const cellsText = budgets.map((_, b) => {
    const own = show(interval(perSeed[t][b]));
    if (t === 0) return own;
    const diff = interval(perSeed[t][b].map((x, s) => x - perSeed[0][b][s]));
    return `${own} (${diff.mean >= 0 ? "+" : ""}${show(diff)})`;
  });
  console.log(`| ${nameOf(row)} | ${cellsText.join(" | ")} |`);
});
console.log("\n(in brackets: the row minus plus-vs-minus at the full budget, paired by seed)");
