#!/usr/bin/env node
// Runner overhead benchmark (not a test): an engine against itself at -c 2 in three modes.
// Prints runner CPU per ply, per-move latency (runner-measured minus engine-reported
// time), games per minute and forfeits. Needs `npm run build` first.
//   node bench/runner-bench.mjs [--games 60] [--modes movetime,tc,nodes] [--engine /usr/games/stockfish] [--nodes 2000]
// With FASTCHESS=path/to/fastchess, fastchess then plays the same games (engine, book, limits,
// adjudication, concurrency, count) and its figures are printed beside ours: its own CPU
// (utime + stime of the fastchess process, engines excluded) per ply, from its PGN's PlyCount.
// `--floor` also measures what a bare pipe reader pays per `go` (no runner at all), and what
// one wakeup of this idle Node process costs: on a VM every wakeup costs CPU, and an engine
// flushes each `info` line on its own. No runner can cost less per ply than one wakeup.
// `--again N` plays N more batches of the same size with the same runner and prints their
// figures: a long-running worker's, once the JIT has compiled the hot path.
// `--loop-lag` samples the runner's event-loop delay (10 ms timer: adds a little CPU): when it
// stays small, a forfeit's gap between measured and engine-reported time is not the runner's.
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { clearInterval, setInterval, setTimeout } from "node:timers";
import { parseArgs } from "node:util";
import { monitorEventLoopDelay, performance } from "node:perf_hooks";
import { createRunner } from "../dist/play/runner.js";
import { loadBook, pickOpening } from "../dist/play/book.js";
import { seededRng } from "../dist/core/rng.js";
import { median, quantile } from "./bench-stats.mjs";

const { values } = parseArgs({
  options: {
    games: { type: "string", default: "60" },
    modes: { type: "string", default: "movetime,tc,nodes" },
    engine: { type: "string", default: "/usr/games/stockfish" },
    nodes: { type: "string", default: "2000" },
    // fastchess's own 99 openings, so that both runners draw from the same book.
    book: {
      type: "string",
      default: new URL("../test/fixtures/books/fastchess-openings.epd", import.meta.url).pathname,
    },
    concurrency: { type: "string", default: "2" },
    margin: { type: "string", default: "50" },
    floor: { type: "boolean", default: false },
    "loop-lag": { type: "boolean", default: false },
    // Batches of the same size played after the measured one by the same runner: a worker
    // runs for hours, and its JIT-compiled code is warm after the first batches.
    again: { type: "string", default: "0" },
  },
});
const MODES = {
  movetime: { label: "movetime 50 ms", limits: { movetimeMs: 50 } },
  tc: { label: "tc 1+0.01", limits: { tc: { baseMs: 1000, incMs: 10 } } },
  nodes: { label: `nodes ${values.nodes}`, limits: { nodes: Number(values.nodes) } },
};
const book = loadBook(values.book);
// Absolute: fastchess runs in a folder of its own.
const enginePath = resolve(values.engine);
const engine = (name) => ({ name, path: enginePath, options: { Hash: 16, Threads: 1 } });

const GO = {
  movetime: "go movetime 50",
  tc: "go wtime 1000 btime 1000 winc 10 binc 10",
  nodes: `go nodes ${values.nodes}`,
};
/** fastchess's arguments for the same limits (its margin is `timemargin`). */
const FASTCHESS_LIMITS = { movetime: ["st=0.05"], tc: ["tc=1+0.01"], nodes: [`nodes=${values.nodes}`] };
const ADJUDICATION = [
  "-draw",
  "movenumber=40",
  "movecount=8",
  "score=10",
  "-resign",
  "movecount=4",
  "score=1000",
  "-maxmoves",
  "200",
];

/** CPU per `go` of the least any runner must do: write the command, read the pipe until `bestmove`. */
async function floor(mode, searches = 100) {
  const child = spawn(enginePath, [], { stdio: ["pipe", "pipe", "ignore"] });
  let done;
  child.stdout.on("data", (chunk) => {
    const text = chunk.toString("latin1");
    if (text.includes("bestmove") || text.includes("readyok")) done();
  });
  const send = (command) => new Promise((resolve) => ((done = resolve), child.stdin.write(`${command}\n`)));
  await send("uci\nisready");
  const before = process.cpuUsage();
  for (let i = 0; i < searches; i++) await send(`position startpos moves e2e4 e7e5 g1f3 b8c6\n${GO[mode]}`);
  const cpu = process.cpuUsage(before);
  child.kill();
  return (cpu.user + cpu.system) / 1000 / searches;
}

/** CPU of one wakeup of this process from a 50 ms sleep (an empty timer callback). */
async function wakeCost(wakes = 60) {
  const before = process.cpuUsage();
  for (let i = 0; i < wakes; i++) await new Promise((resolve) => setTimeout(resolve, 50));
  const cpu = process.cpuUsage(before);
  return (cpu.user + cpu.system) / 1000 / wakes;
}

const CLOCK_TICK_MS = 10; // USER_HZ is 100 on Linux
/** utime + stime of one process (its threads included, its children not), in ms. */
function ownCpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "latin1").split(") ")[1].split(" ");
    return (Number(fields[11]) + Number(fields[12])) * CLOCK_TICK_MS;
  } catch {
    return undefined; // exited
  }
}

/**
 * Voluntary context switches of a process's threads, each counted at its last sample: how
 * often they slept and were woken. A thread that exits takes its count with it from /proc,
 * so `seen` keeps every thread's last figure (one that lived less than a sample is missed).
 */
function sampleWakes(pid, seen) {
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      seen.set(
        tid,
        Number(/voluntary_ctxt_switches:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/task/${tid}/status`, "latin1"))[1]),
      );
    }
  } catch {
    // exited, or a thread exited between the listing and the read
  }
}

/** fastchess playing the same games: its own CPU per ply (sampled until it exits) and games per minute. */
async function fastchess(mode) {
  const dir = mkdtempSync(join(tmpdir(), "fastchess-bench-"));
  const pgn = join(dir, "games.pgn");
  const engineArgs = (name) => ["-engine", `cmd=${enginePath}`, `name=${name}`];
  const args = [
    ...engineArgs("sf-a"),
    ...engineArgs("sf-b"),
    "-each",
    "option.Hash=16",
    "option.Threads=1",
    `timemargin=${values.margin}`,
    ...FASTCHESS_LIMITS[mode],
    "-openings",
    `file=${values.book}`,
    "format=epd",
    "order=random",
    "-srand",
    "1",
    "-rounds",
    String(Number(values.games) / 2),
    "-games",
    "2",
    "-repeat",
    "-concurrency",
    values.concurrency,
    ...ADJUDICATION,
    "-pgnout",
    `file=${pgn}`,
    "notation=uci",
  ];
  const started = performance.now();
  // In its own directory: fastchess saves a config.json where it runs.
  const child = spawn(process.env.FASTCHESS, args, { cwd: dir, stdio: ["ignore", "ignore", "inherit"] });
  let cpuMs = 0;
  const threadWakes = new Map();
  const sampler = setInterval(() => {
    cpuMs = ownCpuMs(child.pid) ?? cpuMs;
    sampleWakes(child.pid, threadWakes);
  }, 100);
  const code = await new Promise((resolve) => child.on("exit", resolve));
  clearInterval(sampler);
  const wallMs = performance.now() - started;
  const text = readFileSync(pgn, "latin1");
  rmSync(dir, { recursive: true, force: true });
  if (code !== 0) throw new Error(`fastchess exited with ${code}`);
  const plyCounts = [...text.matchAll(/\[PlyCount "(\d+)"\]/g)].map((match) => Number(match[1]));
  const plies = plyCounts.reduce((sum, count) => sum + count, 0);
  return {
    games: plyCounts.length,
    plies,
    cpuPerPly: cpuMs / plies,
    wakesPerPly: [...threadWakes.values()].reduce((sum, count) => sum + count, 0) / plies,
    gamesPerMin: (plyCounts.length / wallMs) * 60_000,
  };
}

for (const mode of values.modes.split(",")) {
  const { label, limits } = MODES[mode];
  const runner = createRunner({ concurrency: Number(values.concurrency), timeMarginMs: Number(values.margin) });
  const rng = seededRng(`bench-${mode}`);
  const pairs = Number(values.games) / 2;
  const pair = () =>
    runner.playPair({ first: engine("sf-a"), second: engine("sf-b"), opening: pickOpening(book, rng), limits });
  // One pair first, not counted: it starts the four processes (kept for the rest) and warms up the JIT.
  await pair();
  const lag = values["loop-lag"] ? monitorEventLoopDelay({ resolution: 10 }) : undefined;
  lag?.enable();
  const batch = async () => {
    const cpuBefore = process.cpuUsage();
    const wakesBefore = process.resourceUsage().voluntaryContextSwitches;
    const started = performance.now();
    const results = await Promise.all(Array.from({ length: pairs }, pair));
    return {
      results,
      wallMs: performance.now() - started,
      cpu: process.cpuUsage(cpuBefore),
      wakes: process.resourceUsage().voluntaryContextSwitches - wakesBefore,
    };
  };
  const { results, wallMs, cpu, wakes } = await batch();
  lag?.disable();
  const later = [];
  for (let i = 1; i <= Number(values.again); i++) {
    const next = await batch();
    const nextPlies = next.results.flatMap((pair) => pair.games).reduce((sum, game) => sum + game.plies, 0);
    const nextCpu = (next.cpu.user + next.cpu.system) / 1000 / nextPlies;
    later.push(
      `  batch ${i + 1} (same runner): runner CPU per ply ${nextCpu.toFixed(3)} ms, wakes per ply ${(next.wakes / nextPlies).toFixed(2)}, games/min ${((2 * pairs * 60_000) / next.wallMs).toFixed(1)}`,
    );
  }
  await runner.close();

  const games = results.flatMap((pair) => pair.games);
  const plies = games.reduce((sum, game) => sum + game.plies, 0);
  const moves = games.flatMap((game) => game.moves);
  // An answer that was waiting when a quiet spell ended has only an upper bound for its time.
  const waiting = moves.filter((move) => move.answerWasWaiting).length;
  const latencies = moves
    .filter((move) => move.engineTimeMs !== undefined && !move.answerWasWaiting)
    .map((move) => move.elapsedMs - move.engineTimeMs)
    .sort((a, b) => a - b);
  const faults = games.flatMap((game) => [game.faults.white, game.faults.black]).filter((kind) => kind !== "none");
  // A forfeit is the runner's (or the OS's) when the engine's own time was within the allowance.
  const notTheEngines = games.filter(
    (game) => game.timeForfeit && (game.timeForfeit.engineTimeMs ?? Infinity) <= game.timeForfeit.allowedMs,
  );
  const ms = (value) => value.toFixed(2);
  console.log(
    [
      `${label}: ${games.length} games, ${plies} plies, ${ms(wallMs / 1000)} s`,
      `  runner CPU per ply: ${((cpu.user + cpu.system) / 1000 / plies).toFixed(3)} ms (user ${(cpu.user / 1000 / plies).toFixed(3)}, system ${(cpu.system / 1000 / plies).toFixed(3)}), wakes per ply ${(wakes / plies).toFixed(2)}`,
      `  latency (measured - engine time): median ${ms(median(latencies))} ms, p90 ${ms(quantile(latencies, 0.9))} ms, p99 ${ms(quantile(latencies, 0.99))} ms, max ${ms(latencies.at(-1) ?? NaN)} ms${waiting ? ` (${waiting} early answers read after a quiet spell left out)` : ""}`,
      `  games/min: ${((games.length / wallMs) * 60_000).toFixed(1)}`,
      ...later,
      ...(lag
        ? [
            `  event-loop lateness: p50 ${ms(lag.percentile(50) / 1e6 - 10)} ms, p99 ${ms(lag.percentile(99) / 1e6 - 10)} ms, max ${ms(lag.max / 1e6 - 10)} ms`,
          ]
        : []),
      ...(values.floor ? [`  bare pipe reader, CPU per go: ${(await floor(mode)).toFixed(3)} ms`] : []),
      ...(process.env.FASTCHESS
        ? [
            await fastchess(mode).then(
              (theirs) =>
                `  fastchess, same games: ${theirs.games} games, ${theirs.plies} plies, CPU per ply ${theirs.cpuPerPly.toFixed(3)} ms (ours ${((cpu.user + cpu.system) / 1000 / plies).toFixed(3)}), wakes per ply ${theirs.wakesPerPly.toFixed(2)} (ours ${(wakes / plies).toFixed(2)}), games/min ${theirs.gamesPerMin.toFixed(1)} (ours ${((games.length / wallMs) * 60_000).toFixed(1)})`,
            ),
          ]
        : []),
      `  forfeits: ${faults.length}, with the engine's own time within the limit: ${notTheEngines.length}${
        faults.length
          ? ` (${faults.join(", ")}; ${games
              .filter((g) => g.faults.white !== "none" || g.faults.black !== "none")
              .map((g) => g.reason)
              .join("; ")})`
          : ""
      }`,
    ].join("\n"),
  );
}
if (values.floor)
  console.log(`one wakeup of this Node process after 50 ms idle: ${(await wakeCost()).toFixed(3)} ms CPU`);
