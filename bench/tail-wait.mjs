#!/usr/bin/env node
// Tail wait in build mode (not a test): a discrete-event simulation of W game slots playing one
// iteration after another, for the old batch rows (every claim least(batch_size, remaining):
// fixed rows of batch_size) and src/spsa/batch-plan.ts's shrinking rows. Needs `npm run build`.
//
// Model. Slots belong to workers of -c 2 (W / 2 processes), as src/worker/worker.ts: a worker
// claims the next row (in order) whenever its pending games (queued + playing) are ≤ its
// concurrency, and its free slots take its queued games. A game lasts a duration drawn from
// GAME_SECONDS below; an iteration ends when its last game ends, and the next one starts
// REBUILD_SECONDS later (both plus and minus rebuilt in parallel). Claim round trips (about
// 1 ms, docs/benchmarks.md) are counted, not timed.
// Printed: claims per iteration, the idle share of slot time at iteration ends (a slot with
// nothing left to play before its iteration's last game ends; the rebuild gap is the same for
// every policy and is left out), and games per hour; mean ± sd over seeds.
//
// GAME_SECONDS: 80 games of minnow against itself (engines/minnow, release build) at 10–30 ms
// per move (drawn per game), the default adjudication, the project's runner at -c 2, margin
// 1 s so the loaded machine caused no time forfeits (`node bench/tail-wait.mjs --measure 80`),
// measured on 2026-11-25 on the 2-core machine shared with other jobs, load average 7–9:
// mean 4.25 s, sd 3.49 s, median 3.13 s, p90 9.29 s, max 18.51 s, 0 to 159 plies. A second
// measurement at load average 13–20 gave mean 7.23 s, sd 5.70 s: the load stretches every game
// alike, and the tail depends on the spread relative to the mean (sd/mean 0.82 and 0.79).
// REBUILD_SECONDS: minnow's idle gap between iterations, 0.44–0.67 s (docs/benchmarks.md,
// "Tuning run"); a large engine's rebuild is 35 s (rusty-rival), which lowers games per hour
// for every policy alike and does not change the tail.
//   node bench/tail-wait.mjs [--seeds 8] [--iterations 40] [--slots 2,8,16,64] [--games 64,256] [--batch 8]
// With --in-flight: build mode's iterations in flight against the barrier (simulateInFlight below),
// builds of --build seconds (0.6: minnow; 35: a large engine) on a master of --cores cores,
// idle share of all slot time:
//   node bench/tail-wait.mjs --in-flight [--build 0.6,35] [--slots 2,8,16,64] [--games 64] [--cores 2,8,16,32]
//     [--staleness 0,1,2,4,8] [--bounds 6,16] [--demand 2.04]
// (--staleness: fixed bounds, each always used in full, one build at a time; --bounds: the
// master's choice, src/spsa/in-flight.ts, under each bound, one build at a time as before and
// side by side, as many at once as buildsAtOnce chooses for the cores). --demand: the cores an
// iteration's build asks, its plus and minus at once: each is a release rebuild with lto = true and
// codegen-units = 1, one rustc whose mean runnable threads were 1.01 (minnow) and 1.02
// (chess_inator) over its wall time (bench/build-profile.mjs, docs/in-flight.md "The builds").
//   node bench/tail-wait.mjs --measure 80 [--engine engines/minnow/target/release/minnow]
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { planBatchSizes } from "../dist/spsa/batch-plan.js";
import { allowedStaleness, buildsAtOnce } from "../dist/spsa/in-flight.js";
import { createRng } from "../dist/core/rng.js";
import { mean, median, quantile, sd } from "./bench-stats.mjs";

const GAME_SECONDS = [
  0.83, 3.28, 4.39, 2.84, 1.21, 0.72, 2.24, 2.63, 1.95, 1.01, 3.13, 3.19, 4.25, 2.11, 0.23, 3.5, 2.6, 4.04, 0.73, 1.8,
  3.06, 1.72, 1.3, 1.83, 4.17, 2.14, 2.31, 2.69, 3.01, 3.77, 4.17, 2.82, 3.89, 2.46, 2.04, 3.42, 3.63, 2.84, 3.23, 2.64,
  2.05, 5.04, 1.6, 2.55, 2.23, 2.1, 4.92, 5.07, 9.29, 10.92, 7.66, 17.87, 11.79, 6.83, 5.57, 7.72, 8.61, 9.53, 7.08,
  4.86, 8.5, 10.14, 5.66, 8.9, 18.51, 8.7, 9.52, 2.15, 1.99, 4.89, 2.59, 3.9, 0.92, 1.85, 3.24, 0.84, 1.75, 2.77, 2.7,
  3.51,
];
const REBUILD_SECONDS = 0.6;
const PER_WORKER = 2;

const { values } = parseArgs({
  options: {
    seeds: { type: "string", default: "8" },
    iterations: { type: "string", default: "40" },
    slots: { type: "string", default: "2,8,16,64" },
    games: { type: "string", default: "64,256" },
    batch: { type: "string", default: "8" },
    measure: { type: "string" },
    engine: { type: "string", default: ".spsa-test/minnow-target/release/minnow" },
    "in-flight": { type: "boolean", default: false },
    build: { type: "string", default: "0.6,35" },
    staleness: { type: "string", default: "0" },
    demand: { type: "string", default: String(2 * 1.02) },
    bounds: { type: "string", default: "6,16" },
    cores: { type: "string", default: "2,8,16,32" },
  },
});

/** Plays `games` games of the engine against itself at 10–30 ms per move on two slots; prints each game's seconds. */
async function measure(games, path) {
  const { createRunner } = await import("../dist/play/runner.js");
  const { defaultBookPath, loadBook, pickOpening } = await import("../dist/play/book.js");
  const book = loadBook(defaultBookPath());
  const rng = createRng("tail-wait");
  const runner = createRunner({ concurrency: 2, timeMarginMs: 1000 });
  const seconds = [];
  let left = games;
  const slot = async () => {
    while (left-- > 0) {
      const movetimeMs = 10 + Math.floor(rng.next() * 21);
      const started = performance.now();
      await runner.playGame({
        white: { name: "a", path },
        black: { name: "b", path },
        opening: pickOpening(book, rng),
        limits: { movetimeMs },
      });
      seconds.push(Number(((performance.now() - started) / 1000).toFixed(2)));
    }
  };
  await Promise.all([slot(), slot()]);
  await runner.close();
  console.log(JSON.stringify(seconds));
  console.error(summary(seconds));
}

function summary(xs) {
  return `${xs.length} games: mean ${mean(xs).toFixed(2)} s, sd ${sd(xs).toFixed(2)} s, median ${median(xs)}, p90 ${quantile(xs, 0.9)}, max ${Math.max(...xs)}`;
}

// Rows per policy, and whether a worker claims while its pending games are ≤ its concurrency
// (today's worker: one row ahead, to hide the claim) or only when a slot is free (< concurrency).
// "factoring" is the alternative planBatchSizes was chosen against: rows of half its size.
const factoring = (games, batch, slots) => {
  const sizes = [];
  for (let pairs = games / 2; pairs > 0; pairs -= sizes.at(-1) / 2)
    sizes.push(2 * Math.min(Math.floor(batch / 2), pairs, Math.ceil(pairs / (2 * slots))));
  return sizes;
};
const POLICIES = {
  old: {
    rows: (games, batch) =>
      Array.from({ length: Math.ceil(games / batch) }, (_, i) => Math.min(batch, games - i * batch)),
    ahead: true,
  },
  new: { rows: (games, batch, slots) => planBatchSizes(games, batch, slots), ahead: true },
  "factoring (rows of half the new size)": { rows: factoring, ahead: true },
  "new, slots unknown (0)": { rows: (games, batch) => planBatchSizes(games, batch, 0), ahead: true },
  "new, claim for a free slot only": {
    rows: (games, batch, slots) => planBatchSizes(games, batch, slots),
    ahead: false,
  },
  "bound: one game per claim, for a free slot": { rows: (games) => Array(games).fill(1), ahead: false },
};

/**
 * One run of `iterations` iterations: claims, and slot-seconds idle inside iterations. Within an
 * iteration a slot idles only when every row is claimed and its worker has nothing queued, so all
 * of it is tail wait (slots that got no game at all included).
 */
function simulate(plan, ahead, slots, iterations, rng) {
  const concurrency = Math.min(PER_WORKER, slots);
  const workers = Array.from({ length: Math.ceil(slots / concurrency) }, () => ({ queued: 0, playing: 0 }));
  let now = 0;
  let idle = 0;
  let claims = 0;
  let games = 0;
  for (let k = 0; k < iterations; k++) {
    const rows = [...plan];
    const started = now;
    let busy = 0;
    // Game ends as [time, worker]; a sorted array is enough at these sizes.
    const running = [];
    const fill = (w) => {
      const worker = workers[w];
      while (worker.queued + worker.playing < concurrency + (ahead ? 1 : 0) && rows.length > 0) {
        worker.queued += rows.shift();
        claims++;
      }
      while (worker.playing < concurrency && worker.queued > 0) {
        const seconds = GAME_SECONDS[Math.floor(rng.next() * GAME_SECONDS.length)];
        worker.queued--;
        worker.playing++;
        busy += seconds;
        games++;
        running.push([now + seconds, w]);
      }
    };
    workers.forEach((_, w) => fill(w));
    while (running.length > 0) {
      running.sort((a, b) => a[0] - b[0]);
      const [end, w] = running.shift();
      now = end;
      workers[w].playing--;
      fill(w);
    }
    idle += slots * (now - started) - busy;
    now += REBUILD_SECONDS;
  }
  return { claims: claims / iterations, idle, games, elapsed: now };
}

/**
 * Iterations in flight (docs/in-flight.md): the master's loop of src/master/build-mode.ts. It
 * opens iteration k when src/spsa/in-flight.ts allows it (staleness within `allowed(slots,
 * buildSeconds)`, counting the iterations being built) and fewer than `atOnce` builds run,
 * building it for `build` seconds on its own; builds share the master's `cores` (each iteration's
 * build asks `demand` cores; more than the cores stretch every build alike). Built iterations
 * open in order; a step is applied once its iteration's games are all in, in order. `blocking`:
 * the master before builds side by side, which did nothing else while it built (one build at a
 * time, steps applied only between builds). Workers claim rows of the oldest open iteration
 * first, with today's claim rule. Idle: all slot time with nothing to play from the first
 * iteration's opening until the last one's, builds included (the barrier's rebuild gap is what
 * iterations in flight hide); the run's first build and its final drain, the same for every
 * policy, are left out.
 */
function simulateInFlight({ games, batch, slots, iterations, allowed, build, cores, demand, atOnce, blocking }, rng) {
  const concurrency = Math.min(PER_WORKER, slots);
  const workers = Array.from({ length: Math.ceil(slots / concurrency) }, () => ({ queued: [], playing: 0 }));
  const open = []; // { k, rows, left }
  const building = []; // { k, left: seconds of building on its own, started, done }, in iteration order
  let now = 0;
  let played = 0;
  let latest = 0;
  let drawn = 0;
  let applied = 0;
  let staleness = 0;
  let lastBuild; // wall seconds of the last build, what the master measures
  let mostAtOnce = 0;
  const running = [];
  const fill = (w) => {
    const worker = workers[w];
    while (worker.queued.length + worker.playing < concurrency + 1) {
      const it = open.find((o) => o.rows.length > 0);
      if (!it) break;
      const size = it.rows.shift();
      for (let g = 0; g < size; g++) worker.queued.push(it);
    }
    while (worker.playing < concurrency && worker.queued.length > 0) {
      const it = worker.queued.shift();
      const seconds = GAME_SECONDS[Math.floor(rng.next() * GAME_SECONDS.length)];
      worker.playing++;
      played++;
      running.push([now + seconds, w, it]);
    }
  };
  const inProgress = () => building.filter((b) => !b.done);
  // Each build's progress per second: all of it while the builds ask no more than the cores.
  const speed = () => Math.min(1, cores / Math.max(1, inProgress().length * demand));
  const master = () => {
    while (building[0]?.done) {
      building.shift();
      latest++;
      open.push({ k: latest, rows: planBatchSizes(games, batch, slots), left: games });
      workers.forEach((_, w) => fill(w));
    }
    if (blocking && inProgress().length > 0) return;
    while (open[0] && open[0].left === 0) {
      open.shift();
      applied++;
    }
    while (
      inProgress().length < atOnce &&
      drawn < iterations &&
      drawn - applied <= allowed(slots, lastBuild ?? build)
    ) {
      drawn++;
      staleness += drawn - 1 - applied;
      building.push({ k: drawn, left: build, started: now, done: false });
    }
    mostAtOnce = Math.max(mostAtOnce, inProgress().length);
  };
  // Idle slot time from the first iteration's opening until the last one's: the run's first build
  // and its final drain are the same for every policy (and would weigh with the run's length).
  let idle = 0;
  let steady = 0;
  const advance = (t) => {
    const progress = (t - now) * speed();
    for (const b of inProgress()) b.left -= progress;
    if (latest > 0 && latest < iterations) {
      idle += (slots - running.length) * (t - now);
      steady += t - now;
    }
    now = t;
  };
  master();
  while (inProgress().length > 0 || running.length > 0) {
    running.sort((a, b) => a[0] - b[0]);
    const next = inProgress().reduce((first, b) => (b.left < first.left ? b : first), { left: Infinity });
    const buildEnds = now + next.left / speed();
    if (buildEnds <= (running[0]?.[0] ?? Infinity)) {
      advance(buildEnds);
      next.done = true;
      next.left = 0;
      lastBuild = now - next.started;
    } else {
      const [end, w, it] = running[0];
      advance(end);
      running.shift();
      workers[w].playing--;
      it.left--;
      fill(w);
    }
    master();
  }
  return { idle, steady, games: played, elapsed: now, staleness: staleness / iterations, atOnce: mostAtOnce };
}

const MEAN_GAME_SECONDS = mean(GAME_SECONDS);

/** The master's choice of staleness (src/spsa/in-flight.ts) under `bound`, with the slots' rate known. */
const mastersChoice = (games, bound) => (slots, buildSeconds) =>
  allowedStaleness({
    slots,
    gamesPerIteration: games,
    buildSeconds,
    gamesPerSecond: slots / MEAN_GAME_SECONDS,
    maxStaleness: bound,
  });

/**
 * The scheduling policies compared at a master of `cores` cores: fixed staleness bounds (0: the
 * barrier) and the master's own choice under each bound of --bounds, one build at a time as
 * before (blocking), then side by side (builds_at_once auto: src/spsa/in-flight.ts's buildsAtOnce).
 */
const inFlightPolicies = (games, cores, demand) => {
  const atOnce = buildsAtOnce({ configured: "auto", cores, coresPerBuild: demand });
  const bounds = values.bounds.split(",").filter(Boolean).map(Number);
  return [
    ...values.staleness
      .split(",")
      .filter(Boolean)
      .map(Number)
      .map((d) => ({ name: d === 0 ? "barrier" : `staleness ≤ ${d}`, allowed: () => d, atOnce: 1, blocking: true })),
    ...bounds.map((bound) => ({
      name: `max_staleness ${bound}, one build at a time (before)`,
      allowed: mastersChoice(games, bound),
      atOnce: 1,
      blocking: true,
    })),
    ...bounds.map((bound) => ({
      name: `max_staleness ${bound}, builds side by side`,
      allowed: mastersChoice(games, bound),
      atOnce,
      blocking: false,
    })),
  ];
};

function simulateAllInFlight() {
  const seeds = Number(values.seeds);
  const iterations = Number(values.iterations);
  const batch = Number(values.batch);
  const demand = Number(values.demand);
  console.log(
    `game seconds: ${summary(GAME_SECONDS)}; workers of -c ${PER_WORKER}; batch_size ${batch}; ${iterations} iterations × ${seeds} seeds; an iteration's build asks ${demand} cores`,
  );
  console.log(
    "each cell: mean staleness · idle share (of all slot time from the first iteration's opening to the last one's, builds included, mean ± sd) · games per hour\n",
  );
  const names = inFlightPolicies(64, 2, demand).map((p) => p.name);
  console.log(`| build | slots | games per iteration | master's cores | builds at once | ${names.join(" | ")} |`);
  console.log(`| ---: | ---: | ---: | ---: | ---: | ${names.map(() => "---:").join(" | ")} |`);
  for (const build of values.build.split(",").map(Number)) {
    for (const slots of values.slots.split(",").map(Number)) {
      for (const games of values.games.split(",").map(Number)) {
        for (const cores of values.cores.split(",").map(Number)) {
          const policies = inFlightPolicies(games, cores, demand);
          const cells = policies.map((policy) => {
            const runs = Array.from({ length: seeds }, (_, seed) =>
              simulateInFlight(
                { games, batch, slots, iterations, build, cores, demand, ...policy },
                createRng(`tail-wait:${seed}`),
              ),
            );
            const staleness = runs.reduce((sum, r) => sum + r.staleness, 0) / runs.length;
            const idleShare = runs.map((r) => (100 * r.idle) / (slots * r.steady));
            const perHour = runs.map((r) => (3600 * r.games) / r.elapsed);
            return `${staleness.toFixed(2)} · ${meanSd(idleShare, 1)} % · ${meanSd(perHour, 0).split(" ")[0]}`;
          });
          console.log(
            `| ${build} s | ${slots} | ${games} | ${cores} | ${policies.at(-1).atOnce} | ${cells.join(" | ")} |`,
          );
        }
      }
    }
  }
}

function meanSd(xs, digits) {
  return `${mean(xs).toFixed(digits)} ± ${sd(xs).toFixed(digits)}`;
}

function simulateAll() {
  const seeds = Number(values.seeds);
  const iterations = Number(values.iterations);
  const batch = Number(values.batch);
  console.log(
    `game seconds: ${summary(GAME_SECONDS)}; rebuild ${REBUILD_SECONDS} s; workers of -c ${PER_WORKER}; batch_size ${batch}; ${iterations} iterations × ${seeds} seeds\n`,
  );
  console.log(
    "| slots | games per iteration | rows | claims per iteration | idle share at iteration ends | games per hour |",
  );
  console.log("| ---: | ---: | --- | ---: | ---: | ---: |");
  for (const slots of values.slots.split(",").map(Number)) {
    for (const games of values.games.split(",").map(Number)) {
      for (const [name, { rows, ahead }] of Object.entries(POLICIES)) {
        const runs = Array.from({ length: seeds }, (_, seed) =>
          simulate(rows(games, batch, slots), ahead, slots, iterations, createRng(`tail-wait:${seed}`)),
        );
        const idleShare = runs.map((r) => (100 * r.idle) / (slots * r.elapsed));
        const perHour = runs.map((r) => (3600 * r.games) / r.elapsed);
        console.log(
          `| ${slots} | ${games} | ${name} | ${runs[0].claims} | ${meanSd(idleShare, 1)} % | ${meanSd(perHour, 0)} |`,
        );
      }
    }
  }
}

if (values.measure) await measure(Number(values.measure), values.engine);
else if (values["in-flight"]) simulateAllInFlight();
else simulateAll();
