#!/usr/bin/env node
// Texel tuning of the sample engine, end to end (not a test). Needs `npm run build` first.
//   1. builds engines/minnow (cargo build --release) and copies the binary aside (the start engine);
//   2. varied self-play games with `compete` at --nodes per move, --random-plies after each
//      opening and a one-unit difference in a search option between the two sides, so the
//      two games of a pair differ (or takes --pgn FILE);
//   3. `spsa texel-data --quiet`: positions, and how long extraction took (or takes --positions FILE);
//   4. positions per second: full static evaluations of every position by one engine per core;
//   5. `spsa init` gives a params.toml with every constant; `spsa texel` tunes its evaluation
//      terms (the 56 from PAWN_VALUE on, or --only NAMES) with --method (adaptive), timed,
//      error before/after;
//   6. --elo-games N: `compete` of the tuned values (as UCI options of the same binary)
//      against the start at --elo-nodes per move, Elo ± 95 %.
// Everything goes to --dir (default a temp folder); the runs are stored in the database.
//   node bench/texel-bench.mjs [--games 600] [--nodes 4000] [--random-plies 4] [--pgn FILE | --positions FILE]
//                              [--only A,B,C] [--method adaptive] [--elo-games 400] [--elo-nodes 4000]
import { execFileSync, spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { performance } from "node:perf_hooks";
import { loadParams } from "../dist/params/params.js";
import { BatchEnginePool } from "../dist/texel/batch-engine-pool.js";
import { optionTargets, optionValues } from "../dist/params/option-names.js";
import { parsePositions } from "../dist/texel/positions.js";

const { values: args } = parseArgs({
  options: {
    games: { type: "string", default: "600" },
    nodes: { type: "string", default: "4000" },
    "random-plies": { type: "string", default: "4" },
    pgn: { type: "string" },
    positions: { type: "string" },
    only: { type: "string" },
    method: { type: "string", default: "adaptive" },
    "elo-games": { type: "string", default: "400" },
    "elo-nodes": { type: "string" },
    dir: { type: "string" },
  },
});
const root = new URL("..", import.meta.url).pathname;
const dir = args.dir ?? mkdtempSync(join(tmpdir(), "texel-bench-"));
const run = (file, argv) => {
  const started = performance.now();
  const result = spawnSync("node", [join(root, "bin", file), ...argv], {
    cwd: root,
    encoding: "utf8",
    maxBuffer: 1 << 28,
  });
  const output = `${result.stdout}${result.stderr}`;
  if (result.status !== 0) throw new Error(`${file} ${argv.join(" ")} failed (${result.status}):\n${output}`);
  return { output, stdout: result.stdout, seconds: (performance.now() - started) / 1000 };
};
const lines = [];
const report = (line) => {
  lines.push(line);
  console.log(line);
};

const crate = join(root, "engines", "minnow");
execFileSync("cargo", ["build", "--release", "--quiet"], { cwd: crate, stdio: "inherit" });
const engine = join(dir, "minnow-start");
copyFileSync(join(crate, "target", "release", "minnow"), engine);
report(`folder ${dir}, ${availableParallelism()} cores`);

// The spsa and compete runs below run in the repository's folder: paths given here are made absolute.
let positionsFile = args.positions && resolve(args.positions);
if (positionsFile === undefined) {
  let pgn = args.pgn && resolve(args.pgn);
  if (pgn === undefined) {
    pgn = join(dir, "selfplay.pgn");
    // At fixed nodes the same engine on both sides replays a pair's first game as its second.
    const other = `${engine}:ASPIRATION_WINDOWS_0=31`;
    const games = run("compete.js", [
      engine,
      other,
      "-g",
      args.games,
      "-c",
      String(availableParallelism()),
      "--nodes",
      args.nodes,
      "--random-plies",
      args["random-plies"],
      "--seed",
      "14",
      "--pgn",
      pgn,
    ]);
    report(
      `self-play: ${args.games} games at ${args.nodes} nodes per move, ${args["random-plies"]} random plies, in ${games.seconds.toFixed(0)} s`,
    );
  }
  positionsFile = join(dir, "positions.epd");
  const data = run("spsa.js", ["texel-data", pgn, "--out", positionsFile, "--quiet", "--engine", engine]);
  report(`texel-data --quiet: ${data.output.trim().split("\n").pop()} in ${data.seconds.toFixed(1)} s`);
}
const positions = parsePositions(readFileSync(positionsFile, "utf8"), positionsFile);

const paramsFile = join(dir, "params.toml");
run("spsa.js", ["init", "--constants", join(crate, "src", "engine_constants.rs"), "--out", paramsFile, "--force"]);
const params = loadParams(paramsFile);
const evaluation =
  args.only === undefined
    ? params.slice(params.findIndex((p) => p.name === "PAWN_VALUE_MG"))
    : params.filter((p) => args.only.split(",").includes(p.name));
const start = Object.fromEntries(params.map((p) => [p.name, p.value]));

const targets = optionTargets(
  params,
  readFileSync(join(crate, "src", "engine_constants.rs"), "utf8"),
  "engine_constants.rs",
);
const pool = await BatchEnginePool.start(
  engine,
  positions.map((p) => p.fen),
);
const options = optionValues(params, targets, start);
await pool.evaluate(options, "static"); // options sent, caches warm
const passes = 5;
const started = performance.now();
for (let i = 0; i < passes; i++) await pool.evaluate(options, "static");
const rate = (passes * positions.length) / ((performance.now() - started) / 1000);
await pool.close();
report(
  `evaluation: ${Math.round(rate)} positions/s with ${pool.size} engines (${passes} full passes over ${positions.length} positions)`,
);

const texel = run("spsa.js", [
  "texel",
  "--positions",
  positionsFile,
  "--params",
  paramsFile,
  "--engine",
  engine,
  "--method",
  args.method,
  "--only",
  evaluation.map((p) => p.name).join(","),
]);
const summary =
  /K ([\d.]+), error ([\d.]+) → ([\d.]+) in (\d+) passes, (\d+) evaluations, ([\d.]+) s \((\d+) positions\/s\)/.exec(
    texel.output,
  );
if (!summary) throw new Error(`no summary in spsa texel's output:\n${texel.output}`);
report(
  `texel (${args.method}, ${evaluation.length} parameters): K ${summary[1]}, error ${summary[2]} → ${summary[3]}, ${summary[4]} passes, ${summary[5]} evaluations, ${summary[6]} s (${texel.seconds.toFixed(1)} s with loading)`,
);
const tuned = loadParams(paramsFile);
const changed = tuned.filter((p) => p.value !== start[p.name]);
report(`changed: ${changed.map((p) => `${p.name} ${start[p.name]} → ${p.value}`).join(", ")}`);

const eloGames = Number(args["elo-games"]);
if (eloGames > 0) {
  // The same binary with the changed terms set as UCI options: no rebuild.
  const index = new Map(params.map((p, i) => [p.name, i]));
  const tunedOptions = optionValues(
    changed,
    changed.map((p) => targets[index.get(p.name)]),
    {},
  );
  const spec = `${engine}:${[...tunedOptions].map(([name, value]) => `${name}=${value}`).join(",")}`;
  const eloNodes = args["elo-nodes"] ?? args.nodes;
  const match = run("compete.js", [
    spec,
    engine,
    "-g",
    String(eloGames),
    "-c",
    String(availableParallelism()),
    "--nodes",
    eloNodes,
    "--seed",
    "15",
  ]);
  // The summary on stdout, not the live status lines on stderr.
  const elo = /Elo ([+-]?[\d.]+) ± ([\d.]+|inf)/.exec(match.stdout);
  const wld = /\+(\d+) -(\d+) =(\d+)/.exec(match.stdout);
  report(
    `tuned vs start: ${eloGames} games at ${eloNodes} nodes per move: ${wld?.[0] ?? "?"}, Elo ${elo?.[1] ?? "?"} ± ${elo?.[2] ?? "?"} (${match.seconds.toFixed(0)} s)`,
  );
}
console.log(`\n${lines.join("\n")}`);
