#!/usr/bin/env node
// Games per hour of a UCI-option-mode tuning run against `compete` match mode with the same
// engine, time per move and concurrency (not a test; goal ≥ 97 %). Needs `npm run build` and
// cargo. Builds minnow once, runs an options-mode master and one worker at -c 2 on the embedded
// database (or DATABASE_URL) for --games games, then a match of the same binary against itself.
// Both are timed from the first game to the last result: the tuning run from the first claim to
// the last report (spsa_batch), the match by its wall time minus its engines' start.
//   node bench/uci-throughput.mjs [--games 128] [--timelow 0.02] [--timehigh 0.05] [--batch-size 8]
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { performance } from "node:perf_hooks";
import { openDatabase } from "../dist/postgres/connection.js";

const { values } = parseArgs({
  options: {
    games: { type: "string", default: "128" },
    timelow: { type: "string", default: "0.02" },
    timehigh: { type: "string", default: "0.05" },
    "batch-size": { type: "string", default: "8" },
  },
});
const root = new URL("..", import.meta.url).pathname;
const games = Number(values.games);
execFileSync("cargo", ["build", "--release", "--quiet"], { cwd: join(root, "engines/minnow") });
const engine = join(root, "engines/minnow/target/release/minnow");

const dir = mkdtempSync(join(tmpdir(), "spsa-uci-bench-"));
const configFile = join(dir, "config.toml");
const paramsFile = join(dir, "params.toml");
writeFileSync(
  paramsFile,
  [
    ["KNIGHT_VALUE_MG", 320, 250, 400, 8],
    ["ROOK_VALUE_MG", 480, 400, 600, 10],
    ["LMR_MIN_DEPTH", 3, 1, 6, 1],
    ["ALPHA_PRUNE_MARGINS_1", 260, 100, 500, 20],
  ]
    .map(
      ([name, value, min, max, step]) =>
        `[${name}]\nvalue = ${value}\nmin = ${min}\nmax = ${max}\nstep = ${step}\noption = "${name}"\n`,
    )
    .join("\n"),
);
// Time losses to a busy machine are scored in both (match mode's default), not replayed: equal work per game.
writeFileSync(
  configFile,
  `[time_control]\ntimelow = ${values.timelow}\ntimehigh = ${values.timehigh}\nmargin_ms = 100\noutside_delay = "loss"\n` +
    `[games]\ngames_per_iteration = ${games}\nbatch_size = ${values["batch-size"]}\n[spsa]\nmax_iterations = 1\n` +
    `[engine]\nmode = "options"\nbinary = "${engine}"\n[database]\npoll_interval = 0.2\n`,
);

const name = `bench-uci-${Date.now()}`;
const worker = spawn(
  "node",
  [join(root, "bin/compete.js"), "--spsa", "-c", "2", "--config", configFile, "--name", `${name}-worker`],
  { stdio: "ignore" },
);
const master = spawnSync(
  "node",
  [join(root, "bin/spsa.js"), "--config", configFile, "master", "--params", paramsFile, "--name", name],
  { encoding: "utf8" },
);
worker.kill("SIGTERM");
if (master.status !== 0) throw new Error(`master failed: ${master.stderr}`);
const database = await openDatabase({});
const [run] = await database.sql`
  select count(*)::int as batches, sum(b.games)::int as games, extract(epoch from max(b.reported_at) - min(b.claimed_at))::float as seconds
  from spsa_batch b join spsa_iteration i on i.id = b.iteration_id join spsa_run r on r.id = i.run_id
  where r.name = ${name} and b.status = 'done'`;
const tuningPerHour = (run.games / run.seconds) * 3600;
const [delays] = await database.sql`
  select i.replays, i.plus_delay_losses + i.minus_delay_losses as delay_losses, w.concurrency
  from spsa_iteration i join spsa_run r on r.id = i.run_id, spsa_worker w where r.name = ${name} and w.name = ${`${name}-worker`}`;
console.log(
  `UCI-option run: ${run.games} games in ${run.batches} batches, ${run.seconds.toFixed(1)} s: ${tuningPerHour.toFixed(0)} games/hour (${delays.delay_losses} time losses to outside delays; the worker ended at -c ${delays.concurrency})`,
);
await database.close();

const started = performance.now();
execFileSync(
  "node",
  [
    join(root, "bin/compete.js"),
    engine,
    engine,
    "-g",
    String(games),
    "-c",
    "2",
    "--timelow",
    values.timelow,
    "--timehigh",
    values.timehigh,
    "--margin",
    "100",
  ],
  { stdio: "ignore" },
);
const matchSeconds = (performance.now() - started) / 1000;
const matchPerHour = (games / matchSeconds) * 3600;
console.log(`compete match: ${games} games in ${matchSeconds.toFixed(1)} s: ${matchPerHour.toFixed(0)} games/hour`);
console.log(`UCI-option run / match mode: ${((100 * tuningPerHour) / matchPerHour).toFixed(1)} %`);
