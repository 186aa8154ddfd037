#!/usr/bin/env node
// `spsa status` on a long run (not a test). Needs `npm run build` first. Writes a synthetic
// run of --iterations iterations (the master's math on drawn game results, the repository's
// params.toml and config.toml, 8-game batches) into a database of its own on the embedded
// server (or next to DATABASE_URL's), then times:
//   1. the status queries in process (readRunStatus), and the dashboard's run page
//      (readRunDetail), median and max of --repeat;
//   2. the `spsa status` and `spsa status --json` commands as processes, wall time, next
//      to `spsa --version` (node starting and loading the CLI, no database);
// and drops the database. --options: a UCI-option run of the same games instead, its carrier
// iteration and one applied spsa_perturbation row per 8-game batch, planted with SQL.
//   node bench/status-bench.mjs [--iterations 10000] [--repeat 20] [--options]
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { performance } from "node:perf_hooks";
import { applyMigrations, connect, resolveDatabaseUrl } from "../dist/db/connection.js";
import { findRun } from "../dist/db/run-status.js";
import { writeSyntheticRun } from "../dist/db/synthetic-run.js";
import { loadConfig } from "../dist/config/config.js";
import { loadParams } from "../dist/config/params.js";
import { readRunStatus } from "../dist/status/snapshot.js";
import { readRunDetail } from "../dist/dashboard/run-detail.js";
import { insertOptionRun } from "../dist/db/perturbations.js";
import { spsaMathConfig } from "../dist/config/config.js";

const { values } = parseArgs({
  options: { iterations: { type: "string", default: "10000" }, repeat: { type: "string", default: "20" }, options: { type: "boolean", default: false } },
});
const iterations = Number(values.iterations);
const repeat = Number(values.repeat);
const root = new URL("..", import.meta.url).pathname;
const ms = (x) => `${x.toFixed(1)} ms`;
const summary = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return `median ${ms(s[Math.floor(s.length / 2)])}, max ${ms(s[s.length - 1])}`;
};

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
  if (values.options) await writeOptionRun(sql, config, params);
  else await writeSyntheticRun(sql, { name: "long", config, params, iterations, open: true, workerName: "bench-worker" });
  await sql`analyze`;
  console.log(`synthetic ${values.options ? "UCI-option run" : "run"}: ${iterations} iterations' games × ${params.length} parameters written in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  const [size] = await sql`select pg_size_pretty(pg_total_relation_size('spsa_iteration')) as iterations, pg_size_pretty(pg_total_relation_size('spsa_batch')) as batches,
    (select count(*) from spsa_batch)::int as batch_rows, pg_size_pretty(pg_total_relation_size('spsa_perturbation')) as perturbations`;
  console.log(`tables: spsa_iteration ${size.iterations}, spsa_batch ${size.batches} (${size.batch_rows} batches), spsa_perturbation ${size.perturbations}`);

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
  console.log(`readRunDetail (the dashboard's run page: 400 points per chart), ${repeat} times: ${summary(dashboardTimes)}`);
  await sql.end();

  for (const args of [["--version"], ["status", "--name", "long"], ["status", "--name", "long", "--json"]]) {
    const wall = [];
    for (let i = 0; i < 5; i++) {
      t = performance.now();
      execFileSync("node", [join(root, "bin", "spsa.js"), ...args], { env: { ...process.env, DATABASE_URL: url }, stdio: "pipe" });
      wall.push(performance.now() - t);
    }
    console.log(`spsa ${args.join(" ")} as a process, 5 times: ${summary(wall)}`);
  }
} finally {
  await admin.unsafe(`drop database if exists ${name} with (force)`);
  await admin.end();
}

/**
 * A UCI-option run of `iterations` × 64 games as its master leaves it: the carrier iteration
 * (writeSyntheticRun's open one, its target raised), its option settings, and every 8-game
 * batch done, reported a second apart and applied in turn, with seeded results.
 */
async function writeOptionRun(sql, config, params) {
  const { runId, open } = await writeSyntheticRun(sql, { name: "long", config, params, iterations: 0, open: true, workerName: "bench-worker" });
  const perIteration = config.games.gamesPerIteration;
  const batches = (iterations * perIteration) / 8;
  const parameters = Object.fromEntries(params.map((p) => [p.name, { min: p.min, max: p.max, step: p.step, type: p.type, frozen: false, option: p.name }]));
  await insertOptionRun(sql, { runId, iterationId: open.id, enginePath: "/bench", engineSha256: "0".repeat(64), parameters, gains: spsaMathConfig(config.spsa, perIteration), gamesPerIteration: perIteration });
  await sql`delete from spsa_batch where iteration_id = ${open.id}`;
  // Pairs (LL, LD, DD, DW, WW) drawn per batch from its number: 4 pairs, plus's points and the counts agree.
  await sql`
    with b as (
      insert into spsa_batch (iteration_id, worker_name, games, status, claimed_at, lease_expires_at, reported_at, plus_wins, minus_wins, draws, pairs, games_before, folded)
      select ${open.id}, 'bench-worker', 8, 'done', now() - make_interval(secs => ${batches} - n + 5), now(), now() - make_interval(secs => ${batches} - n),
        w, l, 8 - w - l, json_build_array(0, l, 4 - l - (w + 1) / 2, (w + 1) / 2, 0), (n - 1) * 8, true
      from generate_series(1, ${batches}) n, lateral (select (n * 7) % 3 as w, (n * 5) % 2 as l) r
      returning id, plus_wins, minus_wins, draws, pairs, reported_at)
    insert into spsa_perturbation (batch_id, run_id, batch_number, worker_name, games, k, c_k, a_k, theta_before, signs, plus_parameters, minus_parameters,
      plus_wins, minus_wins, draws, pairs, elo_diff, theta_applied, theta_after, claimed_at, reported_at, applied_number)
    select b.id, ${runId}, b.id, 'bench-worker', 8, 1, 1, 1, r.current_parameters, '{}', r.current_parameters, r.current_parameters,
      b.plus_wins, b.minus_wins, b.draws, b.pairs, 0, r.current_parameters, r.current_parameters, b.reported_at, b.reported_at, row_number() over (order by b.id)
    from b, spsa_run r where r.id = ${runId}`;
  // The carrier's counters are its batches' sums, as the master's folds leave them.
  await sql`
    update spsa_iteration i set target_games = s.games, games_claimed = s.games, games_played = s.games, plus_wins = s.w, minus_wins = s.l, draws = s.d,
      pairs_ll = s.ll, pairs_ld = s.ld, pairs_dd = s.dd, pairs_dw = s.dw, pairs_ww = s.ww
    from (select sum(games)::int as games, sum(plus_wins)::int as w, sum(minus_wins)::int as l, sum(draws)::int as d, sum((pairs->>0)::int)::int as ll,
      sum((pairs->>1)::int)::int as ld, sum((pairs->>2)::int)::int as dd, sum((pairs->>3)::int)::int as dw, sum((pairs->>4)::int)::int as ww
      from spsa_batch where iteration_id = ${open.id}) s
    where i.id = ${open.id}`;
}
