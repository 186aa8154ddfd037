#!/usr/bin/env node
// Issue 45's benchmark: does a tune make a real engine measurably stronger, and in how many
// games, with the defaults against plain SPSA (not a test; hours on 2 cores). Needs `npm run build`.
//   1. Detunes minnow on purpose (--steps, --subset, --seed, as bench/tune-recovery.mjs does) and
//      measures the gap first: the default engine against the detuned start (--gap-games).
//   2. For each budget of --budgets: tunes from the detuned start twice, side by side on one
//      database with one `compete --spsa` worker and the same seed, "ours" (config.toml's [spsa]
//      as it is) and "plain" (as OpenBench and fishtest run SPSA: adapt = "off", c_end = 1.5,
//      r_end = 0.002, adapt_pilot = 0, gain_share = 0), --games per iteration; then plays each tuned engine
//      against the default engine (--match-games) and ours against plain (--h2h-games).
//   3. Ours at the first budget against plain at the last (--h2h-games).
//   4. Prints one table: each pairing's Elo ± 95 %, its distinct games (start, White, moves,
//      from its PGN) and, for a tuned engine, the share of the gap it recovered.
// Every row is also appended to DIR/results.jsonl as it is measured.
//   nice -n 10 node bench/real-engine-elo.mjs [--steps 6] [--subset N] [--seed elo-1] [--tune-seed S]
//     [--budgets 5000,20000] [--games 64] [--nodes 1000] [--gap-games 4000] [--match-games 4000]
//     [--h2h-games 4000] [--gap ELO,ERROR] [--tuners ours,plain] [--tune-book BOOK] [--versus NAME=PATH] [--checkpoints N] [-c 2]
// --tuners ours: tune with the defaults only (no head-to-heads). --tuner 'NAME:key=value,…' (repeatable)
// adds a tuner of its own [spsa] settings (TOML values: adapt="off"), e.g. the gains the simulator's
// hindsight oracle picked; it is tuned and matched as ours and plain are (--tuners ours,plain,NAME).
// --tune-seed S: the tunes' draws from S instead of --seed (the detune and the matches keep --seed):
// a second sample of the same tune.
// --tune-book BOOK: the book the tunes play (default: the default book); the matches always play
// the default book. This script replaced bench/side-by-side.mjs (git show 4ebb2e4:bench/side-by-side.mjs
// for the runs measured with it).
// --versus NAME=PATH: an engine built before (a tuned engine of an earlier run, say plain-20000
// from DIR/engines/tuned-20000/minus/) that the first of --tuners at the first budget also plays (--h2h-games).
// --gap: the gap as an earlier run of the same detune measured it (node-limited games are
// deterministic: the same seed replays the same match), instead of playing it again; with
// --draw-rate (the gap match's share of draws), the simulator's rows below can be computed.
// The last table is the simulator held to the run: each tuner on a model of this detune (every
// optimum at the default, one curvature that loses the gap at the detuned start), --sim-seeds 16
// problems; --predict prints only that table (with --gap and --draw-rate), playing nothing.
// --engine PATH: an engine no one here wrote, in UCI-option mode ([engine] mode = "options"):
// its parameters are its spin options as `spsa init --engine` proposes them (--only NAME,…
// keeps those), nothing is built, every engine of the table is PATH with its option values.
// --depth N plays every game to depth N instead of --nodes (engines that ignore `go nodes`,
// as toga2 does); --option NAME=VALUE (repeatable) sets an option on every engine, e.g. Hash=16.
//   nice -n 5 node bench/real-engine-elo.mjs --engine /usr/games/toga2 --depth 4 --option Hash=16 \
//     --subset 8 --steps 10 --budgets 5000 --gap-games 2000 --match-games 2000 --h2h-games 2000
// --engine-dir DIR: another Rust engine in build mode (its src/engine_constants.rs, rewritten and
// built as minnow's is; never copied into this repository): its parameters are what `spsa init
// --constants` proposes, --only NAME,… keeps those.
//   nice -n 5 node bench/real-engine-elo.mjs --engine-dir ../rusty-rival --only KNIGHT_VALUE_PAIR_MG,… \
//     --steps 6 --budgets 5000 --gap-games 2000 --match-games 2000 --tuners ours
// --checkpoints N: issue 56's calibration on a real run. While the first of --tuners tunes, the
// script reads `spsa status --json` as a user would and keeps, at N points evenly spread over each
// budget, the gain status shows (θ against θ₀, 95 %) and θ; then plays θ of each point against
// the detuned start (--match-games) and prints whether each interval covers the match.
// Without DATABASE_URL the script starts its own embedded Postgres in its temp folder.
import { execFileSync, spawn } from "node:child_process";
import { appendFileSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { setInterval, clearInterval } from "node:timers";
import { performance } from "node:perf_hooks";
import { buildPlusAndMinus } from "../dist/engine-build/engine-builder.js";
import { loadConfig } from "../dist/config/config.js";
import { loadParams } from "../dist/params/params.js";
import { updateParamValues } from "../dist/params/params-update.js";
import { builtValue } from "../dist/spsa/math.js";
import { engineOptions, optionParamsOf } from "../dist/params/option-names.js";
import { spsaMathConfig } from "../dist/config/config.js";
import { simulateSeeds } from "../dist/simulate/aggregate.js";
import { asyncTuner, masterTuner } from "../dist/simulate/tuners.js";
import { userProblem } from "../dist/simulate/user-model.js";
import { hindsightOnSurface, limitCandidates } from "../dist/simulate/limit.js";
import { simulatedGains } from "../dist/simulate/gains.js";
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
    "tune-seed": { type: "string" },
    budgets: { type: "string", default: "5000,20000" },
    games: { type: "string", default: "64" },
    nodes: { type: "string" },
    depth: { type: "string" },
    engine: { type: "string" },
    "engine-dir": { type: "string" },
    only: { type: "string" },
    option: { type: "string", multiple: true, default: [] },
    "gap-games": { type: "string", default: "4000" },
    "match-games": { type: "string", default: "4000" },
    "h2h-games": { type: "string", default: "4000" },
    gap: { type: "string" },
    "draw-rate": { type: "string" },
    predict: { type: "boolean", default: false },
    "sim-seeds": { type: "string", default: "16" },
    "train-seeds": { type: "string", default: "8" },
    "tune-book": { type: "string" },
    tuners: { type: "string", default: "ours,plain" },
    tuner: { type: "string", multiple: true, default: [] },
    versus: { type: "string" },
    checkpoints: { type: "string", default: "0" },
    concurrency: { type: "string", short: "c", default: "2" },
  },
});
// Plain SPSA spends every game on the tune: no gain blocks (θ against θ₀), which neither tool plays.
const PLAIN = { adapt: '"off"', c_end: "1.5", r_end: "0.002", adapt_pilot: "0", gain_share: "0" };
const TUNERS = { ours: {}, plain: PLAIN };
for (const spec of opts.tuner) {
  const [name, settings] = spec.split(/:(.*)/);
  TUNERS[name] = Object.fromEntries(settings.split(",").map((setting) => setting.split("=")));
}
const root = new URL("..", import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), "spsa-real-elo-"));
const children = benchProcesses(root, dir);
const started = performance.now();
const minutes = (since) => ((performance.now() - since) / 60000).toFixed(1);
const log = (line) => console.log(`[${minutes(started)} min] ${line}`);
log(`files in ${dir}`);
if (opts.depth === undefined) opts.nodes ??= "1000";
const limit = opts.depth === undefined ? `${opts.nodes} nodes per move` : `depth ${opts.depth}`;
const limitArgs = opts.depth === undefined ? ["--nodes", opts.nodes] : ["--depth", opts.depth];

const engineDir = opts["engine-dir"] === undefined ? undefined : resolve(opts["engine-dir"]);
// The parameters: minnow's params.toml, or those `spsa init` proposes for another engine.
const source =
  opts.engine !== undefined
    ? ["--engine", opts.engine]
    : engineDir !== undefined
      ? ["--constants", join(engineDir, "src/engine_constants.rs")]
      : undefined;
const paramsFile = source === undefined ? join(root, "params.toml") : join(dir, "engine.params.toml");
if (source !== undefined)
  execFileSync(
    "node",
    [join(root, "bin/spsa.js"), "init", ...source, "--out", paramsFile].concat(
      opts.only === undefined ? [] : ["--only", opts.only],
    ),
    { stdio: "ignore" },
  );
const params = loadParams(paramsFile);
const defaults = Object.fromEntries(params.map((p) => [p.name, p.value]));
// The tunes' own seed: the same detune tuned again with other draws (default: --seed).
const tuneSeed = opts["tune-seed"] ?? opts.seed;
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
  if (opts.engine !== undefined) {
    // UCI-option mode builds nothing: an engine is the binary with its option values.
    const options = optionParamsOf(params, paramsFile);
    for (const [name, v] of Object.entries(values)) engines[name] = engineOptions(options, v);
    return;
  }
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
/** compete's --option-a or --option-b flags of engine `name`: --option for every engine, then its values. */
const sideOptions = (side, name) =>
  [
    ...opts.option,
    ...Object.entries(opts.engine === undefined ? {} : engines[name]).map(([o, v]) => `${o}=${v}`),
  ].flatMap((option) => [`--option-${side}`, option]);
const rows = [];
let gap;
const match = (a, b, games) => {
  const pgn = join(dir, `${a}-vs-${b}.pgn`);
  const since = performance.now();
  const out = execFileSync(
    "node",
    [
      join(root, "bin/compete.js"),
      ...[a, b].map((name) => (opts.engine === undefined ? engines[name] : opts.engine)),
      ...sideOptions("a", a),
      ...sideOptions("b", b),
      "-g",
      games,
      "-c",
      opts.concurrency,
      ...limitArgs,
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
    depth: opts.depth,
    binary: opts.engine,
    engineDir,
    margin: 300,
    book: opts["tune-book"],
  });
  return file;
};
config = loadConfig(configFile("default", 1, {}));
if (opts.predict && opts.gap === undefined) throw new Error("--predict needs the gap: --gap ELO,ERROR --draw-rate X");
if (!opts.predict) await build("start", { default: defaults, detuned });
if (opts.gap === undefined) {
  gap = match("default", "detuned", opts["gap-games"]);
  const [, draws] = gap.wdl.match(/=(\d+)/);
  gap.drawRate = Number(draws) / gap.games;
} else {
  const [elo, error] = opts.gap.split(",").map(Number);
  gap = { elo, error, drawRate: Number(opts["draw-rate"] ?? Number.NaN) };
  log(`gap as measured before: Elo ${elo} ± ${error}`);
}

/**
 * The simulator held to this run: a model of the detune (every optimum at its default, one curvature
 * for all that makes the detuned start lose the measured gap, the gap match's draw rate), each
 * tuner with its own config (UCI-option mode: batches of 8, -c in flight) over --sim-seeds runs, and
 * the hindsight oracle (src/simulate/limit.ts: the best of its gains on --train-seeds runs, scored
 * on --sim-seeds others).
 */
const squares = params.reduce((sum, p) => sum + ((detuned[p.name] - p.value) / p.step) ** 2, 0);
const model = {
  lossElo: (gap.elo / squares) * 16,
  lossSteps: 4,
  offsetSteps: undefined,
  drawRate: gap.drawRate,
  overrides: Object.fromEntries(params.map((p) => [p.name, { optimum: p.value }])),
};
const start = params.map((p) => ({ ...p, value: detuned[p.name] }));
const problemFor = (seed) => userProblem(start, model, seed);
const perIteration = Number(opts.games);
const simulatedTuner = (name, gainsFor) =>
  opts.engine === undefined
    ? masterTuner(name, gainsFor, perIteration)
    : asyncTuner(name, gainsFor, perIteration, 8, Number(opts.concurrency));
const tuners = opts.tuners.split(",");
const budgets = opts.budgets.split(",");
const printPredictions = () => {
  const seeds = Number(opts["sim-seeds"]);
  console.log(
    `\nthe simulator on a model of this detune (${model.lossElo.toFixed(3)} Elo lost at 4 steps, draw rate ` +
      `${gap.drawRate.toFixed(3)}; ${seeds} runs, ± the spread over them; the limit on ${seeds} other runs):\n`,
  );
  console.log("| tuner | games | Elo left ± spread | gap recovered |\n|---|---:|---:|---:|");
  const row = (name, games, left, spread) =>
    console.log(
      `| ${name} | ${games} | ${left.toFixed(1)}${spread === undefined ? "" : ` ± ${spread.toFixed(1)}`} | ` +
        `${(100 * (1 - left / gap.elo)).toFixed(0)} % |`,
    );
  for (const budget of budgets) {
    const games = Math.round(Number(budget) / perIteration) * perIteration;
    for (const variant of tuners) {
      // The tune's own config file, as the master reads it.
      const { spsa } = loadConfig(configFile(`simulated-${variant}`, games / perIteration, TUNERS[variant]));
      const tuner = simulatedTuner(variant, (maxIterations) =>
        spsaMathConfig({ ...spsa, maxIterations }, perIteration),
      );
      const summary = simulateSeeds(tuner, problemFor, games, seeds);
      row(`${variant}, simulated`, games, summary.mean.at(-1), summary.sd.at(-1));
    }
    const candidates = limitCandidates((name, changes) => simulatedTuner(name, simulatedGains(changes, perIteration)));
    const limit = hindsightOnSurface(candidates, problemFor, games, {
      train: Number(opts["train-seeds"]),
      test: seeds,
    });
    row(`limit (${limit.chosen})`, games, limit.end);
  }
};
if (opts.predict) {
  printPredictions();
  // Only the tuners' config files were written: nothing of a prediction is worth keeping.
  rmSync(dir, { recursive: true, force: true });
  process.exit(0);
}

/** A run's status as `spsa status --json` prints it. */
const statusOf = (run) =>
  JSON.parse(
    execFileSync(
      "node",
      [join(root, "bin/spsa.js"), "--config", run.configFile, "status", "--json", "--all", "--name", run.name],
      {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "ignore"],
      },
    ),
  );
/**
 * Reads the run's status every few seconds while it plays and keeps the first reading at or past
 * each of --checkpoints points of its `budget` games: its games, gain and θ (each parameter's built
 * value). `finish()` stops reading, takes the run's last status and returns the readings.
 */
const watchCheckpoints = (run, budget) => {
  const points = Array.from(
    { length: Number(opts.checkpoints) },
    (_, i) => ((i + 1) * budget) / Number(opts.checkpoints),
  );
  const readings = [];
  // At the end the last point is the run's end, whatever its total (gain iterations round it).
  const read = (end = false) => {
    const status = statusOf(run);
    while (readings.length < points.length && (end || status.games.total >= points[readings.length] - 1e-9)) {
      readings.push({
        games: status.games.total,
        gain: status.gain?.gain ?? null,
        gainGames: status.gain?.games ?? 0,
        theta: Object.fromEntries(status.parameters.map((p) => [p.name, p.built ?? p.now])),
      });
      log(`checkpoint at ${status.games.total} games: gain ${JSON.stringify(status.gain?.gain ?? null)}`);
    }
  };
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    try {
      read();
    } catch {
      // The run may not be in the database yet, or its master between iterations: read again next time.
    } finally {
      busy = false;
    }
  }, 5000);
  return {
    finish: async () => {
      clearInterval(timer);
      read(true);
      return readings;
    },
  };
};
/** Each checkpoint's θ against the detuned start, and whether the gain status showed covers it. */
const calibrate = async (label, readings) => {
  for (const [i, r] of readings.entries()) {
    const name = `${label}@${r.games}`;
    await build(`checkpoint-${i + 1}`, { [name]: r.theta });
    r.match = match(name, "detuned", opts["match-games"]);
  }
  console.log(`\n${label}: the gain status showed against θ at that point played against θ₀ (the detuned start)\n`);
  console.log(
    "| games | gain shown (95 %) | gain games | θ vs θ₀, match | distinct games | covered |\n|---:|---:|---:|---:|---:|---|",
  );
  const end = (x) => (x === null ? "∞" : x.toFixed(1));
  for (const r of readings) {
    const shown = r.gain === null ? "none yet" : `${r.gain.elo.toFixed(1)} [${end(r.gain.low)}, ${end(r.gain.high)}]`;
    const covered =
      r.gain === null
        ? ""
        : (r.gain.low ?? -Infinity) <= r.match.elo && r.match.elo <= (r.gain.high ?? Infinity)
          ? "yes"
          : "no";
    console.log(
      `| ${r.games} | ${shown} | ${r.gainGames} | ${r.match.elo.toFixed(1)} ± ${r.match.error.toFixed(1)} | ${r.match.distinct} | ${covered} |`,
    );
    appendFileSync(join(dir, "calibration.jsonl"), `${JSON.stringify({ label, ...r })}\n`);
  }
};

// 2. The tunes, two at a time on one worker.
const tune = async (budget) => {
  const iterations = Math.round(Number(budget) / Number(opts.games));
  const runs = Object.entries(TUNERS)
    .filter(([variant]) => tuners.includes(variant))
    .map(([variant, settings]) => {
      const label = `${variant}-${budget}`;
      const runParams = join(dir, `${label}.params.toml`);
      writeFileSync(runParams, updateParamValues(readFileSync(paramsFile, "utf8"), detuned, runParams));
      return {
        label,
        paramsFile: runParams,
        configFile: configFile(label, iterations, settings),
        name: `${label}-${Date.now()}`,
      };
    });
  log(`tuning ${runs.map((run) => run.label).join(" and ")}: ${iterations} × ${opts.games} games at ${limit}`);
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
            tuneSeed,
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
    seed: tuneSeed,
    options: opts.option,
  });
  children.push(worker);
  const watched = Number(opts.checkpoints) > 0 ? watchCheckpoints(runs[0], iterations * Number(opts.games)) : null;
  await Promise.all(masters);
  worker.kill("SIGTERM");
  log(`tunes of ${budget} games done in ${minutes(since)} min`);
  const tuned = Object.fromEntries(
    runs.map((run) => [run.label, Object.fromEntries(loadParams(run.paramsFile).map((p) => [p.name, builtValue(p)]))]),
  );
  await build(`tuned-${budget}`, tuned);
  if (tuners.includes("ours") && tuners.includes("plain"))
    match(`ours-${budget}`, `plain-${budget}`, opts["h2h-games"]);
  if (watched) await calibrate(runs[0].label, await watched.finish());
  for (const run of runs) {
    const row = match(run.label, "default", opts["match-games"]);
    const { share, error } = recovered(row);
    log(`${run.label} recovered ${(100 * share).toFixed(0)} % ± ${(100 * error).toFixed(0)} % of the gap`);
  }
};
for (const budget of budgets) await tune(budget);

// 3. Ours at the smallest budget against plain at the largest.
if (budgets.length > 1 && tuners.includes("ours") && tuners.includes("plain"))
  match(`ours-${budgets[0]}`, `plain-${budgets.at(-1)}`, opts["h2h-games"]);

if (opts.versus !== undefined) {
  const [name, path] = opts.versus.split("=");
  engines[name] = path;
  match(`${tuners[0]}-${budgets[0]}`, name, opts["h2h-games"]);
}

// 4. The table.
console.log(
  `\n${opts.engine ?? engineDir ?? "minnow"}, detune: ${detune}; ${limit}; ${opts.games} games per iteration\n`,
);
console.log("| pairing | games | distinct games | Elo ± 95 % | gap recovered |\n|---|---:|---:|---:|---:|");
for (const r of rows) {
  const share = r.pairing.endsWith("vs default") ? recovered(r) : undefined;
  const shareText =
    share === undefined ? "" : `${(100 * share.share).toFixed(0)} % ± ${(100 * share.error).toFixed(0)} %`;
  console.log(
    `| ${r.pairing} | ${r.games} | ${r.distinct} | ${r.elo >= 0 ? "+" : ""}${r.elo.toFixed(1)} ± ${r.error.toFixed(1)} | ${shareText} |`,
  );
}
printPredictions();
log(`files in ${dir}`);
