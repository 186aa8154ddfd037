#!/usr/bin/env node
// The Elo gained so far from gain games (src/spsa/gain-so-far.ts) against the truth, in the
// simulator (not a test). Needs `npm run build`. Over the family of src/simulate/family.ts (and
// its new rows) with the default gains, build mode (barrier iterations of 64 games) and
// UCI-option mode (batches of 8, 4 in flight): a share of the budget plays θ against θ₀ in blocks
// of --block games (16: one every 16/share games), the tuner gets the rest, so its Elo left at the budget
// is what the gain games cost. After every block the run reads its gain and the rest's projection.
// Prints markdown tables: the cost; the gain's and the rest's intervals and their coverage at a
// quarter, half, three quarters and all of the budget; the stop rule's games saved and Elo lost.
//   node bench/gain-so-far.mjs [--seeds 4] [--draw-rate 0.4] [--budgets 5000,20000] [--modes build,options]
//     [--shares 0.05,0.1,0.2] [--windows 0.25,0.5,0.75] [--thresholds 1,2,3,5]
import { parseArgs } from "node:util";
import { DEFAULT_C_END, DEFAULT_R_END } from "../dist/config/config.js";
import { cellProblem, defaultFamily, newRows } from "../dist/simulate/family.js";
import { simulatedGains } from "../dist/simulate/gains.js";
import { asyncTuner, masterTuner } from "../dist/simulate/tuners.js";
import { eloLeftAt } from "../dist/simulate/aggregate.js";
import { playGames } from "../dist/simulate/game-model.js";
import { createRng } from "../dist/core/rng.js";
import { DEFAULT_GAIN_OPTIONS, nothingLeftToGain, readGain } from "../dist/spsa/gain-so-far.js";

const { values } = parseArgs({
  options: {
    seeds: { type: "string", default: "4" },
    "draw-rate": { type: "string", default: "0.4" },
    budgets: { type: "string", default: "5000,20000" },
    modes: { type: "string", default: "build,options" },
    shares: { type: "string", default: "0.05,0.1,0.2" },
    windows: { type: "string", default: "0.5,0.75" },
    thresholds: { type: "string", default: "1,2,3,5" },
    "stop-share": { type: "string", default: "0.1" },
    block: { type: "string", default: "16" },
  },
});
const list = (s) => s.split(",").map(Number);
const seeds = Number(values.seeds);
const drawRate = Number(values["draw-rate"]);
const budgets = list(values.budgets);
const shares = list(values.shares);
const windows = list(values.windows);
const thresholds = list(values.thresholds);
const stopShare = Number(values["stop-share"]);
const perIteration = 64;
const blockGames = Number(values.block);
const checkpoints = [0.25, 0.5, 0.75, 1];
const cells = [...defaultFamily(), ...newRows()];
const gainsFor = simulatedGains({}, perIteration);
const tuners = {
  build: masterTuner(`build mode: iterations of ${perIteration} games`, gainsFor, perIteration),
  options: asyncTuner("UCI-option mode: batches of 8, 4 in flight", gainsFor, perIteration, 8, 4),
};
// The estimators compared: the gain as the window's level or a line read at its end, the rest
// always a line (over restWindow); the first is the design.
const design = { ...DEFAULT_GAIN_OPTIONS, shape: "level" };
const estimators = [
  design,
  { window: 0.25, shape: "level", restWindow: 0.5 },
  ...windows.map((window) => ({ window, shape: "line", restWindow: window })),
].map((options) => ({ name: `${options.shape}, last ${options.window * 100} %`, options }));

/**
 * One run with `share` of its budget in gain blocks: the tuner plays the rest, a block of θ (as
 * the tuner's games so far left it) against θ₀ after every (64/share − 64) of its games. Returns
 * the blocks, with the run's games when each was drawn and when it was in, and the true gain then.
 */
function gainRun(tuner, problem, budget, share, seed) {
  const tuning = Math.round(budget * (1 - share));
  const trace = tuner.run(problem, tuning, seed);
  const start = trace.eloLeft[0];
  const rng = createRng(`gain:${seed}`);
  const between = Math.round(blockGames / share) - blockGames;
  const blocks = [];
  let played = 0;
  let tuned = 0;
  for (;;) {
    const tune = Math.min(between, tuning - tuned);
    tuned += tune;
    played += tune;
    const games = Math.min(blockGames, budget - played);
    if (games <= 0) break;
    const truth = start - eloLeftAt(trace, tuned);
    blocks.push({ at: played, result: playGames(truth, games, problem.drawRate, rng), truth });
    played += games;
    blocks.at(-1).in = played;
  }
  return { blocks, final: start - trace.eloLeft.at(-1), eloLeft: trace.eloLeft.at(-1) };
}

const quantile = (xs, q) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))] ?? NaN;
const covered = (interval, truth) => interval.low <= truth && truth <= interval.high;
const f1 = (x) => x.toFixed(1);
const pct = (n, d) => `${((100 * n) / d).toFixed(0)} %`;

console.log(
  `${cells.length} cells × ${seeds} seeds, draw rate ${drawRate}, gains c_end ${DEFAULT_C_END}, r_end ${DEFAULT_R_END}, ` +
    `gain blocks of ${blockGames} games; stop rule at share ${stopShare}`,
);
for (const mode of values.modes.split(",")) {
  const tuner = tuners[mode];
  const started = Date.now();
  console.log(`\n## ${tuner.name}\n`);
  const costRows = [];
  const gainRows = [];
  const restRows = [];
  const stopRows = [];
  for (const budget of budgets) {
    const left = Object.fromEntries([0, ...shares].map((s) => [s, 0]));
    const acc = new Map();
    const stops = thresholds.map(() => ({ stopped: 0, saved: 0, lost: 0, worst: -Infinity, over: 0 }));
    let runs = 0;
    for (const cell of cells)
      for (let s = 0; s < seeds; s++) {
        const problem = cellProblem(cell, drawRate, String(s));
        runs++;
        left[0] += tuner.run(problem, budget, `run${s}`).eloLeft.at(-1);
        for (const share of shares) {
          const run = gainRun(tuner, problem, budget, share, `run${s}`);
          left[share] += run.eloLeft;
          for (const estimator of estimators) {
            const key = `${share}|${estimator.name}`;
            if (!acc.has(key))
              acc.set(
                key,
                checkpoints.map(() => ({
                  n: 0,
                  truth: 0,
                  est: 0,
                  halves: [],
                  cov: 0,
                  rn: 0,
                  rTruth: 0,
                  rEst: 0,
                  rHalves: [],
                  rCov: 0,
                  ratios: [],
                })),
              );
            const rows = acc.get(key);
            for (const [i, cp] of checkpoints.entries()) {
              const inBy = run.blocks.filter((b) => b.in <= cp * budget);
              const last = inBy.at(-1);
              if (!last) continue;
              const reading = readGain(inBy, last.in, budget, estimator.options);
              if (!reading) continue;
              const row = rows[i];
              row.n++;
              row.truth += last.truth;
              row.est += reading.gain.elo;
              row.halves.push((reading.gain.high - reading.gain.low) / 2);
              if (covered(reading.gain, last.truth)) row.cov++;
              const rest = run.final - last.truth;
              if (cp < 1) row.ratios.push(rest / Math.max(1, last.truth));
              if (reading.rest && cp < 1) {
                row.rn++;
                row.rTruth += rest;
                row.rEst += reading.rest.elo;
                row.rHalves.push((reading.rest.high - reading.rest.low) / 2);
                if (covered(reading.rest, rest)) row.rCov++;
              }
            }
          }
          if (share === stopShare)
            for (const [t, threshold] of thresholds.entries()) {
              const stop = stops[t];
              const at = run.blocks.findIndex((_, j) =>
                nothingLeftToGain(readGain(run.blocks.slice(0, j + 1), run.blocks[j].in, budget, design), threshold),
              );
              if (at < 0) continue;
              const block = run.blocks[at];
              const lost = run.final - block.truth;
              stop.stopped++;
              stop.saved += budget - block.in;
              stop.lost += lost;
              stop.worst = Math.max(stop.worst, lost);
              if (lost > threshold) stop.over++;
            }
        }
      }
    costRows.push(
      `| ${budget} | ${f1(left[0] / runs)} | ${shares.map((s) => `${f1(left[s] / runs)} (+${f1((left[s] - left[0]) / runs)})`).join(" | ")} |`,
    );
    for (const [key, rows] of acc) {
      const [share, name] = key.split("|");
      const all = rows.reduce(
        (a, r) => ({ n: a.n + r.n, cov: a.cov + r.cov, rn: a.rn + r.rn, rCov: a.rCov + r.rCov }),
        {
          n: 0,
          cov: 0,
          rn: 0,
          rCov: 0,
        },
      );
      gainRows.push(
        `| ${budget} | ${share * 100} % | ${name} | ${rows.map((r) => `${f1(r.truth / r.n)} / ${f1(r.est / r.n)} ±${f1(quantile(r.halves, 0.5))} · ${pct(r.cov, r.n)}`).join(" | ")} | ${pct(all.cov, all.n)} |`,
      );
      const restName = `line, last ${estimators.find((e) => e.name === name).options.restWindow * 100} %`;
      if (restRows.some((r) => r.startsWith(`| ${budget} | ${share * 100} % | ${restName} |`))) continue;
      restRows.push(
        `| ${budget} | ${share * 100} % | ${restName} | ${rows
          .slice(0, -1)
          .map(
            (r) =>
              `${r.rn ? `${f1(r.rTruth / r.rn)} / ${f1(r.rEst / r.rn)} ±${f1(quantile(r.rHalves, 0.5))} · ${pct(r.rCov, r.rn)}` : "–"} · ` +
              `${quantile(r.ratios, 0.5).toFixed(2)} / ${quantile(r.ratios, 0.95).toFixed(2)}`,
          )
          .join(" | ")} | ${pct(all.rCov, all.rn)} |`,
      );
    }
    for (const [t, threshold] of thresholds.entries()) {
      const stop = stops[t];
      const n = stop.stopped;
      stopRows.push(
        `| ${budget} | ${threshold} | ${pct(n, runs)} | ${n ? f1(stop.saved / n) : "–"} (${f1(stop.saved / runs)} per run) | ` +
          `${n ? f1(stop.lost / n) : "–"} (${f1(stop.lost / runs)} per run) | ${n ? f1(stop.worst) : "–"} | ${n ? pct(stop.over, n) : "–"} |`,
      );
    }
  }
  console.log("### What the gain games cost: Elo left at the budget, none diverted and each share (+ cost)\n");
  console.log(`| budget | none | ${shares.map((s) => `${s * 100} %`).join(" | ")} |`);
  console.log(`| ---: | ---: | ${shares.map(() => "---:").join(" | ")} |`);
  costRows.forEach((r) => console.log(r));
  console.log(
    "\n### The gain of θ now: mean true / mean estimate ±median 95 % half-width · coverage, at each share of the budget\n",
  );
  console.log(`| budget | share | fit | ${checkpoints.map((c) => `${c * 100} %`).join(" | ")} | all |`);
  console.log(`| ---: | ---: | --- | ${checkpoints.map(() => "---").join(" | ")} | ---: |`);
  gainRows.forEach((r) => console.log(r));
  console.log(
    "\n### The rest of the budget: mean true / mean projected ±median 95 % half-width · coverage (of the readings that have one) · true rest / true gain, median / 95th percentile\n",
  );
  console.log(
    `| budget | share | fit | ${checkpoints
      .slice(0, -1)
      .map((c) => `${c * 100} %`)
      .join(" | ")} | all |`,
  );
  console.log(
    `| ---: | ---: | --- | ${checkpoints
      .slice(0, -1)
      .map(() => "---")
      .join(" | ")} | ---: |`,
  );
  restRows.forEach((r) => console.log(r));
  console.log(`\n### The stop rule (share ${stopShare * 100} %, the design's rest)\n`);
  console.log(
    "| budget | threshold | runs stopped | games saved per stop | Elo lost per stop | worst loss | losses over threshold |",
  );
  console.log("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
  stopRows.forEach((r) => console.log(r));
  console.error(`  (${tuner.name}: ${((Date.now() - started) / 1000).toFixed(0)} s)`);
}
