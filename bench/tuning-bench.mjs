#!/usr/bin/env node
// Tuning-run benchmark (not a test). Needs `npm run build` first. Measures, on the
// embedded database (or DATABASE_URL):
//   1. claim and report round-trip latency (200 batches);
//   2. a real tuning run of engines/minnow (master + one worker at -c 2): the idle gap
//      between iterations (last game of k to first game of k+1) and how much of it is cargo;
//   3. games per hour of that run against `compete` match mode playing the same number of
//      games with the same binaries, time per move and concurrency.
//   node bench/tuning-bench.mjs [--iterations 4] [--games 32] [--timelow 0.02] [--timehigh 0.05]
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync, copyFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { performance } from "node:perf_hooks";
import { openDatabase } from "../dist/postgres/connection.js";
import { claimBatch, reportBatch } from "../dist/db/batches.js";
import { claimWorkerName } from "../dist/db/workers.js";
import { insertIteration } from "../dist/db/iterations.js";
import { openRun } from "../dist/db/runs.js";
import { storedRunConfig } from "../dist/config/secrets.js";
import { settingsOf } from "../dist/config/iteration-settings.js";
import { noFaults } from "../dist/play/faults.js";
import { loadConfig } from "../dist/config/config.js";
import { median, quantile } from "./bench-stats.mjs";

const { values } = parseArgs({
  options: {
    iterations: { type: "string", default: "4" },
    games: { type: "string", default: "32" },
    timelow: { type: "string", default: "0.02" },
    timehigh: { type: "string", default: "0.05" },
  },
});
const root = new URL("..", import.meta.url).pathname;
const stats = (xs) =>
  `median ${median(xs).toFixed(2)} ms, p90 ${quantile(xs, 0.9).toFixed(2)} ms, p99 ${quantile(xs, 0.99).toFixed(2)} ms, max ${Math.max(...xs).toFixed(2)} ms`;

// 1. Claim / report round trips.
const database = await openDatabase({});
const runName = `bench-claims-${Date.now()}`;
const { run } = await openRun(database.sql, {
  name: runName,
  fresh: false,
  config: storedRunConfig(loadConfig(join(root, "config.toml"))),
  values: { X: 1 },
});
const fake = { path: "/nonexistent", sha256: "0".repeat(64), signature: null };
await insertIteration(database.sql, {
  runId: run.id,
  iterationNumber: 1,
  plus: fake,
  minus: fake,
  timelowMs: 1,
  timehighMs: 1,
  targetGames: 400,
  batchSizes: Array(200).fill(2),
  ck: 1,
  ak: 1,
  base: { X: 1 },
  plusValues: { X: 1 },
  minusValues: { X: 1 },
  signs: { X: 1 },
  settings: settingsOf(loadConfig(join(root, "config.toml")), []),
});
await claimWorkerName(
  database.sql,
  { name: "bench", sessionId: "bench", host: "bench", pid: null, concurrency: 1 },
  () => false,
);
const claims = [];
const reports = [];
for (;;) {
  let t = performance.now();
  const batch = await claimBatch(database.sql, "bench", 2);
  if (!batch) break;
  claims.push(performance.now() - t);
  t = performance.now();
  await reportBatch(database.sql, {
    batchId: batch.batchId,
    workerName: "bench",
    wins: 1,
    losses: 0,
    draws: 1,
    pairs: [0, 0, 0, 1, 0],
    faults: [noFaults(), noFaults()],
    replays: 0,
    replayLimitPairs: 0,
  });
  reports.push(performance.now() - t);
}
await database.sql`update spsa_run set status = 'complete' where id = ${run.id}`;
console.log(`claim  round trip (${claims.length}): ${stats(claims)}`);
console.log(`report round trip (${reports.length}): ${stats(reports)}`);

// 2. A real tuning run.
const dir = mkdtempSync(join(tmpdir(), "spsa-bench-"));
const configFile = join(dir, "config.toml");
const paramsFile = join(dir, "params.toml");
copyFileSync(join(root, "params.toml"), paramsFile);
writeFileSync(
  configFile,
  `[time_control]\ntimelow = ${values.timelow}\ntimehigh = ${values.timehigh}\nmargin_ms = 100\n` +
    `[games]\ngames_per_iteration = ${values.games}\nbatch_size = 8\n[spsa]\nmax_iterations = ${values.iterations}\n` +
    `[build]\nengine_dir = "${join(root, "engines/minnow")}"\noutput_dir = "${join(dir, "builds")}"\n[database]\npoll_interval = 0.2\n`,
);
const name = `bench-${Date.now()}`;
const started = performance.now();
const worker = spawn(
  "node",
  [join(root, "bin/compete.js"), "--spsa", "-c", "2", "--config", configFile, "--name", `${name}-worker`],
  { stdio: "ignore" },
);
// The master logs to stderr.
const masterLog = spawnSync(
  "node",
  [join(root, "bin/spsa.js"), "--config", configFile, "master", "--params", paramsFile, "--name", name],
  { encoding: "utf8" },
).stderr;
const runSeconds = (performance.now() - started) / 1000;
worker.kill("SIGTERM");
const rows = await database.sql`
  select i.iteration_number as k, i.created_at, i.completed_at, i.games_played,
    (select min(claimed_at) from spsa_batch b where b.iteration_id = i.id) as first_claim,
    (select max(reported_at) from spsa_batch b where b.iteration_id = i.id) as last_report
  from spsa_iteration i join spsa_run r on r.id = i.run_id where r.name = ${name} order by k`;
const built = [...masterLog.matchAll(/engines built in ([\d.]+)s/g)].map((m) => Number(m[1]));
const gaps = [];
for (let i = 1; i < rows.length; i++) {
  const gap = (rows[i].first_claim - rows[i - 1].last_report) / 1000;
  gaps.push(gap);
  console.log(
    `gap ${rows[i - 1].k}->${rows[i].k}: ${gap.toFixed(2)} s (cargo build ${built[i]?.toFixed(2) ?? "?"} s, ` +
      `complete ${((rows[i - 1].completed_at - rows[i - 1].last_report) / 1000).toFixed(2)} s, ` +
      `pickup ${((rows[i].first_claim - rows[i].created_at) / 1000).toFixed(2)} s)`,
  );
}
const games = rows.reduce((sum, r) => sum + r.games_played, 0);
const tuningPerHour = (games / runSeconds) * 3600;
console.log(
  `tuning run: ${games} games in ${runSeconds.toFixed(1)} s (first build ${built[0]?.toFixed(2)} s): ${tuningPerHour.toFixed(0)} games/hour`,
);
const [binaries] =
  await database.sql`select plus_engine_path, minus_engine_path from spsa_iteration i join spsa_run r on r.id = i.run_id where r.name = ${name} order by i.iteration_number limit 1`;
await database.close();

// 3. The same games through compete match mode.
const matchStart = performance.now();
execFileSync(
  "node",
  [
    join(root, "bin/compete.js"),
    binaries.plus_engine_path,
    binaries.minus_engine_path,
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
const matchSeconds = (performance.now() - matchStart) / 1000;
const matchPerHour = (games / matchSeconds) * 3600;
console.log(`compete match: ${games} games in ${matchSeconds.toFixed(1)} s: ${matchPerHour.toFixed(0)} games/hour`);
console.log(
  `tuning run / match mode: ${((100 * tuningPerHour) / matchPerHour).toFixed(1)} %` +
    ` (idle gaps ${gaps.reduce((a, b) => a + b, 0).toFixed(1)} s of ${runSeconds.toFixed(1)} s)`,
);
