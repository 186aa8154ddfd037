#!/usr/bin/env node
// Builds side by side on a real run (not a test; docs/in-flight.md, "The builds"). Needs `npm run build`.
// Tunes minnow built with a large engine's release profile (lto = true, codegen-units = 1, no
// incremental: a rebuild is some seconds of one core per engine, bench/build-profile.mjs) with
// `[build] builds_at_once` 1 and then 2, --rounds times, the order alternating (1 2, 2 1, …) so
// that the other load on a shared machine weighs on both alike. The same workers (--workers
// processes at -c --concurrency) play every run; each run is --iterations × --games games at
// --timelow–--timehigh s per move. Printed per run: its wall time, games per hour (its games
// over the time from its first iteration's opening to its last one's completion, both from the
// database), the most builds at once and how many builds overlapped another one (from the
// cargo logs of the build trees, whose lines say when each build started and ended), the mean
// staleness, and the load average at its start and end; then the mean per builds_at_once.
//   node bench/builds-side-by-side.mjs [--rounds 2] [--iterations 12] [--games 8] [--workers 2] [--concurrency 2]
//     [--timelow 0.005] [--timehigh 0.01] [--at-once 1,2]
// Without DATABASE_URL the script starts its own embedded Postgres ($SPSA_HOME in its temp
// folder) and stops it at the end.
import { spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { performance } from "node:perf_hooks";
import { openDatabase } from "../dist/postgres/connection.js";
import { benchProcesses } from "./tuning-kit.mjs";
import { mean } from "./bench-stats.mjs";

const { values: opts } = parseArgs({
  options: {
    rounds: { type: "string", default: "2" },
    iterations: { type: "string", default: "12" },
    games: { type: "string", default: "8" },
    workers: { type: "string", default: "2" },
    concurrency: { type: "string", default: "2" },
    timelow: { type: "string", default: "0.005" },
    timehigh: { type: "string", default: "0.01" },
    "at-once": { type: "string", default: "1,2" },
  },
});
const LTO_PROFILE = {
  CARGO_PROFILE_RELEASE_LTO: "true",
  CARGO_PROFILE_RELEASE_CODEGEN_UNITS: "1",
  CARGO_PROFILE_RELEASE_INCREMENTAL: "false",
};
const root = new URL("..", import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), "spsa-builds-side-by-side-"));
const children = benchProcesses(root, dir);
const started = performance.now();
const log = (line) => console.error(`[${((performance.now() - started) / 60000).toFixed(1)} min] ${line}`);
const load = () => loadavg()[0].toFixed(1);
const output = join(dir, "builds");

/** A run's config: the builds of every run share output_dir (each tree keeps its target folder). */
function writeConfig(file, atOnce) {
  writeFileSync(
    file,
    `[time_control]\ntimelow = ${opts.timelow}\ntimehigh = ${opts.timehigh}\nmargin_ms = 300\n` +
      `[games]\ngames_per_iteration = ${opts.games}\nbatch_size = 2\n[spsa]\nmax_iterations = ${opts.iterations}\n` +
      `[build]\nengine_dir = "${join(root, "engines/minnow")}"\noutput_dir = "${output}"\nbuilds_at_once = ${atOnce}\n[database]\npoll_interval = 0.2\n`,
  );
}

/** Every build in the cargo logs of the trees: [tree, start ms, end ms] (a build with no end line was stopped). */
function buildIntervals() {
  const logs = join(output, "logs");
  const intervals = [];
  for (const file of existsSync(logs) ? readdirSync(logs) : []) {
    const tree = file.replace(/\.log$/, "");
    let open;
    for (const [, at, what] of readFileSync(join(logs, file), "utf8").matchAll(
      /^=== (\S+) \S+: (cargo|built|failed)/gm,
    )) {
      if (what === "cargo") open = Date.parse(at);
      else if (open !== undefined) {
        intervals.push([tree, open, Date.parse(at)]);
        open = undefined;
      }
    }
  }
  return intervals;
}

/** Of the builds that started in [from, to]: how many overlapped a build in another tree of the same variant's slots, and the most at once. */
function overlapsBetween(from, to) {
  const builds = buildIntervals().filter(([tree, start]) => start >= from && start <= to && tree.startsWith("plus"));
  const overlapping = builds.filter(([tree, start, end]) =>
    builds.some(([other, s, e]) => other !== tree && s < end && start < e),
  ).length;
  const most = Math.max(0, ...builds.map(([, start]) => builds.filter(([, s, e]) => s <= start && start < e).length));
  return { builds: builds.length, overlapping, most };
}

const paramsTemplate = join(root, "params.toml");
const workerConfig = join(dir, "worker.config.toml");
writeConfig(workerConfig, 1);
// The database first (a worker on an empty embedded home would race the first master to start it).
const database = await openDatabase({ applicationName: "spsa-builds-bench" });
const { sql } = database;
for (let w = 0; w < Number(opts.workers); w++) {
  const worker = spawn(
    "node",
    [join(root, "bin/compete.js"), "--spsa", "-c", opts.concurrency, "--config", workerConfig, "--name", `bench-${w}`],
    { stdio: ["ignore", "ignore", openSync(join(dir, `worker-${w}.log`), "w")] },
  );
  children.push(worker);
}

const atOnces = opts["at-once"].split(",").map(Number);
const results = [];
for (let round = 1; round <= Number(opts.rounds); round++) {
  const order = round % 2 === 1 ? atOnces : [...atOnces].reverse();
  for (const atOnce of order) {
    const name = `at-once-${atOnce}-round-${round}`;
    const configFile = join(dir, `${name}.config.toml`);
    const paramsFile = join(dir, `${name}.params.toml`);
    writeConfig(configFile, atOnce);
    copyFileSync(paramsTemplate, paramsFile);
    const loadBefore = load();
    const t0 = Date.now();
    const code = await new Promise((resolve) => {
      const child = spawn(
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
          `bench-${round}`,
        ],
        {
          stdio: ["ignore", "ignore", openSync(join(dir, `${name}.master.log`), "w")],
          env: { ...process.env, ...LTO_PROFILE },
        },
      );
      children.push(child);
      child.on("exit", resolve);
    });
    const t1 = Date.now();
    if (code !== 0)
      throw new Error(`${name}: the master exited with ${code}; its log: ${join(dir, `${name}.master.log`)}`);
    const [row] = await sql`
      select extract(epoch from max(i.completed_at) - min(i.created_at))::float8 as seconds, sum(i.games_played)::int as games,
        avg(coalesce((i.settings->>'staleness')::int, 0))::float8 as staleness,
        (select count(*) from spsa_batch b join spsa_iteration bi on bi.id = b.iteration_id where bi.run_id = r.id and b.status = 'done')::int as batches
      from spsa_iteration i join spsa_run r on r.id = i.run_id where r.name = ${name} group by r.id`;
    const overlaps = overlapsBetween(t0, t1);
    const result = {
      name,
      atOnce,
      wall: (t1 - t0) / 1000,
      perHour: (3600 * row.games) / row.seconds,
      games: row.games,
      staleness: row.staleness,
      ...overlaps,
      load: `${loadBefore}–${load()}`,
    };
    results.push(result);
    log(
      `${name}: ${result.games} games in ${result.wall.toFixed(0)} s, ${result.perHour.toFixed(0)} games/h from its first iteration's opening, ${overlaps.overlapping} of ${overlaps.builds} builds overlapped another (at most ${overlaps.most} at once), load ${result.load}`,
    );
  }
}
await database.close();

console.log(
  `\nminnow with lto = true, codegen-units = 1; ${opts.iterations} iterations × ${opts.games} games at ${opts.timelow}–${opts.timehigh} s per move; ${opts.workers} workers at -c ${opts.concurrency}\n`,
);
console.log(
  "| run | builds_at_once | wall s | games per hour | builds overlapping another / all | most at once | mean staleness | load average (start–end) |",
);
console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |");
for (const r of results)
  console.log(
    `| ${r.name} | ${r.atOnce} | ${r.wall.toFixed(0)} | ${r.perHour.toFixed(0)} | ${r.overlapping} / ${r.builds} | ${r.most} | ${r.staleness.toFixed(2)} | ${r.load} |`,
  );
for (const atOnce of atOnces) {
  const of = results.filter((r) => r.atOnce === atOnce);
  const meanOf = (key) => mean(of.map((r) => r[key]));
  console.log(
    `builds_at_once ${atOnce}: mean ${meanOf("perHour").toFixed(0)} games per hour, ${meanOf("wall").toFixed(0)} s per run, mean staleness ${meanOf("staleness").toFixed(2)}`,
  );
}
log(`files in ${dir}`);
// The workers would keep this script alive: stopped, it ends (and stops its database on the way out).
for (const child of children) child.kill("SIGTERM");
