#!/usr/bin/env node
// Transfer in the run, measured on minnow (docs/ship-check.md; not a test). Needs `npm run build`.
//   1. Detunes minnow as bench/real-engine-elo.mjs does (--steps, --subset, --seed).
//   2. Tunes it from there at --nodes per move (--iterations × --games) with
//      [ship] nodes = --ship-nodes and transfer_every = --every, transfer_games = --transfer-games:
//      `spsa master` and one `compete --spsa` worker (-c) on an embedded database.
//   3. Prints the transfer report of `spsa status --json`: per parameter the gradient at both
//      limits (± s.e.), which signs disagree, and the correlation of the score differences.
//   4. Plays at --ship-nodes the final θ against the final θ with the disagreeing parameters
//      reset to the start θ (--match-games, the default book), and counts its distinct games.
//   nice -n 10 node bench/transfer.mjs [--steps 3] [--subset 12] [--iterations 32] [--games 32]
//     [--nodes 1000] [--ship-nodes 8000] [--every 2] [--transfer-games 48] [--match-games 600]
//     [--seed transfer-1] [-c 1]
// The run's ship check is kept to its minimum (max_games = 2): the match of step 4 is the test here.
import { execFileSync, spawn, spawnSync } from "node:child_process";
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
import { detunedValues, distinctGames, eloOf, spawnSpsaWorker, spsaSection, writeRunConfig } from "./tuning-kit.mjs";

const { values: opts } = parseArgs({
  options: {
    steps: { type: "string", default: "3" },
    subset: { type: "string", default: "12" },
    iterations: { type: "string", default: "32" },
    games: { type: "string", default: "32" },
    nodes: { type: "string", default: "1000" },
    "ship-nodes": { type: "string", default: "8000" },
    every: { type: "string", default: "2" },
    "transfer-games": { type: "string", default: "48" },
    "match-games": { type: "string", default: "600" },
    seed: { type: "string", default: "transfer-1" },
    concurrency: { type: "string", short: "c", default: "1" },
  },
});
const root = new URL("..", import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), "spsa-transfer-"));
process.env.SPSA_HOME = join(dir, "home");
const children = [];
process.on("exit", () => {
  for (const child of children) child.kill("SIGTERM");
  spawnSync("node", [join(root, "bin/spsa.js"), "db", "stop"], { stdio: "ignore" });
});
const started = performance.now();
const log = (line) => console.log(`[${((performance.now() - started) / 60000).toFixed(1)} min] ${line}`);
const cpuSeconds = () => {
  // Children's user + system time (the master, the worker, their engines and cargo once waited for).
  const [utime, stime] = readFileSync(`/proc/${process.pid}/stat`, "utf8")
    .split(") ")[1]
    .split(" ")
    .slice(13, 15)
    .map(Number);
  return (utime + stime) / 100;
};

// 1. The detuned start.
const params = loadParams(join(root, "params.toml"));
const { values: start } = detunedValues(params, { steps: opts.steps, subset: opts.subset, seed: opts.seed });
log(`detuned ${opts.subset} of ${params.length} parameters × ${opts.steps} steps (seed ${opts.seed})`);

// 2. The run.
const paramsFile = join(dir, "params.toml");
writeFileSync(paramsFile, updateParamValues(readFileSync(join(root, "params.toml"), "utf8"), start, paramsFile));
const configFile = join(dir, "config.toml");
writeRunConfig(configFile, {
  root,
  dir,
  spsa: spsaSection(root, opts.iterations),
  games: opts.games,
  nodes: opts.nodes,
  margin: 300,
});
appendFileSync(
  configFile,
  `[ship]\nnodes = ${opts["ship-nodes"]}\nmax_games = 2\ntransfer_every = ${opts.every}\ntransfer_games = ${opts["transfer-games"]}\n`,
);
const config = loadConfig(configFile);
const name = `transfer-${Date.now()}`;
const spsa = (args) =>
  execFileSync("node", [join(root, "bin/spsa.js"), "--config", configFile, ...args], { encoding: "utf8" });
log(
  `tuning at ${opts.nodes} nodes (${opts.iterations} × ${opts.games} games), transfer every ${opts.every} iterations: ${opts["transfer-games"]} games at ${opts["ship-nodes"]} nodes`,
);
const masterLog = join(dir, "master.log");
const master = spawn(
  "node",
  [
    join(root, "bin/spsa.js"),
    "--config",
    configFile,
    "master",
    "--params",
    paramsFile,
    "--name",
    name,
    "--seed",
    opts.seed,
  ],
  { stdio: ["ignore", openSync(masterLog, "w"), openSync(masterLog, "a")] },
);
children.push(master);
const worker = spawnSpsaWorker(root, {
  concurrency: opts.concurrency,
  configFile,
  name: "transfer-worker",
  seed: opts.seed,
});
children.push(worker);
const code = await new Promise((resolve) => master.on("exit", resolve));
worker.kill("SIGTERM");
await new Promise((resolve) => worker.on("exit", resolve));
if (code !== 0) throw new Error(`master exited with ${code}: ${masterLog}`);
log(`run done (children's CPU so far ${(cpuSeconds() / 60).toFixed(1)} min)`);

// 3. The report.
const status = JSON.parse(spsa(["status", "--name", name, "--json"]));
const { transfer } = status;
console.log(`\n${transfer.summary}\n`);
console.log(
  "| parameter | transfer iterations | gradient at tuning limits ± s.e. | at ship limits ± s.e. | signs | within noise |\n|---|---:|---:|---:|---|---|",
);
const est = (e) => `${e.mean >= 0 ? "+" : ""}${e.mean.toFixed(4)} ± ${e.error === null ? "–" : e.error.toFixed(4)}`;
for (const p of transfer.report.parameters)
  console.log(
    `| ${p.name} | ${p.n} | ${est(p.tune)} | ${est(p.ship)} | ${p.agree ? "agree" : "DISAGREE"} | ${p.withinNoise ? "yes" : "no"} |`,
  );

// 4. Final θ against final θ with the disagreeing parameters at the start θ.
const final = Object.fromEntries(status.parameters.map((p) => [p.name, p.now]));
const dropped = { ...final, ...Object.fromEntries(transfer.report.disagree.map((n) => [n, start[n]])) };
const built = (values) => Object.fromEntries(params.map((p) => [p.name, builtValue({ ...p, value: values[p.name] })]));
// What the match can tell apart: the constants the two engines are built with differently (ints rounded).
const [finalBuilt, droppedBuilt] = [built(final), built(dropped)];
const differing = params
  .filter((p) => finalBuilt[p.name] !== droppedBuilt[p.name])
  .map((p) => `${p.name} ${finalBuilt[p.name]} vs ${droppedBuilt[p.name]}`);
log(`the engines differ in ${differing.length} constants: ${differing.join(", ") || "none"}`);
const engines = await buildPlusAndMinus({
  build: config.build,
  params,
  values: { plus: finalBuilt, minus: droppedBuilt },
  destination: (role, binary) => join(dir, "match", role, binary),
});
const pgn = join(dir, "match.pgn");
const out = execFileSync(
  "node",
  [
    join(root, "bin/compete.js"),
    engines.plus.path,
    engines.minus.path,
    "-g",
    opts["match-games"],
    "-c",
    opts.concurrency,
    "--nodes",
    opts["ship-nodes"],
    "--seed",
    `${opts.seed}:match`,
    "--pgn",
    pgn,
  ],
  { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] },
);
const { elo, error } = eloOf(out);
log(
  `final θ vs final θ with ${transfer.report.disagree.length} disagreeing parameters at start θ (${transfer.report.disagree.join(", ")}), at ${opts["ship-nodes"]} nodes: ` +
    `Elo ${elo >= 0 ? "+" : ""}${elo.toFixed(1)} ± ${error.toFixed(1)} (95%), ${opts["match-games"]} games, ${distinctGames(pgn)} distinct (${out.split("\n").find((l) => / games, \+/.test(l)) ?? ""})`,
);
log(`children's CPU in all: ${(cpuSeconds() / 60).toFixed(1)} min; files in ${dir}`);
