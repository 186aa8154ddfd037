#!/usr/bin/env node
// Issue 45's benchmark: does a tune make a real engine measurably stronger, and in how many
// games, with the defaults against plain SPSA (not a test; hours on 2 cores). Needs `npm run build`.
//   1. Detunes minnow on purpose (--steps, --subset, --seed, as bench/tune-recovery.mjs does) and
//      measures the gap first: the default engine against the detuned start (--gap-games).
//   2. For each budget of --budgets: tunes from the detuned start twice, side by side on one
//      database with one `compete --spsa` worker and the same seed, "ours" (config.toml's [spsa]
//      as it is) and "plain" (as OpenBench and fishtest run SPSA: adapt = "off", c_end = 1.5,
//      r_end = 0.002, adapt_pilot = 0), --games per iteration; then plays each tuned engine
//      against the default engine (--match-games) and ours against plain (--h2h-games).
//   3. Ours at the first budget against plain at the last (--h2h-games).
//   4. Prints one table: each pairing's Elo ± 95 %, its distinct games (start, White, moves,
//      from its PGN) and, for a tuned engine, the share of the gap it recovered.
// Every row is also appended to DIR/results.jsonl as it is measured.
//   nice -n 10 node bench/real-engine-elo.mjs [--steps 6] [--subset N] [--seed elo-1]
//     [--budgets 5000,20000] [--games 64] [--nodes 1000] [--gap-games 4000] [--match-games 4000]
//     [--h2h-games 4000] [--gap ELO,ERROR] [--tuners ours,plain] [--tune-book BOOK] [--versus NAME=PATH] [-c 2]
// --tuners ours: tune with the defaults only (no head-to-heads).
// --tune-book BOOK: the book the tunes play (default: the default book); the matches always play
// the default book. This script replaced bench/side-by-side.mjs (git show 4ebb2e4:bench/side-by-side.mjs
// for the runs measured with it).
// --versus NAME=PATH: an engine built before (a tuned engine of an earlier run, say plain-20000
// from DIR/engines/tuned-20000/minus/) that ours at the first budget also plays (--h2h-games).
// --gap: the gap as an earlier run of the same detune measured it (node-limited games are
// deterministic: the same seed replays the same match), instead of playing it again.
// Without DATABASE_URL the script starts its own embedded Postgres in its temp folder.
import { execFileSync, spawn } from "node:child_process";
import { appendFileSync, mkdtempSync, openSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { performance } from "node:perf_hooks";
import { buildPlusAndMinus } from "../dist/engine-build/engine-builder.js";
import { loadConfig } from "../dist/config/config.js";
import { loadParams } from "../dist/params/params.js";
import { updateParamValues } from "../dist/params/params-update.js";
import { builtValue } from "../dist/spsa/math.js";
import {
  benchProcesses,
  detunedValues,
  distinctGames,
  eloOf,
  spawnSpsaWorker,
  spsaSection,
  writeRunConfig,
} from "./tuning-kit.mjs";

const { values: opts } = parseArgs({
  options: {
    steps: { type: "string", default: "6" },
    subset: { type: "string" },
    seed: { type: "string", default: "elo-1" },
    budgets: { type: "string", default: "5000,20000" },
    games: { type: "string", default: "64" },
    nodes: { type: "string", default: "1000" },
    "gap-games": { type: "string", default: "4000" },
    "match-games": { type: "string", default: "4000" },
    "h2h-games": { type: "string", default: "4000" },
    gap: { type: "string" },
    "tune-book": { type: "string" },
    tuners: { type: "string", default: "ours,plain" },
    versus: { type: "string" },
    concurrency: { type: "string", short: "c", default: "2" },
  },
});
const PLAIN = { adapt: '"off"', c_end: "1.5", r_end: "0.002", adapt_pilot: "0" };
const root = new URL("..", import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), "spsa-real-elo-"));
const children = benchProcesses(root, dir);
const started = performance.now();
const minutes = (since) => ((performance.now() - since) / 60000).toFixed(1);
const log = (line) => console.log(`[${minutes(started)} min] ${line}`);
log(`files in ${dir}`);

const params = loadParams(join(root, "params.toml"));
const defaults = Object.fromEntries(params.map((p) => [p.name, p.value]));
const { values: detuned } = detunedValues(params, { steps: opts.steps, subset: opts.subset, seed: opts.seed });
const detune = `${opts.subset ?? params.length} of ${params.length} parameters × ${opts.steps} steps (seed ${opts.seed})`;
log(
  `detuned ${detune}: ${params
    .filter((p) => detuned[p.name] !== p.value)
    .map((p) => `${p.name} ${p.value} → ${detuned[p.name]}`)
    .join(", ")}`,
);

const engines = {};
let config;
const build = async (label, values) => {
  const [a, b] = Object.keys(values);
  // One set of values (one tuner) is built on both sides.
  const built = await buildPlusAndMinus({
    build: config.build,
    params,
    values: { plus: values[a], minus: values[b ?? a] },
    destination: (role, binary) => join(dir, "engines", label, role, binary),
  });
  engines[a] = built.plus.path;
  if (b !== undefined) engines[b] = built.minus.path;
};
const rows = [];
let gap;
const match = (a, b, games) => {
  const pgn = join(dir, `${a}-vs-${b}.pgn`);
  const since = performance.now();
  const out = execFileSync(
    "node",
    [
      join(root, "bin/compete.js"),
      engines[a],
      engines[b],
      "-g",
      games,
      "-c",
      opts.concurrency,
      "--nodes",
      opts.nodes,
      "--seed",
      `${opts.seed}:${a}-${b}`,
      "--pgn",
      pgn,
    ],
    { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] },
  );
  const row = {
    pairing: `${a} vs ${b}`,
    games: Number(games),
    distinct: distinctGames(pgn),
    ...eloOf(out),
    wdl: out.split("\n").find((l) => / games, \+/.test(l)),
    minutes: Number(minutes(since)),
  };
  log(
    `${row.pairing}: Elo ${row.elo} ± ${row.error}, ${row.distinct} distinct of ${row.games} games (${row.wdl}) in ${row.minutes} min`,
  );
  rows.push(row);
  appendFileSync(join(dir, "results.jsonl"), `${JSON.stringify(row)}\n`);
  return row;
};
/** Share of the gap a tuned engine recovered, from its deficit to the default engine (default vs tuned = −row). */
const recovered = (row) => {
  const deficit = -row.elo;
  const share = 1 - deficit / gap.elo;
  const error = Math.hypot(row.error / gap.elo, (deficit * gap.error) / gap.elo ** 2);
  return { share, error };
};

// 1. The gap.
const configFile = (label, iterations, settings) => {
  const file = join(dir, `${label}.config.toml`);
  writeRunConfig(file, {
    root,
    dir,
    spsa: spsaSection(root, iterations, settings),
    games: opts.games,
    nodes: opts.nodes,
    margin: 300,
    book: opts["tune-book"],
  });
  return file;
};
config = loadConfig(configFile("default", 1, {}));
await build("start", { default: defaults, detuned });
if (opts.gap === undefined) gap = match("default", "detuned", opts["gap-games"]);
else {
  const [elo, error] = opts.gap.split(",").map(Number);
  gap = { elo, error };
  log(`gap as measured before: Elo ${elo} ± ${error}`);
}

// 2. The tunes, two at a time on one worker.
const tune = async (budget) => {
  const iterations = Math.round(Number(budget) / Number(opts.games));
  const runs = Object.entries({ ours: {}, plain: PLAIN })
    .filter(([variant]) => tuners.includes(variant))
    .map(([variant, settings]) => {
      const label = `${variant}-${budget}`;
      const paramsFile = join(dir, `${label}.params.toml`);
      writeFileSync(
        paramsFile,
        updateParamValues(readFileSync(join(root, "params.toml"), "utf8"), detuned, paramsFile),
      );
      return { label, paramsFile, configFile: configFile(label, iterations, settings), name: `${label}-${Date.now()}` };
    });
  log(
    `tuning ${runs.map((run) => run.label).join(" and ")}: ${iterations} × ${opts.games} games at ${opts.nodes} nodes per move`,
  );
  const since = performance.now();
  const masters = runs.map(
    (run) =>
      new Promise((resolve, reject) => {
        const child = spawn(
          "node",
          [
            join(root, "bin/spsa.js"),
            "--config",
            run.configFile,
            "master",
            "--params",
            run.paramsFile,
            "--name",
            run.name,
            "--seed",
            opts.seed,
          ],
          { stdio: ["ignore", "ignore", openSync(join(dir, `${run.label}.master.log`), "w")] },
        );
        children.push(child);
        child.on("exit", (code) =>
          code === 0
            ? resolve()
            : reject(
                new Error(`master of ${run.name} exited with ${code}; see ${join(dir, `${run.label}.master.log`)}`),
              ),
        );
      }),
  );
  const worker = spawnSpsaWorker(root, {
    concurrency: opts.concurrency,
    configFile: runs[0].configFile,
    name: `worker-${budget}`,
    seed: opts.seed,
  });
  children.push(worker);
  await Promise.all(masters);
  worker.kill("SIGTERM");
  log(`tunes of ${budget} games done in ${minutes(since)} min`);
  const tuned = Object.fromEntries(
    runs.map((run) => [run.label, Object.fromEntries(loadParams(run.paramsFile).map((p) => [p.name, builtValue(p)]))]),
  );
  await build(`tuned-${budget}`, tuned);
  if (runs.length === 2) match(`ours-${budget}`, `plain-${budget}`, opts["h2h-games"]);
  for (const run of runs) {
    const row = match(run.label, "default", opts["match-games"]);
    const { share, error } = recovered(row);
    log(`${run.label} recovered ${(100 * share).toFixed(0)} % ± ${(100 * error).toFixed(0)} % of the gap`);
  }
};
const tuners = opts.tuners.split(",");
const budgets = opts.budgets.split(",");
for (const budget of budgets) await tune(budget);

// 3. Ours at the smallest budget against plain at the largest.
if (budgets.length > 1 && tuners.length === 2)
  match(`ours-${budgets[0]}`, `plain-${budgets.at(-1)}`, opts["h2h-games"]);

if (opts.versus !== undefined) {
  const [name, path] = opts.versus.split("=");
  engines[name] = path;
  match(`ours-${budgets[0]}`, name, opts["h2h-games"]);
}

// 4. The table.
console.log(`\ndetune: ${detune}; ${opts.nodes} nodes per move; ${opts.games} games per iteration\n`);
console.log("| pairing | games | distinct games | Elo ± 95 % | gap recovered |\n|---|---:|---:|---:|---:|");
for (const r of rows) {
  const share = r.pairing.endsWith("vs default") ? recovered(r) : undefined;
  const shareText =
    share === undefined ? "" : `${(100 * share.share).toFixed(0)} % ± ${(100 * share.error).toFixed(0)} %`;
  console.log(
    `| ${r.pairing} | ${r.games} | ${r.distinct} | ${r.elo >= 0 ? "+" : ""}${r.elo.toFixed(1)} ± ${r.error.toFixed(1)} | ${shareText} |`,
  );
}
log(`files in ${dir}`);
