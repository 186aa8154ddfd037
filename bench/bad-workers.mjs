#!/usr/bin/env node
// Bad workers in the simulator (not a test; docs/bad-workers.md). Needs `npm run build`.
// A fleet of workers tunes a synthetic engine (8 int parameters 3 steps off their optima, draw
// rate --draw-rate, game pairs on openings worth ±--opening-sd Elo to white) in build mode
// (iterations of 64 games) and UCI-option mode (batches applied as reported), with the master's
// evidence and quarantine (src/simulate/bad-workers.ts). It prints:
//   1. the false-positive rate: honest workers flagged, over honest fleets (a machine alone; two
//      and five equal shares; one that joins at half time; one that leaves at a quarter; one at a 20 % higher draw rate);
//   2. per liar (targeted at the first parameter, the same with --draw-rate of its pairs drawn,
//      and "plus always wins", on 10 % and 20 % of
//      the batches): its batches until it is flagged, and the target parameter's distance in
//      steps from the clean run's (same seed, the liar's batches played honestly) with no defence
//      (flags only) and with quarantine (what a flagged worker moved taken out of θ when it is
//      flagged, its later batches held), and how far a second clean run (other games) ends.
//   3. (--only cost) the evidence's cost in the master: per batch added, and per look at 10
//      workers, at 10, 1,000 and 10,000 parameters.
//   node bench/bad-workers.mjs [--seeds 50] [--games 6400] [--draw-rate 0.3] [--opening-sd 50] [--only fp,liars,cost]
//     [--own-draws] [--adapt signal|off] [--honest 4] [--shares 0.1,0.2]
//     [--liars targeted,drawish,plus-wins,mixing,framing,framing-sweep]
// --honest: the honest workers beside the liar (sharing the rest equally); --liars: issue 55's
// mixing (a quarter of its batches swept, the rest copied from the pool) and framing (±1 per
// batch; framing-sweep: sweeps once another worker is set aside) besides the first three.
// --own-draws: every UCI-option batch its own draw, as before the first half's draws were shared
// (docs/uci-options.md, "Shared draws"); --adapt off: no adaptive scale (steps at full size).
import { parseArgs } from "node:util";
import { performance } from "node:perf_hooks";
import { DEFAULT_ADAPTIVE } from "../dist/config/config.js";
import { cellProblem } from "../dist/simulate/family.js";
import { simulatedGains } from "../dist/simulate/gains.js";
import { runFleet } from "../dist/simulate/bad-workers.js";
import { EvidenceLedger } from "../dist/spsa/worker-evidence.js";
import { mean, median, sd } from "./bench-stats.mjs";

const { values } = parseArgs({
  options: {
    seeds: { type: "string", default: "50" },
    games: { type: "string", default: "6400" },
    "draw-rate": { type: "string", default: "0.3" },
    "opening-sd": { type: "string", default: "50" },
    modes: { type: "string", default: "build,options" },
    only: { type: "string", default: "fp,liars,cost" },
    cell: { type: "string", default: "8,3,1" },
    batch: { type: "string", default: "8" },
    "own-draws": { type: "boolean", default: false },
    honest: { type: "string", default: "4" },
    shares: { type: "string", default: "0.1,0.2" },
    liars: { type: "string", default: "targeted,drawish,plus-wins" },
    adapt: { type: "string", default: DEFAULT_ADAPTIVE.mode },
  },
});
const seeds = Number(values.seeds);
const budget = Number(values.games);
const drawRate = Number(values["draw-rate"]);
const openingSd = Number(values["opening-sd"]);
const gamesPerIteration = 64;
// A list: each batch's size drawn from it (a real build-mode run's sizes are mixed).
const batchSizes = values.batch.split(",").map(Number);
const batchGames = batchSizes.length === 1 ? batchSizes[0] : batchSizes;
const [parameters, offset, curvature] = values.cell.split(",").map(Number);
const cell = { parameters, offset, curvature, type: "int" };
const gains = simulatedGains(
  { adaptive: { ...DEFAULT_ADAPTIVE, mode: values.adapt } },
  gamesPerIteration,
)(budget / gamesPerIteration);
const honest = (name, extra = {}) => ({ name, share: 1, behaviour: { kind: "honest" }, ...extra });

function fleetRun(mode, seed, workers, quarantine = true, games = "") {
  const problem = cellProblem(cell, drawRate, `bad-workers:${seed}`);
  return {
    mode,
    problem,
    gains,
    gamesPerIteration,
    batchGames,
    ownDraws: values["own-draws"],
    budget,
    workers,
    quarantine,
    // Another `games` tag: the same engine, other games (a second clean run).
    seed: `s${seed}${games}`,
    openingSd,
    stratumGames: Math.max(32, gamesPerIteration),
  };
}

const modes = values.modes.split(",");
const only = values.only.split(",");
console.log(
  `${seeds} seeds, ${budget} games (batches of ${batchSizes.join(" or ")}${values["own-draws"] ? ", each its own draw" : ", the first half's draws shared"}, ${gamesPerIteration} per iteration, adapt ${values.adapt}), ${parameters} int parameters ${offset} steps off at ${curvature}× the reference curvature, draw rate ${drawRate}, openings ±${openingSd} Elo\n`,
);

if (only.includes("fp")) {
  const fleets = {
    "one machine alone": () => [honest("h1")],
    "2 equal": () => [honest("h1"), honest("h2")],
    "5 equal": () => [1, 2, 3, 4, 5].map((i) => honest(`h${i}`)),
    "one joins at half time": () => [honest("h1"), honest("h2"), honest("h3"), honest("late", { from: 0.5 })],
    "one leaves at a quarter": () => [honest("h1"), honest("h2"), honest("h3"), honest("early", { until: 0.25 })],
    "one at a 20 % higher draw rate": () => [
      honest("h1"),
      honest("h2"),
      honest("h3"),
      { name: "drawish", share: 1, behaviour: { kind: "honest", drawRate: drawRate * 1.2 } },
    ],
  };
  console.log(
    "| mode | fleet | honest worker-runs | flagged | false-positive rate | closest to a flag: largest severity (median of the runs) |",
  );
  console.log("| --- | --- | ---: | ---: | ---: | ---: |");
  for (const mode of modes) {
    for (const [label, workers] of Object.entries(fleets)) {
      let runs = 0;
      const flagged = [];
      const peaks = [];
      for (let seed = 1; seed <= seeds; seed++) {
        const fleet = workers();
        // Flags only: a flagged honest worker plays on, so a fleet of one is not left without a worker.
        const result = runFleet(fleetRun(mode, seed, fleet, false));
        runs += fleet.length;
        peaks.push(...fleet.map((w) => result.peaks.get(w.name) ?? 0));
        flagged.push(...result.flags.map((f) => `${f.worker} (seed ${seed}: ${f.reason})`));
      }
      const sortedPeaks = [...peaks].sort((a, b) => a - b);
      console.log(
        `| ${mode} | ${label} | ${runs} | ${flagged.length} | ${((100 * flagged.length) / runs).toFixed(2)} % | ${sortedPeaks.at(-1).toFixed(2)} (${sortedPeaks[Math.floor(sortedPeaks.length / 2)].toFixed(2)}) |`,
      );
      for (const f of flagged) console.error(`  flagged: ${mode} ${label}: ${f}`);
    }
  }
  console.log("");
}

if (only.includes("liars")) {
  console.log(
    `${values.honest} honest workers share the rest equally\n\n| mode | liar | share of batches | flagged within 50 of its batches (runs) | honest workers flagged | its batches until flagged: median (max) | its games until flagged: median (max) | target Δ steps from clean, mean (max): no defence | quarantine (what it moved taken out when flagged) | runs within 0.5 step | signed Δ: mean ± 95 % | a second clean run (other games): Δ mean (max) | runs within 0.5 step |`,
  );
  console.log("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
  const honestCount = Number(values.honest);
  const kinds = {
    targeted: ["targeted", (target) => ({ kind: "targeted", target })],
    drawish: [`targeted, ${drawRate * 100} % of its pairs drawn`, (target) => ({ kind: "targeted", target, drawRate })],
    "plus-wins": ["plus always wins", () => ({ kind: "plus-wins" })],
    mixing: ["mixing: 25 % sweeps, the rest copied from the pool", (target) => ({ kind: "mixing", target })],
    framing: ["framing: every batch ±1", (target) => ({ kind: "framing", target })],
    "framing-sweep": [
      "framing, sweeps once another is held",
      (target) => ({ kind: "framing", target, sweepWhenHeld: true }),
    ],
  };
  // The clean runs are the same for every liar of a mode, seed and share: each run once.
  const cleanRuns = new Map();
  const cleanRun = (mode, seed, share, workers, games = "") => {
    const key = `${mode} ${seed} ${share} ${games}`;
    if (!cleanRuns.has(key))
      cleanRuns.set(key, runFleet(fleetRun(mode, seed, workers({ kind: "honest" }), true, games)));
    return cleanRuns.get(key);
  };
  for (const mode of modes) {
    const liars = values.liars.split(",").map((k) => {
      if (!kinds[k]) throw new Error(`--liars: unknown liar ${k} (${Object.keys(kinds).join(", ")})`);
      return kinds[k];
    });
    for (const [liarLabel, behaviour] of liars) {
      for (const share of values.shares.split(",").map(Number)) {
        const latencies = [];
        const gamesUntil = [];
        const distances = { none: [], quarantine: [], clean: [] };
        // The target's signed difference from the clean run: what the liar left, beside the noise.
        const leftovers = [];
        let flaggedRuns = 0;
        let honestFlagged = 0;
        for (let seed = 1; seed <= seeds; seed++) {
          const problem = cellProblem(cell, drawRate, `bad-workers:${seed}`);
          const target = problem.params[0].name;
          const step = problem.params[0].step;
          const workers = (liar) => [
            ...Array.from({ length: honestCount }, (_, i) => ({
              ...honest(`h${i + 1}`),
              share: (1 - share) / honestCount,
            })),
            { name: "liar", share, behaviour: liar },
          ];
          const clean = cleanRun(mode, seed, share, workers);
          const lying = runFleet(fleetRun(mode, seed, workers(behaviour(target)), true));
          const open = runFleet(fleetRun(mode, seed, workers(behaviour(target)), false));
          const flag = lying.flags.find((f) => f.worker === "liar");
          if (flag) latencies.push(flag.batches);
          if (flag) gamesUntil.push(flag.games);
          if (flag && flag.batches <= 50) flaggedRuns++;
          honestFlagged += new Set(lying.flags.filter((f) => f.worker !== "liar").map((f) => f.worker)).size;
          honestFlagged += clean.flags.length;
          for (const f of [...lying.flags, ...clean.flags].filter((f) => f !== flag))
            console.error(`  honest flagged: ${mode} ${liarLabel} seed ${seed}: ${f.worker}: ${f.reason}`);
          const delta = (theta) => Math.abs(theta[target] - clean.theta[target]) / step;
          distances.none.push(delta(open.theta));
          distances.quarantine.push(delta(lying.theta));
          leftovers.push((lying.theta[target] - clean.theta[target]) / step);
          // How far two clean runs of the same engine end apart: what "within 0.5 step" is up against.
          distances.clean.push(delta(cleanRun(mode, seed, share, workers, "'").theta));
        }
        const stat = (xs) => `${mean(xs).toFixed(2)} (${Math.max(...xs).toFixed(2)})`;
        const typical = (xs) => (xs.length === 0 ? "- (-)" : `${median(xs)} (${Math.max(...xs)})`);
        const within = (xs) => `${xs.filter((d) => d <= 0.5).length}/${seeds}`;
        console.log(
          `| ${mode} | ${liarLabel} | ${share * 100} % | ${flaggedRuns}/${seeds} | ${honestFlagged} | ${typical(latencies)} | ${typical(gamesUntil)} | ${stat(distances.none)} | ${stat(distances.quarantine)} | ${within(distances.quarantine)} | ${meanWithError(leftovers)} | ${stat(distances.clean)} | ${within(distances.clean)} |`,
        );
      }
    }
  }
}

/** Signed mean ± 1.96 standard errors, to two decimals. */
function meanWithError(xs) {
  const m = mean(xs);
  return `${m >= 0 ? "+" : "−"}${Math.abs(m).toFixed(2)} ± ${((1.96 * sd(xs)) / Math.sqrt(xs.length)).toFixed(2)}`;
}

if (only.includes("cost")) {
  console.log("\n| parameters | per batch added (ms) | per look at 10 workers (ms) |");
  console.log("| ---: | ---: | ---: |");
  for (const P of [10, 1000, 10000]) {
    const names = Array.from({ length: P }, (_, i) => `P${i}`);
    const ledger = new EvidenceLedger(names, new Set());
    let batches = 0;
    let addMs = 0;
    let looks = 0;
    let lookMs = 0;
    for (let k = 0; k < 40; k++) {
      // UCI-option mode: every batch has signs of its own.
      const stratum = Array.from({ length: 10 }, (_, w) => ({
        worker: `w${w}`,
        games: 8,
        net: ((k + w) % 5) - 2,
        wins: 3,
        losses: 3,
        draws: 2,
        pairs: [1, 1, 0, 1, 1],
        signs: Object.fromEntries(names.map((n, i) => [n, (i * 7 + k * 13 + w) % 2 ? 1 : -1])),
      }));
      let t = performance.now();
      ledger.add(stratum);
      addMs += performance.now() - t;
      batches += stratum.length;
      t = performance.now();
      ledger.evidence();
      lookMs += performance.now() - t;
      looks++;
    }
    console.log(`| ${P} | ${(addMs / batches).toFixed(3)} | ${(lookMs / looks).toFixed(2)} |`);
  }
}
