#!/usr/bin/env node
// The benchmark of the tuner against plain SPSA (not a test; an hour or more on 2 cores). Needs `npm run build`.
//   1. Detunes minnow on purpose, as bench/tune-recovery.mjs does (--steps, --subset, --seed).
//   2. Tunes it twice from the same start at the same budget (--iterations × --games), at
//      --nodes per move, side by side on one database with one `compete --spsa` worker:
//      "ours" with config.toml's [spsa] as it is, "plain" as OpenBench and fishtest run SPSA
//      (adapt = "off", c_end = 1.5, r_end = 0.002, adapt_pilot = 0). Both runs use the same
//      seed: the same perturbation signs and the same openings, iteration by iteration.
//   3. Plays, with the default book at --nodes per move: ours against plain (--h2h-games),
//      and each against the detuned start and against the default engine (--match-games),
//      and the default against the detuned start (the gap). Each match writes its PGN; the
//      distinct games are counted from it (start position, colours and moves).
//   4. Prints one table: budget, detune, each pairing's Elo ± 95 % and its distinct games.
//   nice -n 10 node bench/side-by-side.mjs [--steps 3] [--subset 12] [--iterations 40] [--games 64]
//     [--nodes 1000] [--h2h-games 3000] [--match-games 800] [--seed side-by-side-1] [--tune-book BOOK] [-c 2]
// --tune-book: the book the tuning runs play (default: the default book); the matches always
// play the default book. Without DATABASE_URL the script starts its own embedded Postgres in
// its temp folder and stops it at the end.
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, openSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { performance } from "node:perf_hooks";
import { buildPlusAndMinus } from "../dist/engine-build/engine-builder.js";
import { loadConfig } from "../dist/config/config.js";
import { loadParams } from "../dist/params/params.js";
import { updateParamValues } from "../dist/params/params-update.js";
import { builtValue } from "../dist/spsa/math.js";
import { benchProcesses, detunedValues, distinctGames, eloOf, spsaSection, writeRunConfig } from "./tuning-kit.mjs";

const { values: opts } = parseArgs({
  options: {
    steps: { type: "string", default: "3" },
    subset: { type: "string", default: "12" },
    iterations: { type: "string", default: "40" },
    games: { type: "string", default: "64" },
    nodes: { type: "string", default: "1000" },
    "h2h-games": { type: "string", default: "3000" },
    "match-games": { type: "string", default: "800" },
    seed: { type: "string", default: "side-by-side-1" },
    "tune-book": { type: "string" },
    concurrency: { type: "string", short: "c", default: "2" },
  },
});
const PLAIN = { adapt: '"off"', c_end: "1.5", r_end: "0.002", adapt_pilot: "0" };
const root = new URL("..", import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), "spsa-side-by-side-"));
const children = benchProcesses(root, dir);
const started = performance.now();
const log = (line) => console.log(`[${((performance.now() - started) / 60000).toFixed(1)} min] ${line}`);

// 1. The detuned start.
const params = loadParams(join(root, "params.toml"));
const defaults = Object.fromEntries(params.map((p) => [p.name, p.value]));
const { values: detuned } = detunedValues(params, { steps: opts.steps, subset: opts.subset, seed: opts.seed });
const budget = Number(opts.iterations) * Number(opts.games);
const detune = `${opts.subset} of ${params.length} parameters × ${opts.steps} steps (seed ${opts.seed})`;
log(
  `detuned ${detune}: ${params
    .filter((p) => detuned[p.name] !== p.value)
    .map((p) => `${p.name} ${p.value} → ${detuned[p.name]}`)
    .join(", ")}`,
);

// 2. Two runs, one worker.
const variants = { ours: {}, plain: PLAIN };
const runs = Object.fromEntries(
  Object.entries(variants).map(([label, settings]) => {
    const paramsFile = join(dir, `${label}.params.toml`);
    writeFileSync(paramsFile, updateParamValues(readFileSync(join(root, "params.toml"), "utf8"), detuned, paramsFile));
    const configFile = join(dir, `${label}.config.toml`);
    writeRunConfig(configFile, {
      root,
      dir,
      spsa: spsaSection(root, opts.iterations, settings),
      games: opts.games,
      nodes: opts.nodes,
      margin: 300,
      book: opts["tune-book"],
    });
    return [label, { paramsFile, configFile, name: `${label}-${Date.now()}` }];
  }),
);
const config = loadConfig(runs.ours.configFile);
log(
  `tuning both at ${opts.nodes} nodes per move, ${budget} games each (${opts.iterations} × ${opts.games}), book ${opts["tune-book"] ?? "default"}; plain: ${JSON.stringify(PLAIN)}`,
);
const master = (run) =>
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
      { stdio: ["ignore", "ignore", openSync(join(dir, `${run.name}.master.log`), "w")] },
    );
    children.push(child);
    child.on("exit", (code) =>
      code === 0
        ? resolve()
        : reject(
            new Error(`master of ${run.name} exited with ${code}; its errors: ${join(dir, `${run.name}.master.log`)}`),
          ),
    );
  });
const tuneStart = performance.now();
const masters = Object.values(runs).map(master);
// Let the masters create their runs first: a worker with nothing to claim waits anyway.
const worker = spawn(
  "node",
  [
    join(root, "bin/compete.js"),
    "--spsa",
    "-c",
    opts.concurrency,
    "--config",
    runs.ours.configFile,
    "--name",
    "side-by-side-worker",
    "--seed",
    opts.seed,
  ],
  { stdio: "ignore" },
);
children.push(worker);
await Promise.all(masters);
worker.kill("SIGTERM");
log(`both runs done: ${budget} games each in ${((performance.now() - tuneStart) / 60000).toFixed(1)} min`);

// 3. The matches, with the default book.
const engines = {};
const build = async (label, plus, minus) => {
  const built = await buildPlusAndMinus({
    build: config.build,
    params,
    values: { plus, minus },
    destination: (role, binary) => join(dir, label, role, binary),
  });
  return [built.plus.path, built.minus.path];
};
[engines.default, engines.detuned] = await build("start", defaults, detuned);
const tunedValues = (label) =>
  Object.fromEntries(loadParams(runs[label].paramsFile).map((p) => [p.name, builtValue(p)]));
[engines.ours, engines.plain] = await build("tuned", tunedValues("ours"), tunedValues("plain"));
const rows = [];
const match = (a, b, games) => {
  const pgn = join(dir, `${a}-${b}.pgn`);
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
  };
  log(`${row.pairing}: Elo ${row.elo} ± ${row.error}, ${row.distinct} distinct of ${row.games} games (${row.wdl})`);
  rows.push(row);
};
match("ours", "plain", opts["h2h-games"]);
for (const tuned of ["ours", "plain"])
  for (const other of ["detuned", "default"]) match(tuned, other, opts["match-games"]);
match("default", "detuned", opts["match-games"]);

// 4. The table.
const stepsOff = (values) =>
  (params.reduce((s, p) => s + Math.abs(values[p.name] - defaults[p.name]) / p.step, 0) / params.length).toFixed(2);
const tunedRaw = (label) => Object.fromEntries(loadParams(runs[label].paramsFile).map((p) => [p.name, p.value]));
log(
  `mean distance to the defaults, in steps: detuned ${stepsOff(detuned)}, ours ${stepsOff(tunedRaw("ours"))}, plain ${stepsOff(tunedRaw("plain"))}`,
);
console.log(`\nbudget ${budget} games per tune at ${opts.nodes} nodes; detune: ${detune}\n`);
console.log("| pairing | games | distinct games | Elo ± 95 % |\n|---|---:|---:|---:|");
for (const r of rows)
  console.log(
    `| ${r.pairing} | ${r.games} | ${r.distinct} | ${r.elo >= 0 ? "+" : ""}${r.elo.toFixed(1)} ± ${r.error.toFixed(1)} |`,
  );
log(`files in ${dir}`);
