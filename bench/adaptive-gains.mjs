#!/usr/bin/env node
// The study behind the adaptive gains (docs/adaptive-gains.md; not a test). Needs `npm run build`.
// Runs the master's math with each candidate over the README's family (src/simulate/family.ts,
// 72 cells), the new rows (a few parameters far off and the rest at their optimum;
// asymmetric and flat-topped curves), with --rows minnow the two real-engine detunes of
// minnow as the simulator sees them, with --rows bound parameters that start at a bound; at
// 2,000, 5,000, 20,000 and 60,000 games. Prints mean Elo left · cells ending worse than their
// start / significantly worse (2 standard errors), and for the rows other than the family
// each cell's Elo left and how far the parameters that started at their optimum ended (the
// largest distance, steps, mean over seeds).
//   node bench/adaptive-gains.mjs [--seeds 16] [--rows old,new,minnow,bound] [--budgets 2000,5000,20000,60000]
//        [--candidates "old;new;signal:r=0.008,w=16,f=0.25;perparam:r=0.012,f=0.2;param:r=0.008;rprop:r=0.002;budget:r=0.002,n0=300"]
// A candidate is a kind and comma-separated settings:
//   old                the defaults before this study (c_end 1.5, r_end 0.002, no adaptation)
//   new                today's defaults (src/config/config.ts)
//   plain:r=R,c=C      plain SPSA with r_end R and c_end C
//   signal:r,c,w,f     the adaptive gains (src/spsa/adaptive.ts): scale = f + (1 − f)·ρ, ρ the run's signal share over the last w iterations;
//                      pilot=P: P iterations of the curvature pilot (src/spsa/pilot.ts); widen=E: the pilot's
//                      factor F also widens the perturbation, c × F^E (adapt_widen; 0 unless given);
//                      lift=L: it lifts the floor too, to min(F, f·F^L) (adapt_lift; 0 unless given);
//                      ms=M: max_step M; n0=N,p=P: the scale times (N / parameters)^P
//   perparam:r,c,w,f   ρ times each parameter's share φ_i (James–Stein shrinkage of its mean gradient over the window)
//   param:r,c,w,f      only each parameter's share φ_i
//   rprop:r,c,up,down  Rprop-like: a parameter's scale ×up while its gradient keeps its sign, ×down when it flips (within [0.1, 4])
//   budget:r,c,n0      r_end = R·√(n0 / N): a larger learning rate for a shorter run
import { parseArgs } from "node:util";
import { DEFAULT_ADAPTIVE, DEFAULT_C_END, DEFAULT_R_END, spsaMathConfig } from "../dist/config/config.js";
import { boundRows, defaultFamily, describeCell, familyLine, newRows, runFamily } from "../dist/simulate/family.js";
import { simulatedSpsa } from "../dist/simulate/gains.js";
import { masterTuner } from "../dist/simulate/tuners.js";
import { DEFAULT_MAX_STEP } from "../dist/spsa/math.js";
import { signalShare, stepScales } from "../dist/spsa/adaptive.js";
import { mean, sd } from "./bench-stats.mjs";

const { values } = parseArgs({
  options: {
    seeds: { type: "string", default: "16" },
    rows: { type: "string", default: "old,new" },
    budgets: { type: "string", default: "2000,5000,20000,60000" },
    candidates: { type: "string", default: "old;new" },
    "draw-rate": { type: "string", default: "0.4" },
    details: { type: "boolean", default: false },
  },
});
const seeds = Number(values.seeds);
const drawRate = Number(values["draw-rate"]);
const perIteration = 64;
const budgets = values.budgets.split(",").map(Number);
const rows = values.rows.split(",");

const spsa = (
  cEnd,
  rEnd,
  maxIterations,
  maxStep = DEFAULT_MAX_STEP,
  adaptive = { mode: "off", window: 16, floor: 1 },
) => ({ ...simulatedSpsa({ cEnd, rEnd, maxStep, adaptive }), maxIterations });

const window = (history, w) => history.slice(Math.max(0, history.length - w));
/** φ_i, tried and dropped: James–Stein shrinkage of a parameter's mean gradient over the window, in [0, 1]. */
const parameterShare = (recent, name) => {
  const gs = recent.map((it) => it.gradient[name] ?? 0).filter((g) => g !== 0);
  if (gs.length < 2) return 0;
  const m = mean(gs);
  const se2 = sd(gs) ** 2 / gs.length;
  return m === 0 ? 0 : Math.min(1, Math.max(0, 1 - se2 / (m * m)));
};
const KINDS = {
  old: () => [1.5, 0.002, undefined],
  // A kind's sixth entry, the adaptive gains as config.toml gives them, lets the master's own math choose the scales (and run the curvature pilot).
  new: () => [DEFAULT_C_END, DEFAULT_R_END, undefined, undefined, undefined, DEFAULT_ADAPTIVE],
  plain: (o) => [o.c ?? 1.5, o.r ?? 0.002, undefined],
  signal: (o) => {
    const adaptive = {
      mode: "signal",
      window: o.w ?? 32,
      floor: o.f ?? 0.25,
      pilot: o.pilot ?? 0,
      widen: o.widen ?? 0,
      lift: o.lift ?? 0,
    };
    if (o.n0 === undefined) return [o.c ?? 1.5, o.r, undefined, undefined, o.ms, adaptive];
    // n0: a rate inversely proportional to the number of parameters, (n0 / n)^p.
    return [
      o.c ?? 1.5,
      o.r,
      (h, names) => {
        const scales = stepScales(h, names, adaptive);
        return Object.fromEntries(names.map((n) => [n, scales[n] * (o.n0 / names.length) ** (o.p ?? 1)]));
      },
      undefined,
      o.ms,
    ];
  },
  perparam: (o) => [
    o.c ?? 1.5,
    o.r,
    (h, names) => {
      const recent = window(h, o.w ?? 16);
      const rho = signalShare(recent);
      return Object.fromEntries(
        names.map((n) => [n, (o.f ?? 0.1) + (1 - (o.f ?? 0.1)) * rho * parameterShare(recent, n)]),
      );
    },
  ],
  param: (o) => [
    o.c ?? 1.5,
    o.r,
    (h, names) =>
      Object.fromEntries(
        names.map((n) => [n, (o.f ?? 0.1) + (1 - (o.f ?? 0.1)) * parameterShare(window(h, o.w ?? 16), n)]),
      ),
  ],
  rprop: (o) => [
    o.c ?? 1.5,
    o.r,
    (h, names) => {
      // Replayed from the history each time (pure): the scale after every sign agreement or flip.
      const scale = Object.fromEntries(names.map((n) => [n, 1]));
      for (let j = 1; j < h.length; j++)
        for (const n of names) {
          const agree = Math.sign(h[j].gradient[n] ?? 0) * Math.sign(h[j - 1].gradient[n] ?? 0);
          if (agree !== 0)
            scale[n] = Math.min(4, Math.max(0.1, scale[n] * (agree > 0 ? (o.up ?? 1.2) : (o.down ?? 0.5))));
        }
      return scale;
    },
  ],
  budget: (o) => [o.c ?? 1.5, o.r, undefined, (n) => o.r * Math.sqrt((o.n0 ?? 100) / n)],
};

const tuner = (text) => {
  const [kind, settings = ""] = text.split(":");
  if (!(kind in KINDS)) throw new Error(`unknown candidate kind "${kind}"`);
  const o = Object.fromEntries(
    settings
      .split(",")
      .filter(Boolean)
      .map((kv) => kv.split("="))
      .map(([k, v]) => [k, Number(v)]),
  );
  const [cEnd, rEnd, scales, rEndFor, maxStep, adaptive] = KINDS[kind](o);
  return masterTuner(
    text,
    (n) => spsaMathConfig(spsa(cEnd, rEndFor ? rEndFor(n) : rEnd, n, maxStep, adaptive), perIteration),
    perIteration,
    0,
    scales,
  );
};

// The two detunes of minnow in docs/adaptive-gains.md ("Real engine") as the simulator sees them:
// 18 parameters; 6 of them 6 steps off, or 12 of them 3 steps off, at the curvature their
// measured gaps give (46 and 47 Elo).
const minnowRows = () => [
  ...[
    { parameters: 18, far: 6, offset: 6, curvature: 0.68 },
    { parameters: 18, far: 12, offset: 3, curvature: 1.4 },
  ].flatMap((row) => ["int", "float"].map((type) => ({ ...row, type }))),
];
const families = { old: defaultFamily(), new: newRows(), minnow: minnowRows(), bound: boundRows() };
console.log(
  `${seeds} seeds, draw rate ${drawRate}, ${perIteration} games per iteration; Elo left (of start) · worse / significantly worse\n`,
);
for (const text of values.candidates.split(";").filter(Boolean)) {
  const t = tuner(text);
  const started = Date.now();
  for (const row of rows) {
    const cells = families[row];
    const out = [];
    const perCell = cells.map(() => []);
    for (const budget of budgets) {
      const results = runFamily(t, cells, budget, seeds, drawRate);
      const { text, significant } = familyLine(results);
      out.push(text);
      results.forEach((r, i) =>
        perCell[i].push(
          `${r.end.toFixed(1)}${r.cell.far === undefined ? "" : `, others ${r.wander.toFixed(1)} steps`}`,
        ),
      );
      if (values.details)
        for (const r of significant)
          console.error(
            `  ${text}, ${budget}: ${describeCell(r.cell)}: ${r.start.toFixed(2)} → ${r.end.toFixed(2)} ± ${r.changeError.toFixed(2)}`,
          );
    }
    console.log(`| ${text} | ${row} rows | ${out.join(" | ")} |`);
    if (row !== "old")
      cells.forEach((cell, i) => console.log(`|   | ${describeCell(cell)} | ${perCell[i].join(" | ")} |`));
  }
  console.error(`  (${text}: ${((Date.now() - started) / 1000).toFixed(0)} s)`);
}
