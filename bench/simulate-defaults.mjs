#!/usr/bin/env node
// Chooses and checks the SPSA defaults in the simulator (not a test). Needs `npm run build`.
// Runs the master's math (with the default adaptive gains) with each candidate (c_end, r_end) and the two anchors (fishtest,
// the seed design) over the family of src/simulate/family.ts (5–40 parameters, 1–6 steps
// off, ¼–4× the reference curvature, int and float) at 2,000, 5,000, 20,000 and 60,000 games, and
// prints a markdown table: mean Elo left over the family, and the cells that end worse than
// they started (mean over seeds; "significantly" when by more than 2 standard errors).
// Also, with --previous, the defaults before this table (a 1, c 1, elo_cap 100, run with
// today's math), and with --no-anchors, without the anchors. --variants adds the default
// gains with other [spsa] settings, one variant per `;`-separated list of key=value (keys as
// in config.toml: schedule, momentum, average_tail, A, c_end, r_end), e.g. the comparison in docs/choosing-gains.md:
//   node bench/simulate-defaults.mjs --no-anchors --variants "average_tail=0.25;average_tail=0.5;momentum=0.5;schedule=self-correcting"
//   node bench/simulate-defaults.mjs [--seeds 16] [--candidates 1.5:0.002,2:0.0015] [--previous] [--draw-rate 0.4]
import { parseArgs } from "node:util";
import { DEFAULT_ADAPTIVE, DEFAULT_C_END, DEFAULT_R_END, spsaMathConfig } from "../dist/config/config.js";
import { defaultFamily, describeCell, familyLine, runFamily } from "../dist/simulate/family.js";
import { simulatedSpsa } from "../dist/simulate/gains.js";
import { fishtestTuner, masterTuner, seedTuner } from "../dist/simulate/tuners.js";

const { values } = parseArgs({
  allowNegative: true,
  options: {
    seeds: { type: "string", default: "16" },
    candidates: { type: "string", default: `${DEFAULT_C_END}:${DEFAULT_R_END}` },
    "draw-rate": { type: "string", default: "0.4" },
    "games-per-iteration": { type: "string", default: "64" },
    details: { type: "boolean", default: false },
    previous: { type: "boolean", default: false },
    anchors: { type: "boolean", default: true },
    variants: { type: "string", default: "" },
  },
});
const seeds = Number(values.seeds);
const drawRate = Number(values["draw-rate"]);
const perIteration = Number(values["games-per-iteration"]);
const budgets = [2000, 5000, 20000, 60000];
const cells = defaultFamily();

const spsa = (cEnd, rEnd, maxIterations) => ({ ...simulatedSpsa({ cEnd, rEnd }), maxIterations });
const VARIANT_KEYS = {
  schedule: "schedule",
  momentum: "momentum",
  average_tail: "averageTail",
  A: "A",
  c_end: "cEnd",
  r_end: "rEnd",
  adapt: "adapt",
};
const variant = (text) => {
  const settings = {};
  for (const pair of text.split(",")) {
    const [key, value] = pair.split("=").map((s) => s.trim());
    if (!(key in VARIANT_KEYS) || value === undefined)
      throw new Error(
        `--variants: expected key=value with key one of ${Object.keys(VARIANT_KEYS).join(", ")}, got "${pair}"`,
      );
    if (key === "adapt") settings.adaptive = { ...DEFAULT_ADAPTIVE, mode: value };
    else settings[VARIANT_KEYS[key]] = key === "schedule" ? value : Number(value);
  }
  // A is given as a share of max_iterations, as the default A = 0.1 × N is.
  const forRun = (n) => ({
    ...spsa(DEFAULT_C_END, DEFAULT_R_END, n),
    ...settings,
    ...(settings.A === undefined ? {} : { A: settings.A * n }),
  });
  return masterTuner(
    `defaults + ${text}`,
    (n) => spsaMathConfig(forRun(n), perIteration),
    perIteration,
    settings.averageTail ?? 0,
  );
};
const tuners = [
  ...values.candidates
    .split(",")
    .filter(Boolean)
    .map((pair) => {
      const [cEnd, rEnd] = pair.split(":").map(Number);
      return masterTuner(
        `c_end ${cEnd}, r_end ${rEnd}`,
        (n) => spsaMathConfig(spsa(cEnd, rEnd, n), perIteration),
        perIteration,
      );
    }),
  ...(values.previous
    ? [
        masterTuner(
          "previous defaults (a 1, c 1, elo_cap 100)",
          (n) => ({
            ...spsaMathConfig(
              { ...spsa(1, 1, n), a: 1, c: 1, adaptive: { ...DEFAULT_ADAPTIVE, mode: "off" } },
              perIteration,
            ),
            eloCap: 100,
          }),
          perIteration,
        ),
      ]
    : []),
  ...(values.variants === "" ? [] : values.variants.split(";").map(variant)),
  ...(values.anchors ? [fishtestTuner({ cEnd: 1, rEnd: 0.002, batchGames: 8 }), seedTuner()] : []),
];

console.log(`${cells.length} cells × ${seeds} seeds, draw rate ${drawRate}, ${perIteration} games per iteration\n`);
console.log(
  `| tuner | ${budgets.map((b) => `${b} games: Elo left (of start) · worse / significantly worse`).join(" | ")} |`,
);
console.log(`| --- | ${budgets.map(() => "---").join(" | ")} |`);
for (const tuner of tuners) {
  const started = Date.now();
  const cellsOut = [];
  for (const budget of budgets) {
    const results = runFamily(tuner, cells, budget, seeds, drawRate);
    const { text, worse } = familyLine(results);
    cellsOut.push(text);
    if (values.details)
      for (const r of worse)
        console.error(
          `  ${tuner.name}, ${budget}: ${describeCell(r.cell)}: ${r.start.toFixed(2)} → ${r.end.toFixed(2)} ± ${r.changeError.toFixed(2)}`,
        );
  }
  console.log(`| ${tuner.name} | ${cellsOut.join(" | ")} |`);
  console.error(`  (${tuner.name}: ${((Date.now() - started) / 1000).toFixed(0)} s)`);
}
