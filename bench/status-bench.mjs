#!/usr/bin/env -S npx tsx
// `spsa status` on a long run (not a test). Needs `npm run build` first (the commands it times).
// Runs under tsx: the synthetic run is a test fixture (test/support/). Writes a synthetic
// run of --iterations iterations (the master's math on drawn game results, the repository's
// params.toml and config.toml, 8-game batches) into a database of its own on the embedded
// server (or next to DATABASE_URL's), then times:
//   1. the status queries in process (readRunStatus), and the dashboard's run page
//      (readRunDetail), median and max of --repeat;
//   2. the `spsa status` and `spsa status --json` commands as processes, wall time, next
//      to `spsa --version` (node starting and loading the CLI, no database);
// and drops the database. --options: a UCI-option run of the same games instead, its carrier
// iteration and one applied spsa_perturbation row per 8-game batch, reported a second apart.
//   npx tsx bench/status-bench.mjs [--iterations 10000] [--repeat 20] [--options]
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { performance } from "node:perf_hooks";
import { applyMigrations, connect, resolveDatabaseUrl } from "../dist/postgres/connection.js";
import { findRun } from "../dist/db/run-status.js";
import { writeSyntheticRun } from "../test/support/synthetic-run.ts";
import { loadConfig } from "../dist/config/config.js";
import { loadParams } from "../dist/params/params.js";
import { readRunStatus } from "../dist/status/snapshot.js";
import { readRunDetail } from "../dist/dashboard/run-detail.js";
import { writeSyntheticOptionRun } from "../test/support/synthetic-option-run.ts";
import { median } from "./bench-stats.mjs";

const { values } = parseArgs({
  options: {
    iterations: { type: "string", default: "10000" },
    repeat: { type: "string", default: "20" },
    options: { type: "boolean", default: false },
  },
});
const iterations = Number(values.iterations);
const repeat = Number(values.repeat);
const root = new URL("..", import.meta.url).pathname;
const ms = (x) => `${x.toFixed(1)} ms`;
const summary = (xs) => `median ${ms(median(xs))}, max ${ms(Math.max(...xs))}`;

const { url: serverUrl } = await resolveDatabaseUrl({});
const name = `spsa_status_bench_${process.pid}`;
// connect(), not postgres(): the embedded server's URL names its socket folder in the query.
const admin = connect(serverUrl, 1);
await admin.unsafe(`create database ${name}`);
const parsed = new URL(serverUrl);
parsed.pathname = `/${name}`;
const url = parsed.toString();
try {
  await applyMigrations(url);
  const sql = connect(url, 4);
  const params = loadParams(join(root, "params.toml"));
  let t = performance.now();
  const config = loadConfig(join(root, "config.toml"));
  if (values.options) {
    const batches = (iterations * config.games.gamesPerIteration) / config.games.batchSize;
    const wins = Array.from({ length: batches }, (_, i) => (i * 7) % 3);
    await writeSyntheticOptionRun(sql, {
      name: "long",
      config,
      params,
      workerName: "bench-worker",
      wins,
      startedAt: new Date(Date.now() - batches * 1000),
      batchSeconds: 1,
      slots: 1,
    });
  } else
    await writeSyntheticRun(sql, { name: "long", config, params, iterations, open: true, workerName: "bench-worker" });
  await sql`analyze`;
  console.log(
    `synthetic ${values.options ? "UCI-option run" : "run"}: ${iterations} iterations' games × ${params.length} parameters written in ${((performance.now() - t) / 1000).toFixed(1)} s`,
  );
  const [size] =
    await sql`select pg_size_pretty(pg_total_relation_size('spsa_iteration')) as iterations, pg_size_pretty(pg_total_relation_size('spsa_batch')) as batches,
    (select count(*) from spsa_batch)::int as batch_rows, pg_size_pretty(pg_total_relation_size('spsa_perturbation')) as perturbations`;
  console.log(
    `tables: spsa_iteration ${size.iterations}, spsa_batch ${size.batches} (${size.batch_rows} batches), spsa_perturbation ${size.perturbations}`,
  );

  const run = await findRun(sql, "long");
  const times = [];
  for (let i = 0; i < repeat; i++) {
    t = performance.now();
    await readRunStatus(sql, run, { samples: 24 });
    times.push(performance.now() - t);
  }
  console.log(`readRunStatus (24 history points), ${repeat} times: ${summary(times)}`);
  const dashboardTimes = [];
  for (let i = 0; i < repeat; i++) {
    t = performance.now();
    await readRunDetail(sql, run);
    dashboardTimes.push(performance.now() - t);
  }
  console.log(
    `readRunDetail (the dashboard's run page: 400 points per chart), ${repeat} times: ${summary(dashboardTimes)}`,
  );
  await sql.end();

  for (const args of [["--version"], ["status", "--name", "long"], ["status", "--name", "long", "--json"]]) {
    const wall = [];
    for (let i = 0; i < 5; i++) {
      t = performance.now();
      execFileSync("node", [join(root, "bin", "spsa.js"), ...args], {
        env: { ...process.env, DATABASE_URL: url },
        stdio: "pipe",
      });
      wall.push(performance.now() - t);
    }
    console.log(`spsa ${args.join(" ")} as a process, 5 times: ${summary(wall)}`);
  }
} finally {
  await admin.unsafe(`drop database if exists ${name} with (force)`);
  await admin.end();
}
