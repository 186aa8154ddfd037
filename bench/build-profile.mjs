#!/usr/bin/env node
// The CPU profile of an engine's release rebuild (not a test): what the master's builds ask of
// its cores, for how many iterations it builds side by side (docs/in-flight.md, "The builds").
//
// Copies the crate at --engine into a temp folder (its own target folder), builds it once with
// the release profile of a large engine (lto = true, codegen-units = 1, no incremental: Rusty
// Rival's and akimbo's; `--profile as-is` keeps the crate's own), then rebuilds it --rebuilds
// times, touching --touch before each as the master's rewrite of the constants file does.
// Every --sample ms it reads the build's processes from /proc (cargo and its descendants):
//   - busy: the cores they used since the last sample (utime + stime ticks / elapsed);
//   - runnable: their threads running or ready to run (state R), the cores the build would
//     use on an idle machine, whatever the machine's load gives it.
// Printed per rebuild: wall, CPU (user + sys of the build's processes, reaped children
// included), CPU / wall, and the share of wall time with 0, 1, 2 and 3+ runnable threads;
// then the mean, and a timeline of the last rebuild (runnable threads in tenths of its wall).
// The machine's load average is printed at the start and the end: on a shared machine the
// wall time stretches with the load, the CPU time and the runnable threads do not.
//   node bench/build-profile.mjs [--engine engines/minnow] [--touch src/engine_constants.rs] [--rebuilds 5]
//     [--profile lto|as-is] [--sample 50]
// Linux only (/proc).
import { spawn } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { clearInterval, setInterval } from "node:timers";
import { parseArgs } from "node:util";
import { performance } from "node:perf_hooks";
import { mean } from "./bench-stats.mjs";

const { values } = parseArgs({
  options: {
    engine: { type: "string", default: "engines/minnow" },
    touch: { type: "string", default: "src/engine_constants.rs" },
    rebuilds: { type: "string", default: "5" },
    profile: { type: "string", default: "lto" },
    sample: { type: "string", default: "50" },
  },
});

const TICKS = 100; // USER_HZ: /proc's clock ticks per second on Linux.
const LTO_PROFILE = {
  CARGO_PROFILE_RELEASE_LTO: "true",
  CARGO_PROFILE_RELEASE_CODEGEN_UNITS: "1",
  CARGO_PROFILE_RELEASE_INCREMENTAL: "false",
};

const dir = mkdtempSync(join(tmpdir(), "spsa-build-profile-"));
process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
const crate = join(dir, "crate");
cpSync(resolve(values.engine), crate, { recursive: true, filter: (path) => !/\/(target|\.git)$/.test(path) });
const env = {
  ...process.env,
  CARGO_TARGET_DIR: join(dir, "target"),
  CARGO_TERM_COLOR: "never",
  ...(values.profile === "lto" ? LTO_PROFILE : {}),
};

/** The /proc stat of a process or thread: [state, ppid, utime + stime ticks], or undefined once gone. */
function stat(path) {
  let text;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
  // The command name may hold spaces and parentheses: the fields follow its last ')'.
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  return {
    state: fields[0],
    ppid: Number(fields[1]),
    ticks: Number(fields[11]) + Number(fields[12]),
    childTicks: Number(fields[13]) + Number(fields[14]),
  };
}

/** cargo and its descendants now, with their threads. */
function buildProcesses(root) {
  const parents = new Map();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const s = stat(`/proc/${name}/stat`);
    if (s) parents.set(Number(name), s.ppid);
  }
  const inBuild = (pid) => {
    for (let p = pid, hops = 0; p > 1 && hops < 64; p = parents.get(p) ?? 0, hops++) if (p === root) return true;
    return false;
  };
  return [...parents.keys()].filter(inBuild);
}

/** One sample: runnable threads of the build, and the CPU ticks of each of its live processes. */
function sample(root) {
  let runnable = 0;
  const ticks = new Map();
  for (const pid of buildProcesses(root)) {
    const own = stat(`/proc/${pid}/stat`);
    if (!own) continue;
    ticks.set(pid, own.ticks);
    let tasks = [];
    try {
      tasks = readdirSync(`/proc/${pid}/task`);
    } catch {
      continue;
    }
    for (const tid of tasks) if (stat(`/proc/${pid}/task/${tid}/stat`)?.state === "R") runnable++;
  }
  return { runnable, ticks };
}

/** This process's reaped children's CPU seconds (cargo, and through it every rustc and linker it waited for). */
function reapedSeconds() {
  const s = stat("/proc/self/stat");
  return s.childTicks / TICKS;
}

async function build(label) {
  const cpuBefore = reapedSeconds();
  const started = performance.now();
  const child = spawn("cargo", ["build", "--release", "--quiet"], {
    cwd: crate,
    env,
    stdio: ["ignore", "ignore", "inherit"],
  });
  const samples = [];
  let last = { at: performance.now(), ticks: new Map() };
  const timer = setInterval(() => {
    const now = performance.now();
    const { runnable, ticks } = sample(child.pid);
    // Cores used since the last sample by processes seen both times (a process that ended in between is counted in CPU, not here).
    let delta = 0;
    for (const [pid, t] of ticks) delta += t - (last.ticks.get(pid) ?? t);
    samples.push({ at: (now - started) / 1000, runnable, busy: delta / TICKS / ((now - last.at) / 1000) });
    last = { at: now, ticks };
  }, Number(values.sample));
  const code = await new Promise((resolveExit) => child.on("exit", resolveExit));
  clearInterval(timer);
  if (code !== 0) throw new Error(`${label}: cargo exited with ${code}`);
  const wall = (performance.now() - started) / 1000;
  const cpu = reapedSeconds() - cpuBefore;
  const share = (test) => (100 * samples.filter(test).length) / Math.max(1, samples.length);
  const meanBusy = samples.length === 0 ? 0 : mean(samples.map((x) => x.busy));
  const meanRunnable = samples.length === 0 ? 0 : mean(samples.map((x) => x.runnable));
  return {
    label,
    wall,
    cpu,
    meanBusy,
    meanRunnable,
    r0: share((s) => s.runnable === 0),
    r1: share((s) => s.runnable === 1),
    r2: share((s) => s.runnable === 2),
    r3: share((s) => s.runnable >= 3),
    samples,
  };
}

const row = (r) =>
  `| ${r.label} | ${r.wall.toFixed(2)} | ${r.cpu.toFixed(2)} | ${(r.cpu / r.wall).toFixed(2)} | ${r.meanRunnable.toFixed(2)} | ${r.r0.toFixed(0)} % | ${r.r1.toFixed(0)} % | ${r.r2.toFixed(0)} % | ${r.r3.toFixed(0)} % |`;

const load = () =>
  loadavg()
    .map((x) => x.toFixed(1))
    .join(" ");
console.log(
  `${values.engine}, profile ${values.profile === "lto" ? "lto = true, codegen-units = 1, incremental = false" : "as in its Cargo.toml"}; load average at the start ${load()}\n`,
);
console.log("| build | wall s | CPU s | CPU / wall | mean runnable threads | 0 runnable | 1 | 2 | 3+ |");
console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
console.log(row(await build("first (cold)")));
const rebuilds = [];
for (let i = 1; i <= Number(values.rebuilds); i++) {
  const now = new Date();
  utimesSync(join(crate, values.touch), now, now);
  const r = await build(`rebuild ${i}`);
  rebuilds.push(r);
  console.log(row(r));
}
const meanOf = (key) => mean(rebuilds.map((r) => r[key]));
console.log(
  row({
    label: "**rebuild, mean**",
    ...Object.fromEntries(["wall", "cpu", "meanRunnable", "r0", "r1", "r2", "r3"].map((k) => [k, meanOf(k)])),
  }),
);
const last = rebuilds.at(-1);
if (last) {
  const tenths = Array.from({ length: 10 }, (_, i) =>
    last.samples.filter((s) => s.at >= (i * last.wall) / 10 && s.at < ((i + 1) * last.wall) / 10),
  );
  const avg = (xs, key) => (xs.length === 0 ? "–" : mean(xs.map((x) => x[key])).toFixed(1));
  console.log(
    `\nlast rebuild, by tenths of its ${last.wall.toFixed(1)} s: runnable threads ${tenths.map((xs) => avg(xs, "runnable")).join(" ")}; cores used ${tenths.map((xs) => avg(xs, "busy")).join(" ")}`,
  );
}
console.log(`load average at the end ${load()}`);
