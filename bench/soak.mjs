#!/usr/bin/env node
// Soak benchmark (not a test; docs/soak.md): a compressed long run that shows what grows with a
// run's length. Needs `npm run build` and cargo. A real `spsa master` and a real `compete --spsa`
// worker, separate processes, tune minnow (engines/minnow, the repository's params.toml and
// config.toml's [spsa] section) at a node limit on an embedded Postgres of their own ($SPSA_HOME in
// a temp folder: its own server, database, signing key and engine cache), a fresh run of
// --iterations iterations (--mode options: a UCI-option run of the same games, counted in 8-game
// batches). `spsa dashboard` runs beside them with one live page open (/events), as a browser tab
// left open would. Every --every iterations (batches) it samples:
//   the database (pg_database_size) and each table (pg_total_relation_size: indexes and toast too);
//   the master's output_dir and the worker's engine cache (bytes of distinct files, files);
//   the RSS, open descriptors and child processes of the master, the worker and the dashboard;
//   `spsa status --name RUN` and `--json`: wall time and output bytes;
//   the dashboard's run page as a browser loads it (/run/RUN, its stylesheet and scripts,
//   /api/runs/RUN): bytes and wall time;
// and once more after the master has exited (the run complete). It prints the samples and each
// metric's growth per iteration: the least-squares slope over the samples from --warmup on,
// flagged as a bug when bytes grow by more than 16 KiB per iteration, when an RSS grows steadily
// (4 MiB or more over the samples, R² ≥ 0.5) or descriptors or child processes pile up; a timed
// command that gets steadily slower (by half or more over the samples) or a payload that grows
// by more than 1 KiB per iteration is marked for a look. Then the warnings and errors of the
// processes' logs. Everything it started is stopped (by PID), its server stopped and its data and
// temp folder deleted, however it ends (Ctrl-C, a failure); `--logs DIR` keeps the logs there.
//   node bench/soak.mjs [--mode build|options] [--iterations 400] [--every 20] [--warmup 40]
//     [--nodes 400] [--games 8] [-c 1] [--stall 300] [--logs DIR] [--json]
// --json prints the samples, the fits and the log findings as JSON on stdout (progress on stderr).
/* global AbortController */
import { Buffer } from "node:buffer";
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { get } from "node:http";
import {
  closeSync,
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { loadParams } from "../dist/params/params.js";
import { spsaSection, writeRunConfig } from "./tuning-kit.mjs";

const { values: opts } = parseArgs({
  options: {
    mode: { type: "string", default: "build" },
    iterations: { type: "string", default: "400" },
    every: { type: "string", default: "20" },
    warmup: { type: "string" },
    nodes: { type: "string", default: "400" },
    games: { type: "string", default: "8" },
    concurrency: { type: "string", short: "c" },
    stall: { type: "string", default: "300" },
    logs: { type: "string" },
    json: { type: "boolean", default: false },
  },
});

/** A whole number ≥ min from a flag, or one line naming the flag and exit status 2. */
function count(flag, min = 1) {
  const text = opts[flag];
  const value = Number(text);
  if (!/^\d+$/.test(text ?? "") || value < min) {
    console.error(`--${flag}: expected a whole number ≥ ${min}, got ${JSON.stringify(text)}`);
    process.exit(2);
  }
  return value;
}
if (opts.mode !== "build" && opts.mode !== "options") {
  console.error(`--mode: expected build or options, got ${JSON.stringify(opts.mode)}`);
  process.exit(2);
}
const optionsMode = opts.mode === "options";
const BATCH = 8; // games per claim, tuning-kit's config
const games = count("games", 2);
if (games % BATCH !== 0) {
  console.error(`--games: expected a multiple of ${BATCH} (the batch size), got ${games}`);
  process.exit(2);
}
const iterations = count("iterations", 2);
const every = count("every");
// Options mode: the same games (iterations × games), counted in batches.
const target = optionsMode ? (iterations * games) / BATCH : iterations;
const unit = optionsMode ? "batch" : "iteration";
const warmup = opts.warmup === undefined ? Math.min(2 * every, Math.floor(target / 4)) : count("warmup", 0);
const nodes = count("nodes");
// Build mode leaves a core to the master's cargo builds; options mode builds once.
opts.concurrency ??= optionsMode ? "2" : "1";
const concurrency = count("concurrency");
const stallSeconds = count("stall");

/** Growth per iteration (batch) above which bytes are a bug: more than a small row's worth. */
const BUG_BYTES = 16 * 1024;
/** A payload (status output, the page) growing faster than this is marked for a look. */
const LOOK_BYTES = 1024;
/** An RSS growing this much over the samples, steadily (R² ≥ STEADY), is a bug. */
const BUG_RSS = 4 * 1024 * 1024;
/** Descriptors or child processes piling up by this many over the samples, steadily. */
const BUG_COUNT = 4;
const STEADY = 0.5;
/** Samples after the warm-up a verdict needs: three points make a line of any noise. */
const MIN_POINTS = 4;
/** Kinds whose fit is worth carrying to 1,000 iterations: what piles up, not what fluctuates. */
const PROJECTED = new Set(["disk", "files", "payload"]);

const root = new URL("..", import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), "spsa-soak-"));
const home = join(dir, "home");
// Every child and every dist module reads it: the embedded server, key and cache of this folder.
process.env.SPSA_HOME = home;
// A database of its own, always: never a DATABASE_URL's, whose runs a worker here would play.
delete process.env.DATABASE_URL;
const outputDir = join(dir, "builds");
const cacheDir = join(home, "engine-cache");
const runName = `soak-${opts.mode}`;
const started = performance.now();
const minutes = () => (performance.now() - started) / 60000;
const log = (line) => console.error(`[${minutes().toFixed(1)} min] ${line}`);

// ---- what it starts, and how it all stops ----------------------------------------------------

/** name → child process (master, worker, dashboard), each with `exited`: a promise of its end. */
const children = new Map();
const stop = new AbortController();
let db;
let server;
let interrupted;

function start(name, bin, args, env = process.env) {
  const fd = openSync(join(dir, `${name}.log`), "a");
  const child = spawn(process.execPath, [join(root, "bin", bin), ...args], { stdio: ["ignore", fd, fd], env });
  closeSync(fd);
  child.exited = new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  children.set(name, child);
  return child;
}

const running = (child) => child.exitCode === null && child.signalCode === null;

/** The start time of process `pid` (field 22 of /proc/pid/stat), to tell it from a later process of that PID. */
function startTimeOf(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
  } catch {
    return undefined;
  }
}

/** Every live process's parent, from /proc. */
function parents() {
  const parent = new Map();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      parent.set(Number(entry), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // Ended meanwhile.
    }
  }
  return parent;
}

/** The processes below `pid` (engines, cargo), with their start times. */
function descendantsOf(pid, parent) {
  const found = [];
  const below = [pid];
  while (below.length > 0) {
    const up = below.pop();
    for (const [child, of] of parent)
      if (of === up) {
        found.push({ pid: child, start: startTimeOf(child) });
        below.push(child);
      }
  }
  return found;
}

let cleaning;
function cleanup() {
  cleaning ??= (async () => {
    stop.abort();
    await db?.end({ timeout: 5 }).catch(() => {});
    const live = [...children.values()].filter(running);
    const table = parents();
    const below = live.flatMap((child) => descendantsOf(child.pid, table));
    for (const child of live) child.kill("SIGTERM");
    const allEnded = Promise.all(live.map((child) => child.exited));
    if ((await Promise.race([allEnded.then(() => true), sleep(20_000).then(() => false)])) === false) {
      for (const child of live.filter(running)) {
        log(
          `${[...children].find(([, c]) => c === child)[0]} (pid ${child.pid}) still running 20 s after SIGTERM: SIGKILL`,
        );
        child.kill("SIGKILL");
      }
      await allEnded;
    }
    // Engines or cargo left by a child: ours, if the PID still has the start time we saw. The master
    // stops its cargo on exit, which takes rustc a moment: 3 s before anything left counts.
    const leftOver = () => below.filter(({ pid, start }) => start !== undefined && startTimeOf(pid) === start);
    for (let waited = 0; waited < 30 && leftOver().length > 0; waited++) await sleep(100);
    for (const { pid } of leftOver()) {
      try {
        log(`pid ${pid} (${readFileSync(`/proc/${pid}/comm`, "utf8").trim()}) outlived its parent by 3 s: SIGKILL`);
        process.kill(pid, "SIGKILL");
      } catch {
        // Ended meanwhile.
      }
    }
    if (existsSync(join(home, "pg", "connection.json"))) {
      const stopped = spawnSync(process.execPath, [join(root, "bin/spsa.js"), "db", "stop"], { encoding: "utf8" });
      if (stopped.status !== 0) log(`spsa db stop: exit ${stopped.status}: ${stopped.stderr.trim()}`);
    }
    removeServerFolders();
    if (opts.logs !== undefined) {
      mkdirSync(opts.logs, { recursive: true });
      for (const name of children.keys())
        copyFileSync(join(dir, `${name}.log`), join(opts.logs, `${runName}-${name}.log`));
    }
    rmSync(dir, { recursive: true, force: true });
  })();
  return cleaning;
}

/**
 * As root the server's files are in a folder of the server's user under /var/tmp (and /tmp for a
 * socket whose path is too long): removed by that user, never by root by path inside its folder.
 */
function removeServerFolders() {
  if (server === undefined || !server.outsideHome) return;
  for (const folder of new Set([server.serverDir, server.socketDir])) {
    if (!existsSync(folder)) continue;
    const removed = spawnSync("rm", ["-rf", "--", folder], {
      uid: server.user.uid,
      gid: server.user.gid,
      encoding: "utf8",
    });
    if (removed.status !== 0) log(`could not remove ${folder}: ${removed.stderr.trim()}`);
  }
}

for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(signal, () => {
    if (interrupted !== undefined) return;
    interrupted = signal;
    log(`${signal}: stopping what the soak started`);
    stop.abort();
  });
}

// ---- samples ---------------------------------------------------------------------------------

/** Bytes and count of the distinct files under `path` (cargo hard-links a binary into target/: counted once). */
function usage(path) {
  const seen = new Set();
  let bytes = 0;
  const walk = (folder) => {
    let entries;
    try {
      entries = readdirSync(folder, { withFileTypes: true });
    } catch {
      return; // Not made yet, or removed meanwhile.
    }
    for (const entry of entries) {
      const file = join(folder, entry.name);
      if (entry.isDirectory()) walk(file);
      else if (entry.isFile()) {
        try {
          const stat = lstatSync(file);
          if (seen.has(`${stat.dev}:${stat.ino}`)) continue;
          seen.add(`${stat.dev}:${stat.ino}`);
          bytes += stat.size;
        } catch {
          // Removed meanwhile.
        }
      }
    }
  };
  walk(path);
  return { bytes, files: seen.size };
}

/** RSS (bytes), open descriptors, threads and child processes of a live child; nulls once it has ended. */
function processStats(child, table) {
  const none = { rss: null, fds: null, threads: null, children: null };
  if (child === undefined || !running(child)) return none;
  try {
    const status = readFileSync(`/proc/${child.pid}/status`, "utf8");
    const field = (name) => Number(status.match(new RegExp(`^${name}:\\s+(\\d+)`, "m"))[1]);
    return {
      rss: field("VmRSS") * 1024,
      fds: readdirSync(`/proc/${child.pid}/fd`).length,
      threads: field("Threads"),
      children: [...table.values()].filter((of) => of === child.pid).length,
    };
  } catch {
    return none;
  }
}

/** `spsa status --name RUN [--json]`: wall time (ms) and output bytes, and the output. */
function timeStatus(json) {
  const t = performance.now();
  const result = spawnSync(
    process.execPath,
    [join(root, "bin/spsa.js"), "status", "--name", runName, ...(json ? ["--json"] : [])],
    { encoding: "utf8" },
  );
  const ms = performance.now() - t;
  if (result.status !== 0)
    throw new Error(`spsa status${json ? " --json" : ""} exited ${result.status}: ${result.stderr.trim()}`);
  return { ms, bytes: Buffer.byteLength(result.stdout), output: result.stdout };
}

let dashboard;

/**
 * GET `path` of the dashboard on a connection of its own: none is kept alive, since the status
 * commands (spawnSync) stall this process past the server's keep-alive timeout, and a reused
 * connection the server has closed meanwhile fails the request. The body is left to read.
 */
function request(path) {
  return new Promise((resolve, reject) => {
    get(`${dashboard.url}${path}`, { headers: dashboard.headers, agent: false, signal: stop.signal }, resolve).once(
      "error",
      reject,
    );
  });
}

/** What a browser loading the run page fetches (but the event stream, open all along): bytes and wall time. */
async function loadRunPage() {
  const t = performance.now();
  let bytes = 0;
  let apiBytes = 0;
  for (const path of [
    `run/${encodeURIComponent(runName)}`,
    "static/style.css",
    "static/app.js",
    "static/charts.js",
    `api/runs/${encodeURIComponent(runName)}`,
  ]) {
    const response = await request(path);
    const chunks = [];
    for await (const chunk of response) chunks.push(chunk);
    const body = Buffer.concat(chunks);
    if (response.statusCode !== 200)
      throw new Error(`dashboard /${path}: ${response.statusCode} ${body.toString().trim()}`);
    bytes += body.length;
    if (path.startsWith("api/")) apiBytes = body.length;
  }
  return { ms: performance.now() - t, bytes, apiBytes };
}

/** Every metric the tables and the fits know: its label and kind (what counts as a bug). */
const METRICS = [
  { key: "database", label: "database (pg_database_size)", kind: "disk" },
  { key: "outputDir", label: "master output_dir", kind: "disk" },
  { key: "outputFiles", label: "master output_dir files", kind: "files" },
  { key: "engineCache", label: "worker engine cache", kind: "disk" },
  { key: "cacheFiles", label: "worker engine cache files", kind: "files" },
  { key: "masterRss", label: "master RSS", kind: "rss" },
  { key: "workerRss", label: "worker RSS", kind: "rss" },
  { key: "dashboardRss", label: "dashboard RSS", kind: "rss" },
  { key: "masterFds", label: "master open descriptors", kind: "count" },
  { key: "workerFds", label: "worker open descriptors", kind: "count" },
  { key: "dashboardFds", label: "dashboard open descriptors", kind: "count" },
  { key: "masterChildren", label: "master child processes", kind: "count" },
  { key: "workerChildren", label: "worker child processes", kind: "count" },
  { key: "connections", label: "database connections", kind: "count" },
  { key: "msPerUnit", label: `wall time per ${unit} (since the last sample)`, kind: "ms" },
  { key: "statusMs", label: "spsa status wall time", kind: "ms" },
  { key: "statusBytes", label: "spsa status output", kind: "payload" },
  { key: "statusJsonMs", label: "spsa status --json wall time", kind: "ms" },
  { key: "statusJsonBytes", label: "spsa status --json output", kind: "payload" },
  { key: "pageMs", label: "dashboard run page wall time", kind: "ms" },
  { key: "pageBytes", label: "dashboard run page bytes", kind: "payload" },
  { key: "apiBytes", label: "dashboard /api/runs/RUN bytes", kind: "payload" },
];
const tableMetric = (name) => ({ key: `table:${name}`, label: name, kind: "disk" });

/** What the open page received: events by name (a browser reads the run again after each), and bytes. */
const events = { progress: 0, iteration: 0, bytes: 0 };
const samples = [];

async function sample(done, label) {
  const [{ database }] = await db`select pg_database_size(current_database())::float8 as database`;
  const tables = await db`
    select c.relname as name, pg_total_relation_size(c.oid)::float8 as bytes
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where c.relkind in ('r', 'p') and n.nspname = 'public' order by c.relname`;
  const rows = {};
  for (const { name } of tables) {
    const [counted] = await db.unsafe(`select count(*)::int as rows from "${name}"`);
    rows[name] = counted.rows;
  }
  const [{ connections }] =
    await db`select count(*)::int as connections from pg_stat_activity where datname = current_database()`;
  const output = usage(outputDir);
  const cache = usage(cacheDir);
  const table = parents();
  const [master, worker, dash] = ["master", "worker", "dashboard"].map((name) =>
    processStats(children.get(name), table),
  );
  const status = timeStatus(false);
  const statusJson = timeStatus(true);
  const page = await loadRunPage();
  const run = JSON.parse(statusJson.output);
  const previous = samples.at(-1);
  const values = {
    database,
    outputDir: output.bytes,
    outputFiles: output.files,
    engineCache: cache.bytes,
    cacheFiles: cache.files,
    masterRss: master.rss,
    workerRss: worker.rss,
    dashboardRss: dash.rss,
    masterFds: master.fds,
    workerFds: worker.fds,
    dashboardFds: dash.fds,
    masterChildren: master.children,
    workerChildren: worker.children,
    connections,
    msPerUnit:
      previous === undefined || done === previous.done
        ? null
        : (60000 * (minutes() - previous.minutes)) / (done - previous.done),
    statusMs: status.ms,
    statusBytes: status.bytes,
    statusJsonMs: statusJson.ms,
    statusJsonBytes: statusJson.bytes,
    pageMs: page.ms,
    pageBytes: page.bytes,
    apiBytes: page.apiBytes,
    ...Object.fromEntries(tables.map((t) => [`table:${t.name}`, t.bytes])),
  };
  const row = {
    done,
    label,
    minutes: minutes(),
    load: loadavg()[0],
    games: run.games?.total ?? null,
    faults: run.faults ?? null,
    delays: run.delays ?? null,
    events: { ...events },
    rows,
    values,
  };
  samples.push(row);
  log(
    `${unit} ${done}/${target}${label ? ` (${label})` : ""}: database ${show("disk", database)}, output_dir ${show("disk", output.bytes)}, cache ${show("disk", cache.bytes)}, ` +
      `RSS master ${show("rss", master.rss)} worker ${show("rss", worker.rss)} dashboard ${show("rss", dash.rss)}, status ${status.ms.toFixed(0)} ms, page ${page.ms.toFixed(0)} ms, load ${row.load.toFixed(1)}`,
  );
  return row;
}

// ---- the run ---------------------------------------------------------------------------------

/** Iterations complete (build mode) or batches applied to θ (options mode). */
async function progress() {
  const [row] = optionsMode
    ? await db`select count(p.applied_number)::int as done from spsa_perturbation p join spsa_run r on r.id = p.run_id where r.name = ${runName}`
    : await db`select count(*) filter (where i.status = 'complete')::int as done from spsa_iteration i join spsa_run r on r.id = i.run_id where r.name = ${runName}`;
  return row?.done ?? 0;
}

/** The repository's params.toml, each parameter naming its UCI option (minnow holds a float as a spin of value × 100). */
function optionParams() {
  let text = readFileSync(join(root, "params.toml"), "utf8");
  for (const p of loadParams(join(root, "params.toml"))) {
    const keys = p.type === "float" ? `option = "${p.name}_X100"\noption_scale = 100\n` : `option = "${p.name}"\n`;
    text = text.replace(new RegExp(`^\\[${p.name}\\]\\n`, "m"), (header) => header + keys);
  }
  return text;
}

/** The log text matching /url/: "dashboard at http://…/". */
async function waitForLine(name, pattern, seconds) {
  for (let waited = 0; waited < seconds * 10; waited++) {
    const match = readFileSync(join(dir, `${name}.log`), "utf8").match(pattern);
    if (match) return match;
    if (!running(children.get(name)))
      throw new Error(
        `${name} exited before it printed ${pattern}: ${readFileSync(join(dir, `${name}.log`), "utf8").trim()}`,
      );
    await sleep(100, undefined, { signal: stop.signal });
  }
  throw new Error(`${name} printed no ${pattern} in ${seconds} s`);
}

/** An open live page: the dashboard's event stream, read until the soak stops (events and bytes counted). */
async function followEvents() {
  const response = await request("events");
  if (response.statusCode !== 200) throw new Error(`dashboard /events: ${response.statusCode}`);
  for await (const chunk of response) {
    events.bytes += chunk.length;
    for (const [, name] of chunk.toString().matchAll(/^event: (\w+)/gm)) events[name] = (events[name] ?? 0) + 1;
  }
}

async function soak() {
  const configFile = join(dir, "config.toml");
  const paramsFile = join(dir, "params.toml");
  writeRunConfig(configFile, { root, dir, spsa: spsaSection(root, iterations), games, nodes, margin: 300 });
  if (optionsMode) writeFileSync(configFile, `${readFileSync(configFile, "utf8")}[engine]\nmode = "options"\n`);
  writeFileSync(paramsFile, optionsMode ? optionParams() : readFileSync(join(root, "params.toml"), "utf8"));
  log(
    `soak of a ${opts.mode}-mode run: ${target} ${unit === "batch" ? "batches" : "iterations"} (${iterations} × ${games} games at ${nodes} nodes per move), ` +
      `a sample every ${every}, fits from ${warmup}; worker -c ${concurrency}; ${cpus().length} cores, load ${loadavg()
        .map((l) => l.toFixed(1))
        .join(" ")}; folder ${dir}`,
  );

  // The server first, alone: the three processes below would otherwise race to initialise it.
  const dbStart = spawnSync(process.execPath, [join(root, "bin/spsa.js"), "db", "start"], { encoding: "utf8" });
  if (dbStart.status !== 0) throw new Error(`spsa db start exited ${dbStart.status}: ${dbStart.stderr.trim()}`);
  // Loaded only now, with $SPSA_HOME set: nothing of the database's is read before.
  const { embeddedServer, embeddedEndpoint } = await import("../dist/postgres/embedded.js");
  const { serverUser } = await import("../dist/postgres/run-as.js");
  const embedded = embeddedServer(home);
  server = { ...embedded, socketDir: embeddedEndpoint(embedded).socketDir, user: serverUser() };
  const { openDatabase } = await import("../dist/postgres/connection.js");
  const database = await openDatabase({ max: 2, applicationName: "soak" });
  db = database.sql;

  const master = start("master", "spsa.js", [
    "--config",
    configFile,
    "master",
    "--params",
    paramsFile,
    "--name",
    runName,
  ]);
  const worker = start("worker", "compete.js", [
    "--spsa",
    "-c",
    String(concurrency),
    "--config",
    configFile,
    "--name",
    `${runName}-worker`,
  ]);
  // The token only in the dashboard's environment (docs/dashboard-security.md); requests send it as a bearer.
  const token = randomBytes(16).toString("hex");
  start("dashboard", "spsa.js", ["dashboard", "--port", "0"], { ...process.env, SPSA_DASHBOARD_TOKEN: token });
  const [, url] = await waitForLine("dashboard", /dashboard at (http:\/\/\S+\/) /, 60);
  dashboard = { url, headers: { authorization: `Bearer ${token}` } };
  followEvents().catch((error) => {
    if (!stop.signal.aborted) log(`the dashboard's event stream ended: ${error.message}`);
  });
  log(`master pid ${master.pid}, worker pid ${worker.pid}, dashboard pid ${children.get("dashboard").pid} at ${url}`);

  let next = every;
  let last = { done: -1, at: performance.now() };
  for (;;) {
    if (interrupted !== undefined) throw new Error(`stopped by ${interrupted}`);
    if (!running(master)) break;
    if (!running(worker))
      throw new Error(`the worker exited (${JSON.stringify(await worker.exited)}) while the master ran`);
    const done = await progress();
    if (done !== last.done) last = { done, at: performance.now() };
    else if (performance.now() - last.at > stallSeconds * 1000)
      throw new Error(`no ${unit} done for ${stallSeconds} s (stuck at ${done}); see the logs`);
    if (done >= next) {
      await sample(done);
      while (next <= done) next += every;
    }
    await sleep(500, undefined, { signal: stop.signal }).catch(() => {});
  }
  const ended = await master.exited;
  const done = await progress();
  if (ended.code !== 0) log(`the master exited ${JSON.stringify(ended)} at ${done} of ${target}`);
  // After the run: what a finished run leaves behind (its master gone, the worker idle).
  await sample(done, "run over");
  return ended.code === 0 && done >= target;
}

// ---- the report ------------------------------------------------------------------------------

/** Bytes for the growth column: "1.27 MB", "12.4 KB", "310 B". */
function size(bytes) {
  const sign = bytes < 0 ? "-" : "";
  const b = Math.abs(bytes);
  if (b >= 1048576) return `${sign}${(b / 1048576).toFixed(2)} MB`;
  if (b >= 1024) return `${sign}${(b / 1024).toFixed(1)} KB`;
  return `${sign}${b.toFixed(0)} B`;
}

function show(kind, value) {
  if (value === null || value === undefined) return "–";
  if (kind === "disk" || kind === "rss" || kind === "payload") return size(value);
  if (kind === "ms") return `${value.toFixed(0)} ms`;
  return Number.isInteger(value) ? String(value) : value.toFixed(2);
}

/** Least squares of y on x: slope, intercept and R² (null when y does not vary). */
function fit(points) {
  const n = points.length;
  if (n < 2) return undefined;
  const mx = points.reduce((s, p) => s + p.x, 0) / n;
  const my = points.reduce((s, p) => s + p.y, 0) / n;
  let sxx = 0;
  let sxy = 0;
  let syy = 0;
  for (const { x, y } of points) {
    sxx += (x - mx) ** 2;
    sxy += (x - mx) * (y - my);
    syy += (y - my) ** 2;
  }
  if (sxx === 0) return undefined;
  const slope = sxy / sxx;
  return { slope, intercept: my - slope * mx, r2: syy === 0 ? null : (sxy * sxy) / (sxx * syy) };
}

/**
 * The verdict on a metric's fit over [from, to] (in iterations or batches). `late` is the fit of
 * the last half of the samples: what grew and then levelled off (a chart reaching its 400 points,
 * a heap sized to it) is not steady growth, unless it is disk, where every byte counts.
 */
function verdict(kind, f, late, from, to, points) {
  if (f === undefined) return "";
  if (points < MIN_POINTS) return `(${points} samples: too few to judge)`;
  const growth = f.slope * (to - from);
  const steady = f.r2 !== null && f.r2 >= STEADY && late !== undefined && late.slope >= f.slope / 2;
  const levelled =
    f.r2 !== null && f.r2 >= STEADY && !steady && f.slope > 0
      ? `grew, then levelled off (last half ${formatSlope(kind, late?.slope)}/${unit})`
      : "";
  if (kind === "disk") return f.slope > BUG_BYTES ? `BUG: > ${size(BUG_BYTES)}/${unit}` : "";
  if (kind === "rss")
    return growth >= BUG_RSS && steady
      ? `BUG: steady growth, ${size(growth)} over the samples`
      : growth >= BUG_RSS
        ? levelled
        : "";
  if (kind === "count")
    return growth >= BUG_COUNT && steady ? `BUG: piles up, +${growth.toFixed(0)} over the samples` : "";
  if (kind === "files") return growth >= BUG_COUNT && steady ? "grows (see the bytes)" : "";
  if (kind === "payload")
    return f.slope > BUG_BYTES
      ? `BUG: > ${size(BUG_BYTES)}/${unit}`
      : f.slope > LOOK_BYTES && steady
        ? `look: > ${size(LOOK_BYTES)}/${unit}`
        : f.slope > LOOK_BYTES
          ? levelled
          : "";
  const start = f.intercept + f.slope * from;
  return growth >= 0.5 * start && steady
    ? `look: ${((100 * growth) / start).toFixed(0)} % slower over the samples`
    : "";
}

/** A slope in its metric's unit: bytes, ms, or a count. */
function formatSlope(kind, slope) {
  if (slope === null || slope === undefined) return "–";
  if (kind === "ms") return `${slope.toFixed(2)} ms`;
  return ["disk", "rss", "payload"].includes(kind) ? size(slope) : slope.toFixed(3);
}

function growthRows() {
  const during = samples.filter((s) => s.label === undefined && s.done >= warmup);
  const tables = Object.keys(samples.at(-1)?.values ?? {})
    .filter((k) => k.startsWith("table:"))
    .map((k) => tableMetric(k.slice(6)));
  const from = during[0]?.done;
  const to = during.at(-1)?.done;
  return [...METRICS.slice(0, 1), ...tables, ...METRICS.slice(1)].map((m) => {
    const points = during
      .filter((s) => s.values[m.key] !== null && s.values[m.key] !== undefined)
      .map((s) => ({ x: s.done, y: s.values[m.key] }));
    const f = fit(points);
    const late = fit(points.filter((p) => p.x >= (from + to) / 2));
    return {
      ...m,
      first: samples[0]?.values[m.key] ?? null,
      last: during.at(-1)?.values[m.key] ?? null,
      runOver: samples.at(-1)?.label ? samples.at(-1).values[m.key] : null,
      slope: f?.slope ?? null,
      r2: f?.r2 ?? null,
      lateSlope: late?.slope ?? null,
      at1000: f === undefined || !PROJECTED.has(m.kind) ? null : f.intercept + f.slope * 1000,
      verdict: verdict(m.kind, f, late, from, to, points.length),
    };
  });
}

function printTable(headers, rows) {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells) =>
    cells
      .map((c, i) =>
        i === 0 || /^[\d.–-]/.test(String(c)) ? String(c).padStart(widths[i]) : String(c).padEnd(widths[i]),
      )
      .join("  ");
  console.log(line(headers));
  for (const row of rows) console.log(line(row));
}

/** Warning and error lines of a process's log, numbers folded, most frequent first. */
function findings(name) {
  const file = join(dir, `${name}.log`);
  if (!existsSync(file)) return [];
  const counts = new Map();
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (!/warning|error|unexpected|fail|fault|crash|refus|retry|lost/i.test(line)) continue;
    const shape = line.replace(/\d+(\.\d+)?/g, "#").slice(0, 200);
    const seen = counts.get(shape) ?? { count: 0, example: line.slice(0, 300) };
    seen.count++;
    counts.set(shape, seen);
  }
  return [...counts.values()].sort((a, b) => b.count - a.count);
}

function report(ok, failure) {
  const growth = growthRows();
  const logs = Object.fromEntries([...children.keys()].map((name) => [name, findings(name)]));
  const load = {
    start: samples[0]?.load ?? null,
    end: loadavg()[0],
    max: samples.length === 0 ? null : Math.max(...samples.map((s) => s.load)),
  };
  if (opts.json) {
    console.log(
      JSON.stringify(
        {
          mode: opts.mode,
          unit,
          target,
          iterations,
          games,
          nodes,
          every,
          warmup,
          concurrency,
          cores: cpus().length,
          ok,
          failure: failure ?? null,
          load,
          samples,
          growth,
          logs,
        },
        null,
        2,
      ),
    );
    return;
  }
  const main = [
    "database",
    "outputDir",
    "engineCache",
    "masterRss",
    "workerRss",
    "dashboardRss",
    "statusMs",
    "statusBytes",
    "statusJsonMs",
    "statusJsonBytes",
    "pageMs",
    "apiBytes",
  ];
  const kinds = Object.fromEntries(METRICS.map((m) => [m.key, m.kind]));
  console.log(
    `\nsoak of a ${opts.mode}-mode run of minnow at ${nodes} nodes per move, ${games} games per iteration, worker -c ${concurrency}, ${cpus().length} cores; ` +
      (samples.length === 0
        ? `load average ${load.end.toFixed(1)} at the end; no sample taken\n`
        : `load average ${load.start.toFixed(1)} at the first sample, ${load.max.toFixed(1)} at most, ${load.end.toFixed(1)} at the end\n`),
  );
  printTable(
    [
      unit,
      "min",
      "load",
      "games",
      "database",
      "output_dir",
      "cache",
      "RSS master",
      "worker",
      "dashboard",
      "status",
      "bytes",
      "--json",
      "bytes",
      "page",
      "api bytes",
    ],
    samples.map((s) => [
      s.label ? `${s.done} (${s.label})` : s.done,
      s.minutes.toFixed(1),
      s.load.toFixed(1),
      s.games ?? "–",
      ...main.map((k) => show(kinds[k], s.values[k])),
    ]),
  );
  const tables = Object.keys(samples.at(-1)?.values ?? {}).filter(
    (k) => k.startsWith("table:") && samples.some((s) => s.values[k] !== samples[0].values[k]),
  );
  console.log("\ntables that changed (pg_total_relation_size; rows at the end)");
  printTable(
    [unit, ...tables.map((k) => `${k.slice(6).replace(/^spsa_/, "")} (${samples.at(-1).rows[k.slice(6)]})`)],
    samples.map((s) => [s.label ? `${s.done} (${s.label})` : s.done, ...tables.map((k) => size(s.values[k]))]),
  );
  console.log(`\ngrowth per ${unit} (least squares over the samples from ${unit} ${warmup} on)`);
  printTable(
    ["metric", "first", "last", `per ${unit}`, "R²", "last half", `fitted at 1,000`, "run over", "verdict"],
    growth.map((g) => [
      g.label,
      show(g.kind, g.first),
      show(g.kind, g.last),
      formatSlope(g.kind, g.slope),
      g.r2 === null ? "–" : g.r2.toFixed(2),
      formatSlope(g.kind, g.lateSlope),
      show(g.kind, g.at1000),
      show(g.kind, g.runOver),
      g.verdict,
    ]),
  );
  const last = samples.at(-1);
  if (last)
    console.log(
      `\nthe run: ${last.games} games, ${last.faults ?? "?"} engine faults, delays ${JSON.stringify(last.delays)}; the open page got ${last.events.progress} progress and ` +
        `${last.events.iteration} iteration events (${size(last.events.bytes)}; a browser reads /api/runs/RUN again after each, one read at a time)`,
    );
  for (const [name, lines] of Object.entries(logs)) {
    console.log(
      `\n${name} log: ${lines.length === 0 ? "no warning or error" : `${lines.reduce((s, l) => s + l.count, 0)} warning/error lines`}`,
    );
    for (const l of lines.slice(0, 8)) console.log(`  ${String(l.count).padStart(5)} × ${l.example}`);
  }
  if (!ok) console.log(`\nthe soak did not finish: ${failure}`);
}

process.on("uncaughtException", (error) => {
  log(`unexpected: ${error.stack ?? error}`);
  cleanup().finally(() => process.exit(1));
});

let ok = false;
let failure;
try {
  ok = await soak();
  if (!ok) failure = "the master did not complete the run";
} catch (error) {
  failure = error.message;
  log(`failed: ${error.message}`);
} finally {
  try {
    report(ok, failure);
  } finally {
    await cleanup();
  }
}
process.exit(interrupted !== undefined ? 130 : ok ? 0 : 1);
