#!/usr/bin/env -S npx tsx
// Large tunes side by side (not a test): the same engine, minnow with 10,000 extra spin options
// the search never reads (test/support/extra-options-engine.ts), tuned in UCI-option mode at
// --sizes parameters each (10 / 1,000 / 10,000 by default), then a build-mode run on a constants
// file with --build-literals extra literals. Needs `npm run build` and cargo; runs under tsx (the
// engine helper is a test fixture). Every run is in a database of its own on the embedded server
// (or next to DATABASE_URL's), dropped afterwards unless --keep. For each size it prints:
//   master CPU per applied batch: the master process's user + system CPU from its first applied
//     batch on (/proc, then its own `--import` hook at exit, bench/cpu-at-exit.mjs) over the
//     batches it applied meanwhile (its start, migrations and first draws left out);
//   row bytes per batch: the run's spsa_perturbation and spsa_batch rows (pg_column_size, so
//     after compression, TOAST included) over its batches, and the database's growth per batch
//     over the same span as the CPU (pg_database_size: rows, indexes, dead rows not reused yet);
//   `spsa status` and `spsa status --json`: wall and CPU time (median of 3) and bytes, at the run's end;
//   the dashboard's run page: bytes of its first load and of each refresh while the run plays
//     (the page's own requests: a refresh is the request app.js makes on a notification);
//   worker games/min: one `compete --spsa -c N` from its first claim to its last report;
//   setoption: N `setoption` lines and `isready` sent to one engine process, all values new.
// Build mode: the time to rewrite the constants file for plus and minus (src/rust-constants),
// and the bytes of an iteration's row, for a short run (2 iterations of 16 games).
// --together plays every size's run at once (each its master and worker), so that all see the
// same load on a shared machine, then measures each in turn.
//   npx tsx bench/large-tunes.mjs [--sizes 10,1000,10000] [--games 320] [--nodes 500] [-c 2] [--together]
//     [--build-literals 1000] [--minnow engines/minnow] [--keep] [--profile DIR: the master's and the worker's CPU profiles there]
/* global fetch */
import { Buffer } from "node:buffer";
import { spawn, spawnSync } from "node:child_process";
import { setTimeout as sleep } from "node:timers/promises";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { performance } from "node:perf_hooks";
import { applyMigrations, connect, resolveDatabaseUrl } from "../dist/postgres/connection.js";
import { buildExtraOptionsEngine, extraOptionParams } from "../test/support/extra-options-engine.ts";
import { EngineProcess } from "../dist/play/engine-process.js";
import { loadParams } from "../dist/params/params.js";
import { targetsOf } from "../dist/engine-build/engine-builder.js";
import { rewriteConstants } from "../dist/rust-constants/rewriter.js";
import { median } from "./bench-stats.mjs";

const { values } = parseArgs({
  options: {
    sizes: { type: "string", default: "10,1000,10000" },
    games: { type: "string", default: "320" },
    nodes: { type: "string", default: "500" },
    concurrency: { type: "string", short: "c", default: "2" },
    "build-literals": { type: "string", default: "1000" },
    minnow: { type: "string" },
    keep: { type: "boolean", default: false },
    profile: { type: "string" },
    together: { type: "boolean", default: false },
  },
});
const root = new URL("..", import.meta.url).pathname;
const sizes = values.sizes.split(",").map(Number);
const folder = join(tmpdir(), "spsa-large-bench");
mkdirSync(folder, { recursive: true });
const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;

const engine = await buildExtraOptionsEngine(folder, Math.max(...sizes), values.minnow && resolve(values.minnow));
console.log(
  `engine: ${engine.binary} (minnow + ${Math.max(...sizes)} spin options); load ${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")}`,
);

const { url: serverUrl } = await resolveDatabaseUrl({});
const admin = connect(serverUrl, 1);
const rows = [];
try {
  if (values.together) {
    // Side by side: every size's run at once, under the same load, then each measured in turn.
    const played = await Promise.all(sizes.map((size) => playRun(size)));
    for (const run of played) rows.push(await measureRun(run));
  } else {
    for (const size of sizes) rows.push(await measureRun(await playRun(size)));
  }
  console.log(
    "\n| parameters | master CPU per applied batch | row bytes per batch | database growth per batch | status: wall (CPU) / text | status --json | dashboard: first load / per refresh | worker games/min | setoption: N lines + isready | load |",
  );
  console.log("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
  const timed = (c) => `${c.ms.toFixed(0)} ms (${c.cpuMs.toFixed(0)} ms) / ${kb(c.bytes)}`;
  for (const r of rows)
    console.log(
      `| ${r.size} | ${r.cpuPerBatch.toFixed(0)} ms | ${kb(r.rowBytes)} | ${kb(r.growth)} | ${timed(r.status)} | ${timed(r.json)} | ${kb(r.firstLoad)} / ${r.refreshes.length === 0 ? "-" : `${kb(median(r.refreshes))} (max ${kb(Math.max(...r.refreshes))}, ${r.refreshes.length} refreshes)`} | ${r.gamesPerMinute.toFixed(0)} | ${r.setoption.toFixed(1)} ms | ${r.load} |`,
    );
  await buildModeRun(Number(values["build-literals"]));
} finally {
  await admin.end();
}

/** A database of its own for one run: its URL, and how to drop it (unless --keep). */
async function runDatabase(name) {
  await admin.unsafe(`drop database if exists ${name} with (force)`);
  await admin.unsafe(`create database ${name}`);
  const parsed = new URL(serverUrl);
  parsed.pathname = `/${name}`;
  const url = parsed.toString();
  await applyMigrations(url);
  return { url, drop: async () => values.keep || (await admin.unsafe(`drop database if exists ${name} with (force)`)) };
}

/** A database of its own for `body`, dropped afterwards unless --keep. */
async function withDatabase(name, body) {
  const database = await runDatabase(name);
  try {
    return await body(database.url);
  } finally {
    await database.drop();
  }
}

function writeRunFiles(dir, { size, mode, games, batches, crate }) {
  mkdirSync(dir, { recursive: true });
  const config = join(dir, "config.toml");
  const params = join(dir, "params.toml");
  writeFileSync(params, extraOptionParams(size));
  const engineSection =
    mode === "options"
      ? `[engine]\nmode = "options"\nbinary = "${engine.binary}"\n`
      : `[build]\nengine_dir = "${crate}"\noutput_dir = "${join(dir, "builds")}"\n`;
  writeFileSync(
    config,
    `[time_control]\nnodes = ${values.nodes}\n[games]\ngames_per_iteration = ${games}\nbatch_size = 8\nlease_seconds = 600\n` +
      `[spsa]\nmax_iterations = ${batches}\nadapt_pilot = 0\n${engineSection}`,
  );
  return { config, params };
}

/** Spawns a CLI; resolves with its exit code and output. */
function run(args, env, onLine) {
  const child = spawn("node", args, { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  const take = (chunk) => {
    output += chunk;
    if (onLine) for (const line of String(chunk).split("\n")) onLine(line);
  };
  child.stdout.on("data", take);
  child.stderr.on("data", take);
  const done = new Promise((resolve) => child.on("exit", (code) => resolve({ code, output })));
  return { child, done };
}

/** One UCI-option run of `size` parameters: master, worker and an open dashboard page, until the master ends. */
async function playRun(size) {
  const database = await runDatabase(`spsa_large_${size}`);
  const env = { DATABASE_URL: database.url };
  const dir = join(folder, `run-${size}`);
  rmSync(dir, { recursive: true, force: true });
  const games = Number(values.games);
  const files = writeRunFiles(dir, { size, mode: "options", games, batches: 1 });
  const sql = connect(database.url, 2);
  const cpuFile = join(dir, "master-cpu.json");
  const workerName = `large-${size}-worker`;
  const profile = values.profile === undefined ? [] : ["--cpu-prof", "--cpu-prof-dir", resolve(values.profile)];
  const worker = run(
    [
      ...profile,
      join(root, "bin/compete.js"),
      "--spsa",
      "-c",
      values.concurrency,
      "--config",
      files.config,
      "--name",
      workerName,
    ],
    env,
  );
  let dashboardUrl;
  const dashboard = run(
    [join(root, "bin/spsa.js"), "--config", files.config, "dashboard", "--port", "0"],
    env,
    (line) => {
      dashboardUrl ??= line.match(/dashboard at (\S+)/)?.[1];
    },
  );
  const master = run(
    [
      ...profile,
      "--import",
      join(root, "bench/cpu-at-exit.mjs"),
      join(root, "bin/spsa.js"),
      "--config",
      files.config,
      "master",
      "--params",
      files.params,
      "--name",
      "large",
    ],
    { ...env, SPSA_CPU_FILE: cpuFile },
  );
  // The dashboard as an open page sees it: a first load once batches are applied, then a refresh per look that finds new ones.
  let firstLoad = 0;
  let refreshUrl;
  let seen = 0;
  const refreshes = [];
  let finished = false;
  master.done.then(() => (finished = true));
  // From the first applied batch on: the master's CPU and the database's size then.
  let start;
  while (!finished) {
    await sleep(2000);
    const [{ applied, size: dbSize }] =
      await sql`select coalesce(max(applied_number), 0)::int as applied, pg_database_size(current_database())::float8 as size from spsa_perturbation`;
    if (applied > 0 && start === undefined && !finished)
      start = { applied, dbSize, cpu: processCpuMicroseconds(master.child.pid) };
    if (dashboardUrl === undefined || applied === seen || finished) continue;
    seen = applied;
    const page = `${dashboardUrl}api/runs/large`;
    const response = await fetch(refreshUrl ?? page);
    const text = await response.text();
    if (!response.ok) throw new Error(`dashboard: ${response.status} ${text.slice(0, 200)}`);
    if (refreshUrl === undefined) firstLoad = Buffer.byteLength(text);
    else refreshes.push(Buffer.byteLength(text));
    refreshUrl = nextRefresh(page, JSON.parse(text), refreshUrl);
  }
  const { code, output } = await master.done;
  if (code !== 0) throw new Error(`master (${size}) failed: ${output.slice(-2000)}`);
  worker.child.kill("SIGTERM");
  await worker.done;
  const cpu = JSON.parse(readFileSync(cpuFile, "utf8"));
  const [counts] = await sql`
    select (select coalesce(max(applied_number), 0) from spsa_perturbation)::int as applied,
      (select coalesce(sum(pg_column_size(p.*)), 0) from spsa_perturbation p)::float8 as perturbations,
      (select coalesce(sum(pg_column_size(b.*)), 0) from spsa_batch b)::float8 as batches,
      pg_database_size(current_database())::float8 as after`;
  const [rate] =
    await sql`select sum(games)::int as games, extract(epoch from max(reported_at) - min(claimed_at))::float8 as seconds from spsa_batch where status = 'done'`;
  await sql.end();
  console.log(
    `${size} parameters: ${counts.applied} batches applied, master ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s CPU, ${rate.games} games in ${rate.seconds.toFixed(0)} s`,
  );
  return {
    size,
    database,
    env,
    files,
    dashboard,
    row: {
      size,
      cpuPerBatch: (cpu.user + cpu.system - start.cpu) / 1000 / (counts.applied - start.applied),
      rowBytes: (counts.perturbations + counts.batches) / counts.applied,
      growth: (counts.after - start.dbSize) / (counts.applied - start.applied),
      firstLoad,
      refreshes,
      gamesPerMinute: (rate.games / rate.seconds) * 60,
      load: readFileSync("/proc/loadavg", "utf8").split(" ")[0],
    },
  };
}

/** After a run: `spsa status` and `--json` timed, the setoption cost of its size; its database dropped. */
async function measureRun({ size, database, env, files, dashboard, row }) {
  try {
    const status = timeCommand([join(root, "bin/spsa.js"), "--config", files.config, "status", "--name", "large"], env);
    const json = timeCommand(
      [join(root, "bin/spsa.js"), "--config", files.config, "status", "--name", "large", "--json"],
      env,
    );
    const measured = { ...row, status, json, setoption: await setoptionCost(size) };
    console.log(`${size} parameters: ${JSON.stringify(measured)}`);
    return measured;
  } finally {
    dashboard.child.kill("SIGTERM");
    await dashboard.done;
    await database.drop();
  }
}

/** A process's user + system CPU so far, in microseconds (/proc/PID/stat, clock ticks of 10 ms). */
function processCpuMicroseconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8")
    .replace(/^.*\) /, "")
    .split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

/**
 * The request the run page makes on a notification (src/dashboard/static/app.js): the same page
 * again (before), or what changed since its cursor for the charts its first load drew.
 */
function nextRefresh(page, body, previous) {
  if (body.cursor === undefined) return page;
  const charts =
    previous === undefined
      ? body.status.parameters.map((p) => `&chart=${encodeURIComponent(p.name)}`).join("")
      : previous.replace(/^[^&]*/, "");
  return `${page}?since=${encodeURIComponent(body.cursor)}${charts}`;
}

/** A command's wall time and CPU time (user + system, from GNU time), median of 3, and the bytes it printed. */
function timeCommand(args, env) {
  const times = [];
  const cpus = [];
  let bytes = 0;
  for (let i = 0; i < 3; i++) {
    const t = performance.now();
    const result = spawnSync("/usr/bin/time", ["-f", "cpu %U %S", "node", ...args], {
      env: { ...process.env, ...env },
      encoding: "utf8",
      maxBuffer: 1 << 30,
    });
    times.push(performance.now() - t);
    if (result.status !== 0) throw new Error(`${args.join(" ")}: ${result.stderr}`);
    const [, user, system] = result.stderr.match(/cpu ([\d.]+) ([\d.]+)\s*$/) ?? [];
    cpus.push((Number(user) + Number(system)) * 1000);
    bytes = Buffer.byteLength(result.stdout);
  }
  return { ms: median(times), cpuMs: median(cpus), bytes };
}

/** N setoption lines (every value new) and isready, on one engine process, as a batch's reconfigure sends them: median of 5. */
async function setoptionCost(size) {
  const options = (round) =>
    Object.fromEntries(Array.from({ length: size }, (_, i) => [`BENCH_EXTRA_${i}`, ((i + round) % 7) - 3]));
  const process = await EngineProcess.start(
    { name: "bench", path: engine.binary, options: options(0) },
    { uciMs: 60_000, readyMs: 600_000, quitMs: 1000 },
  );
  const times = [];
  try {
    for (let round = 1; round <= 5; round++) {
      const t = performance.now();
      await process.reconfigure({ name: "bench", path: engine.binary, options: options(round) });
      times.push(performance.now() - t);
    }
  } finally {
    await process.quit();
  }
  return median(times);
}

/** Build mode on a constants file with `literals` more literals: rewrite time for plus and minus, and an iteration row's bytes. */
async function buildModeRun(literals) {
  const built = await buildExtraOptionsEngine(folder, literals, values.minnow && resolve(values.minnow));
  await withDatabase(`spsa_large_build_${literals}`, async (url) => {
    const dir = join(folder, `build-${literals}`);
    rmSync(dir, { recursive: true, force: true });
    const files = writeRunFiles(dir, { size: literals, mode: "build", games: 16, batches: 2, crate: built.crate });
    const params = loadParams(files.params);
    const source = readFileSync(built.constantsFile, "utf8");
    const assignments = targetsOf(params).map((target) => ({ target, value: 1 }));
    const times = [];
    for (let i = 0; i < 5; i++) {
      const t = performance.now();
      rewriteConstants(source, assignments, built.constantsFile);
      times.push(performance.now() - t);
    }
    const env = { DATABASE_URL: url };
    const worker = run(
      [
        join(root, "bin/compete.js"),
        "--spsa",
        "-c",
        values.concurrency,
        "--config",
        files.config,
        "--name",
        "large-build-worker",
      ],
      env,
    );
    const master = run(
      [
        "--import",
        join(root, "bench/cpu-at-exit.mjs"),
        join(root, "bin/spsa.js"),
        "--config",
        files.config,
        "master",
        "--params",
        files.params,
        "--name",
        "large-build",
      ],
      { ...env, SPSA_CPU_FILE: join(dir, "master-cpu.json") },
    );
    const { code, output } = await master.done;
    worker.child.kill("SIGTERM");
    await worker.done;
    if (code !== 0) throw new Error(`build-mode master failed: ${output.slice(-2000)}`);
    const sql = connect(url, 1);
    const [row] =
      await sql`select count(*)::int as iterations, avg(pg_column_size(i.*))::float8 as bytes from spsa_iteration i`;
    await sql.end();
    console.log(
      `\nbuild mode, ${params.length} parameters on a constants file of ${source.length} characters: rewrite ${median(times).toFixed(1)} ms per engine (median of 5); ` +
        `${row.iterations} iterations, ${kb(row.bytes)} per iteration row`,
    );
  });
}
