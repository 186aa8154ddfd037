#!/usr/bin/env node
// Fleet benchmark (not a test). Needs `npm run build` first. N simulated workers, each on a
// real connection of its own (a worker process holds one), each registering a worker name
// and looping claim → zero-time "game" → report with the project's own claim and report
// code (src/db/batches.ts; in UCI-option mode with the worker's hook that reads each batch's
// draw), heartbeating every 10 s; a master loop returns expired leases, folds the counters (and
// in UCI-option mode applies the reports to θ and draws the next batches, every 20 ms: the
// games take no time here, so the pool empties between polls) and, in build mode, inserts
// iterations as the master does.
//   node bench/fleet.mjs [--mode build|options|both] [--workers 10,50,200,600,1000]
//     [--seconds 20] [--batch 8] [--games-per-iteration 2000] [--prefill 0] [--sql-prefill] [--stats]
// The database: DATABASE_URL, else the embedded one. It must hold no other active run (the
// simulated workers would claim its games). For N above the server's max_connections the
// workers go through a pooler: POOLER_URL in the environment (PgBouncer in transaction mode
// in front of the same database, docs/scaling-out.md), never on the command line.
// --prefill P[,P2,…] (UCI-option mode): batches/s at the run's start, then after P batches (and
// after P2, …), the batches between made by 50 simulated workers. With --sql-prefill all but the
// last 5,000 of them are made done and applied to θ by one SQL statement, then VACUUM ANALYZE
// (as autovacuum would have by then), so 10^5 batches take seconds; the last 5,000 go through
// the real claim, draw, report and fold, leaving the dead rows a live run leaves. --stats prints
// after each phase the statements that took the server's time (pg_stat_statements, when the
// server preloads it), the queue's dead rows and the plan of the claim's scan of open rows.
// Prints per call p50 / p99 / max for claim and report, batches per second, errors, the
// wait events sampled from pg_stat_activity and the machine's CPU, and checks exact counts
// after every N (games_played = the sum of accepted reports, nothing accepted twice, no
// claim over target); exits 1 if any check fails.
import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { performance } from "node:perf_hooks";
import { clearTimeout, setTimeout } from "node:timers";
import { setTimeout as sleep } from "node:timers/promises";
import { loadConfig, spsaMathConfig } from "../dist/config/config.js";
import { settingsOf } from "../dist/config/iteration-settings.js";
import { loadParams, valuesOf } from "../dist/params/params.js";
import { claimBatch, expireLeases, heartbeat, reportBatch } from "../dist/db/batches.js";
import { foldIteration } from "../dist/db/fold.js";
import { connect, openDatabase } from "../dist/postgres/connection.js";
import { insertIteration, readIteration } from "../dist/db/iterations.js";
import { insertOptionRun } from "../dist/db/option-run.js";
import { openRun } from "../dist/db/runs.js";
import { storedRunConfig } from "../dist/config/secrets.js";
import { planBatchSizes } from "../dist/spsa/batch-plan.js";
import { activeGameSlots, claimWorkerName } from "../dist/db/workers.js";
import { PairTally } from "../dist/play/match-tally.js";
import { optionParamsOf } from "../dist/params/option-names.js";
import { applyReports } from "../dist/master/apply-reports.js";
import { thetaEveryFor } from "../dist/master/options-mode.js";
import { topUpDraws } from "../dist/master/draw-pool.js";
import { knownLists, withOptionList } from "../dist/worker/option-draw.js";
import { median, quantile } from "./bench-stats.mjs";

const { values } = parseArgs({
  options: {
    mode: { type: "string", default: "both" },
    workers: { type: "string", default: "10,50,200,600,1000" },
    seconds: { type: "string", default: "20" },
    batch: { type: "string", default: "8" },
    "games-per-iteration": { type: "string", default: "2000" },
    prefill: { type: "string", default: "0" },
    stats: { type: "boolean", default: false },
    "sql-prefill": { type: "boolean", default: false },
  },
});
const modes = values.mode === "both" ? ["build", "options"] : [values.mode];
if (!modes.every((m) => m === "build" || m === "options")) fail(`--mode: build, options or both, got ${values.mode}`);
const sizes = values.workers.split(",").map(Number);
if (!sizes.every((n) => Number.isInteger(n) && n > 0))
  fail(`--workers: a comma-separated list of positive integers, got ${values.workers}`);
const seconds = Number(values.seconds);
const batchGames = Number(values.batch);
const gamesPerIteration = Number(values["games-per-iteration"]);
// Checkpoints: batches/s at the run's start, then after each of these totals of batches.
const checkpoints = values.prefill
  .split(",")
  .map(Number)
  .filter((p) => p > 0);
if (!checkpoints.every((p, i) => Number.isInteger(p) && p > (checkpoints[i - 1] ?? 0)))
  fail(`--prefill: increasing batch counts, got ${values.prefill}`);
const prefill = checkpoints.at(-1) ?? 0;
// UCI-option mode: the carrier iteration's budget (the master draws its batches as they are
// claimed); enough for the phases at a few hundred batches per second, and the prefill.
const optionIterations = Math.ceil(
  ((prefill + 300 * seconds * (checkpoints.length + 2)) * batchGames) / gamesPerIteration,
);
const HEARTBEAT_MS = 10_000;
const root = new URL("..", import.meta.url).pathname;

function fail(message) {
  console.error(`fleet.mjs: ${message}`);
  process.exit(2);
}

const database = await openDatabase({ applicationName: "spsa-fleet-bench" });
const [{ max_connections: maxConnections }] =
  await database.sql`select current_setting('max_connections')::int as max_connections`;
const [{ n: active }] = await database.sql`select count(*)::int as n from spsa_run where status = 'active'`;
if (active > 0)
  fail(`the database holds ${active} active runs; their games would be claimed: use another database (DATABASE_URL)`);
const poolerUrl = process.env.POOLER_URL;
const dir = mkdtempSync(join(tmpdir(), "spsa-fleet-"));

/** config.toml and params.toml of a run of the mode: minnow's crate is never built, the binary path is never run. */
function runFiles(mode) {
  const configFile = join(dir, `${mode}.toml`);
  const paramsFile = join(dir, `${mode}-params.toml`);
  writeFileSync(paramsFile, mode === "options" ? OPTION_PARAMS : readFileSync(join(root, "params.toml"), "utf8"));
  writeFileSync(
    configFile,
    `[time_control]\ntimelow = 0.01\ntimehigh = 0.02\n[games]\ngames_per_iteration = ${gamesPerIteration}\nbatch_size = ${batchGames}\n` +
      `[spsa]\nmax_iterations = ${mode === "options" ? optionIterations : 1000000}\n[build]\nengine_dir = "${join(root, "engines/minnow")}"\noutput_dir = "${join(dir, "builds")}"\n` +
      (mode === "options" ? `[engine]\nmode = "options"\n` : ""),
  );
  return { config: loadConfig(configFile), params: loadParams(paramsFile), paramsFile };
}

/** Two of minnow's tunables as UCI options (the binary is never run). */
const OPTION_PARAMS = `[KNIGHT_VALUE_MG]\nvalue = 320\nmin = 250\nmax = 400\nstep = 8\noption = "KNIGHT_VALUE_MG"\n
[LMR_MIN_DEPTH]\nvalue = 3\nmin = 1\nmax = 6\nstep = 1\noption = "LMR_MIN_DEPTH"\n`;

const ENGINE = { path: "/nonexistent/engine", sha256: "0".repeat(64) };

/** A run as the master opens it; `more()` inserts the next iteration (build mode). */
async function openBenchRun(mode, label) {
  const { config, params, paramsFile } = runFiles(mode);
  const { run } = await openRun(database.sql, {
    name: `fleet-${label}-${randomUUID().slice(0, 8)}`,
    fresh: true,
    config: storedRunConfig(config),
    values: valuesOf(params),
  });
  const iteration = async (iterationNumber, targetGames) => ({
    runId: run.id,
    iterationNumber,
    plus: { ...ENGINE, signature: null },
    minus: { ...ENGINE, signature: null },
    timelowMs: config.timeControl.timelowMs,
    timehighMs: config.timeControl.timehighMs,
    targetGames,
    ck: 1,
    ak: 1,
    base: valuesOf(params),
    plusValues: valuesOf(params),
    minusValues: valuesOf(params),
    signs: {},
    settings: settingsOf(config, params),
    batchSizes: mode === "options" ? [] : planBatchSizes(targetGames, batchGames, await activeGameSlots(database.sql)),
  });
  const targets = new Map();
  let optionRun;
  if (mode === "options") {
    // As runOptionsMaster: the carrier iteration of max_iterations × games_per_iteration games and its option run, in one transaction.
    await database.sql.begin(async (tx) => {
      const carrier = await insertIteration(tx, await iteration(1, config.spsa.maxIterations * gamesPerIteration));
      optionRun = {
        runId: run.id,
        iterationId: carrier.id,
        enginePath: ENGINE.path,
        engineSha256: ENGINE.sha256,
        parameters: optionParamsOf(params, paramsFile),
        names: params.map((p) => p.name),
        thetaEvery: thetaEveryFor(params.length),
        gains: spsaMathConfig(config.spsa, gamesPerIteration),
        gamesPerIteration,
        parametersSignature: null,
      };
      await insertOptionRun(tx, optionRun);
      targets.set(carrier.id, carrier.targetGames);
    });
  }
  let next = 1;
  return {
    run,
    targets,
    // UCI-option mode: the master's draws for the batches claimed next.
    draw: async () =>
      optionRun
        ? topUpDraws(
            database.sql,
            { ...optionRun, seed: run.seed },
            config.spsa.maxIterations * gamesPerIteration,
            batchGames,
          )
        : 0,
    // What the simulated workers were granted and had accepted, over all phases on this run.
    claimedByIteration: new Map(),
    acceptedByIteration: new Map(),
    accepted: new Set(),
    claimedIds: new Set(),
    // Iterations whose games are all in: a master folds them no more.
    folded: new Set(),
    async more() {
      const row = await insertIteration(database.sql, await iteration(next++, gamesPerIteration));
      targets.set(row.id, row.targetGames);
    },
    async stop() {
      await database.sql`update spsa_run set status = 'stopped' where id = ${run.id}`;
    },
  };
}

/** As the masters do on each poll: the iterations' counters from their batches; UCI-option mode applies the reports to θ as it counts them. */
async function fold(mode, bench) {
  if (mode === "options") await applyReports(database.sql, bench.run.id);
  else for (const id of bench.targets.keys()) await foldOpen(bench, id);
}

/** An iteration's fold until all its games are in, as its master, which then completes it and folds the next. */
async function foldOpen(bench, id) {
  if (bench.folded.has(id)) return;
  await foldIteration(database.sql, id);
  if ((await readIteration(database.sql, id)).gamesPlayed === bench.targets.get(id)) bench.folded.add(id);
}

/** Real-path batches after each SQL prefill (--sql-prefill). */
const REAL_TAIL = 5000;

/**
 * --sql-prefill: `count` more batches of the carrier iteration made done (all draws) and
 * applied to θ as the master would leave them (θ unmoved: every batch a draw), in its
 * counters, in one statement; then VACUUM ANALYZE of the queue. Not the code under test.
 */
async function sqlPrefill(bench, count) {
  const [carrier] = bench.targets.keys();
  const [{ folded }] = await database.sql`
    select exists (select 1 from information_schema.columns where table_name = 'spsa_batch' and column_name = 'folded') as folded`;
  const t0 = performance.now();
  // New done rows after every batch given out so far (the master makes the carrier's rows as it draws them).
  const [{ before, applied }] = await database.sql`
    select (select coalesce(sum(games), 0)::int from spsa_batch where iteration_id = ${carrier} and status in ('open', 'claimed', 'done')) as before,
      (select coalesce(max(applied_number), 0)::int from spsa_perturbation where run_id = ${bench.run.id}) as applied`;
  const worker = `fleet-${bench.run.id}-prefill`;
  const [row] = await database.sql`
    with done as (
      insert into spsa_batch (iteration_id, games, games_before, status, worker_name, claimed_at, lease_expires_at, reported_at,
        plus_wins, minus_wins, draws, pairs, faults, replays, replay_limit_pairs ${folded ? database.sql`, folded` : database.sql``})
      select ${carrier}, ${batchGames}, ${before} + (n - 1) * ${batchGames}, 'done', ${worker}, now(), now(), now(),
        0, 0, ${batchGames}, jsonb_build_array(0, 0, ${batchGames / 2}::int, 0, 0), '{}', 0, 0 ${folded ? database.sql`, true` : database.sql``}
      from generate_series(1, ${count}) n
      returning id, games
    ), theta as (
      -- θ as the run stores it: an array in the order of its parameter names.
      select array(select (r.current_parameters->>u.name)::float8 from unnest(o.parameter_names) with ordinality u(name, i) order by u.i) as t,
        repeat('0', cardinality(o.parameter_names))::varbit as signs, o.theta_every as every
      from spsa_run r join spsa_option_run o on o.run_id = r.id where r.id = ${bench.run.id}
    ), applied as (
      -- The values it played kept (drawn_from null): the chain replays them as stored.
      insert into spsa_perturbation (batch_id, run_id, batch_number, worker_name, games, k, c_k, a_k, drawn_from, signs,
        plus_parameters, minus_parameters, plus_wins, minus_wins, draws, pairs, elo_diff, step_scale, theta_after, reported_at, applied_number)
      select d.id, ${bench.run.id}, d.id, ${worker}, d.games, 1, 1, 1, null, theta.signs, to_jsonb(theta.t), to_jsonb(theta.t),
        0, 0, d.games, jsonb_build_array(0, 0, d.games / 2, 0, 0), 0, 1,
        case when (${applied}::int + row_number() over (order by d.id)) % theta.every = 0 then theta.t end, now(), ${applied}::int + row_number() over (order by d.id)
      from done d, theta
      returning games
    ), counted as (
      update spsa_iteration set games_claimed = games_claimed + (select sum(games) from applied), games_played = games_played + (select sum(games) from applied),
        draws = draws + (select sum(games) from applied), pairs_dd = pairs_dd + (select sum(games) / 2 from applied)
      where id = ${carrier} returning id
    )
    select count(*)::int as batches, sum(games)::int as games from applied`;
  const t1 = performance.now();
  await database.sql`vacuum analyze spsa_batch`;
  await database.sql`vacuum analyze spsa_perturbation`;
  bench.acceptedByIteration.set(carrier, (bench.acceptedByIteration.get(carrier) ?? 0) + row.games);
  bench.claimedByIteration.set(carrier, (bench.claimedByIteration.get(carrier) ?? 0) + row.games);
  console.log(
    `options prefill: ${row.batches} batches in SQL in ${((t1 - t0) / 1000).toFixed(1)} s, VACUUM ANALYZE in ${((performance.now() - t1) / 1000).toFixed(1)} s`,
  );
  return row.batches;
}

function latency(list) {
  const s = (ms) =>
    Number.isNaN(ms) ? "-" : ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${ms.toFixed(ms < 10 ? 1 : 0)} ms`;
  return `${s(median(list))} / ${s(quantile(list, 0.99))} / ${s(list.length === 0 ? NaN : Math.max(...list))}`;
}

function cpuTimes() {
  const [line] = readFileSync("/proc/stat", "utf8").split("\n");
  const fields = line.split(/\s+/).slice(1).map(Number);
  const idle = fields[3] + fields[4];
  return { idle, total: fields.reduce((a, b) => a + b, 0) };
}

/**
 * N simulated workers for `ms` (then each finishes its claim and report): latencies, counts,
 * errors, wait events. `stopAfter` ends the phase once that many batches were accepted.
 */
async function phase(mode, bench, n, ms, stopAfter = Infinity) {
  const url = n + 10 > maxConnections ? poolerUrl : database.url;
  if (!url)
    fail(
      `N = ${n} is above the server's max_connections (${maxConnections}): set POOLER_URL to a PgBouncer in transaction mode in front of the database`,
    );
  const via = url === database.url ? "direct" : "pooler";
  const claims = [];
  const reports = [];
  const errors = new Map();
  const { claimedByIteration, acceptedByIteration, accepted, claimedIds } = bench;
  let acceptedHere = 0;
  let duplicateClaims = 0;
  let duplicateAccepts = 0;
  const noteError = (what, error) => {
    const key = `${what}: ${String(error?.message ?? error)
      .split("\n")[0]
      .slice(0, 80)}`;
    errors.set(key, (errors.get(key) ?? 0) + 1);
  };
  const clients = Array.from({ length: n }, () =>
    connect(url, 1, { connection: { application_name: "spsa-fleet-worker" } }),
  );
  let stopping = false;
  let started = 0;
  const register = async (sql, index) => {
    const session = { name: `fleet-${bench.run.id}-${n}-${index}`, sessionId: randomUUID() };
    await claimWorkerName(sql, { ...session, host: "fleet", pid: process.pid, concurrency: 1 }, () => false);
    return session;
  };
  const worker = async (sql, session) => {
    let lastBeat = Date.now();
    while (!stopping) {
      if (Date.now() - lastBeat > HEARTBEAT_MS) {
        lastBeat = Date.now();
        await heartbeat(sql, session, []).catch((error) => noteError("heartbeat", error));
      }
      const t0 = performance.now();
      let batch;
      try {
        // As a worker claims: the parameter lists it has are not read again (UCI-option mode).
        const known = knownLists();
        batch = await claimBatch(sql, session.name, batchGames, { known });
        batch = batch && withOptionList(batch, known);
      } catch (error) {
        noteError("claim", error);
        await sleep(50);
        continue;
      }
      claims.push(performance.now() - t0);
      if (!batch) {
        await sleep(20 + Math.random() * 30);
        continue;
      }
      if (claimedIds.has(batch.batchId)) duplicateClaims++;
      claimedIds.add(batch.batchId);
      claimedByIteration.set(batch.iterationId, (claimedByIteration.get(batch.iterationId) ?? 0) + batch.games);
      // The zero-time game: every pair a draw.
      const counts = { ...new PairTally().counts(), draws: batch.games, pairs: [0, 0, batch.games / 2, 0, 0] };
      for (let attempt = 1; ; attempt++) {
        const t1 = performance.now();
        try {
          const outcome = await reportBatch(sql, { batchId: batch.batchId, workerName: session.name, ...counts });
          reports.push(performance.now() - t1);
          // A retry after a lost answer finds its own report done: "duplicate" then means accepted once.
          if (outcome === "accepted" || (outcome === "duplicate" && attempt > 1 && !accepted.has(batch.batchId))) {
            if (accepted.has(batch.batchId)) duplicateAccepts++;
            accepted.add(batch.batchId);
            acceptedByIteration.set(batch.iterationId, (acceptedByIteration.get(batch.iterationId) ?? 0) + batch.games);
            if (++acceptedHere >= stopAfter) stopping = true;
          } else noteError("report", new Error(outcome));
          break;
        } catch (error) {
          noteError("report", error);
          if (attempt >= 5) break;
          await sleep(100 * attempt);
        }
      }
    }
  };
  // The master's part: leases back to the pool, the counters folded (and in UCI-option mode θ
  // moved by the reports), and iterations ahead of the claims (build mode).
  const master = async () => {
    while (!stopping) {
      await expireLeases(database.sql).catch((error) => noteError("expire", error));
      await fold(mode, bench).catch((error) => noteError("fold", error));
      await bench.draw().catch((error) => noteError("draw", error));
      if (mode === "build") {
        const claimable = [...bench.targets].reduce(
          (sum, [id, target]) => sum + target - (claimedByIteration.get(id) ?? 0),
          0,
        );
        if (claimable < n * batchGames * 4) await bench.more();
      }
      await sleep(mode === "build" ? 100 : 20);
    }
  };
  const waits = new Map();
  let samples = 0;
  const sampler = async () => {
    while (!stopping) {
      const rows = await database.sql`
        select coalesce(wait_event_type || ':' || wait_event, 'CPU (no wait)') as event, count(*)::int as n
        from pg_stat_activity where datname = current_database() and state = 'active' and pid <> pg_backend_pid() group by 1`;
      samples++;
      for (const row of rows) waits.set(row.event, (waits.get(row.event) ?? 0) + row.n);
      await sleep(250);
    }
  };
  if (mode === "build") await bench.more();
  // Every client connected and registered before the clock starts.
  const sessions = await Promise.all(clients.map((sql, i) => register(sql, i)));
  const cpuBefore = cpuTimes();
  started = performance.now();
  const timer = setTimeout(() => (stopping = true), ms);
  await Promise.all([...clients.map((sql, i) => worker(sql, sessions[i])), master(), sampler()]);
  clearTimeout(timer);
  const elapsed = (performance.now() - started) / 1000;
  const cpuAfter = cpuTimes();
  await Promise.all(clients.map((sql) => sql.end({ timeout: 5 })));

  // Exact counts: the database's games_played against the accepted reports, per iteration.
  await fold(mode, bench);
  const problems = [];
  if (duplicateClaims) problems.push(`${duplicateClaims} batches claimed twice`);
  if (duplicateAccepts) problems.push(`${duplicateAccepts} batches accepted twice`);
  for (const [id, target] of bench.targets) {
    const row = await readIteration(database.sql, id);
    const acceptedGames = acceptedByIteration.get(id) ?? 0;
    const claimedGames = claimedByIteration.get(id) ?? 0;
    if (row.gamesPlayed !== acceptedGames)
      problems.push(
        `iteration ${row.iterationNumber}: games_played ${row.gamesPlayed}, accepted reports ${acceptedGames}`,
      );
    if (claimedGames > target || row.gamesPlayed > target)
      problems.push(
        `iteration ${row.iterationNumber}: ${claimedGames} games claimed, ${row.gamesPlayed} played, target ${target}`,
      );
    if (row.draws !== row.gamesPlayed)
      problems.push(`iteration ${row.iterationNumber}: ${row.draws} draws of ${row.gamesPlayed} games`);
  }
  const busy = 1 - (cpuAfter.idle - cpuBefore.idle) / Math.max(1, cpuAfter.total - cpuBefore.total);
  const topWaits = [...waits]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 3)
    .map(([event, count]) => `${event} ${(count / Math.max(1, samples)).toFixed(1)}`);
  return {
    mode,
    n,
    via,
    elapsed,
    batches: acceptedHere,
    perSecond: acceptedHere / elapsed,
    claim: latency(claims),
    report: latency(reports),
    errors: [...errors.values()].reduce((a, b) => a + b, 0),
    errorKinds: [...errors].map(([k, v]) => `${v}× ${k}`),
    cpu: `${Math.round(busy * 100)} %`,
    waits: topWaits.join(", "),
    problems,
  };
}

/** --stats: pg_stat_statements (when the server preloads it) counts from here. */
async function resetStats() {
  if (!values.stats) return;
  await database.sql`select pg_stat_statements_reset()`.catch(() => {});
  await database.sql`select pg_stat_reset_shared('wal')`;
}

/**
 * --stats: where the server's time went since resetStats (pg_stat_statements, nested
 * statements too with pg_stat_statements.track = all), how many dead rows the queue holds,
 * and what the claim's scan of the open rows reads.
 */
async function printStats(bench, label) {
  if (!values.stats) return;
  console.log(`  --- ${label}: statements by total time`);
  const statements = await database.sql`
    select calls, total_exec_time as total, mean_exec_time as mean, (shared_blks_hit + shared_blks_read)::float8 / greatest(calls, 1) as blocks, toplevel, query
    from pg_stat_statements where dbid = (select oid from pg_database where datname = current_database()) order by total_exec_time desc limit 15`.catch(
    (error) => (console.log(`  (no pg_stat_statements: ${error.message})`), []),
  );
  for (const s of statements) {
    console.log(
      `  ${String(s.calls).padStart(7)} calls ${s.total.toFixed(0).padStart(7)} ms ${s.mean.toFixed(3).padStart(8)} ms/call ${s.blocks.toFixed(1).padStart(8)} blocks/call ${s.toplevel ? "top " : "nest"} ${s.query.replace(/\s+/g, " ").slice(0, 150)}`,
    );
  }
  const [wal] = await database.sql`select wal_records, wal_fpi, wal_bytes from pg_stat_wal`;
  console.log(
    `  WAL: ${wal.wal_records} records, ${wal.wal_fpi} full pages, ${(Number(wal.wal_bytes) / 1e6).toFixed(1)} MB`,
  );
  const tables = await database.sql`
    select relname, n_live_tup as live, n_dead_tup as dead, autovacuum_count as vacuums, pg_relation_size(relid) / 8192 as pages
    from pg_stat_user_tables where relname in ('spsa_batch', 'spsa_perturbation', 'spsa_iteration', 'spsa_run') order by relname`;
  console.log(
    `  tables: ${tables.map((t) => `${t.relname} ${t.live} live ${t.dead} dead ${t.pages} pages ${t.vacuums} autovacuums`).join("; ")}`,
  );
  const indexes = await database.sql`
    select indexrelname as name, pg_relation_size(indexrelid) / 8192 as pages from pg_stat_user_indexes
    where relname in ('spsa_batch', 'spsa_perturbation') order by indexrelname`;
  console.log(`  index pages: ${indexes.map((i) => `${i.name} ${i.pages}`).join(", ")}`);
  const [carrier] = bench.targets.keys();
  const plan = await database.sql.begin(async (tx) => {
    const rows = await tx.unsafe(`explain (analyze, buffers, costs off, timing off) select b.* from spsa_batch b
      where b.iteration_id = ${Number(carrier)} and b.status = 'open' order by b.iteration_id, b.id limit 1 for update skip locked`);
    await tx`rollback and chain`;
    return rows;
  });
  console.log(`  the claim's scan of the open rows:\n${plan.map((r) => `    ${r["QUERY PLAN"]}`).join("\n")}`);
}

const results = [];
let failed = false;
const show = (r, label = "") => {
  console.log(
    `${r.mode.padEnd(7)} N=${String(r.n).padEnd(5)}${label} ${r.via.padEnd(6)} ${r.perSecond.toFixed(1).padStart(7)} batches/s  ` +
      `claim p50/p99/max ${r.claim}  report ${r.report}  errors ${r.errors}  machine CPU ${r.cpu}  active backends by wait (mean): ${r.waits}  ` +
      (r.problems.length ? `COUNTS WRONG: ${r.problems.join("; ")}` : "counts exact"),
  );
  for (const kind of r.errorKinds.slice(0, 3)) console.log(`    ${kind}`);
  if (r.problems.length) failed = true;
};
try {
  for (const mode of modes) {
    for (const n of sizes) {
      const bench = await openBenchRun(mode, `${mode}-${n}`);
      await resetStats();
      const result = await phase(mode, bench, n, seconds * 1000);
      await bench.stop();
      results.push(result);
      show(result);
      await printStats(bench, `${mode} N = ${n}`);
    }
    if (mode === "options" && prefill > 0) {
      const n = sizes[0];
      const bench = await openBenchRun(mode, `${mode}-prefill`);
      await resetStats();
      const start = await phase(mode, bench, n, seconds * 1000);
      show(start, " start");
      await printStats(bench, "start");
      let total = start.batches;
      for (const checkpoint of checkpoints) {
        if (values["sql-prefill"] && checkpoint - total > REAL_TAIL)
          total += await sqlPrefill(bench, checkpoint - total - REAL_TAIL);
        const filled = await phase(mode, bench, Math.min(50, maxConnections - 20), 24 * 3600_000, checkpoint - total);
        total += filled.batches;
        console.log(
          `options prefill: ${filled.batches} more batches at ${filled.perSecond.toFixed(1)}/s${filled.problems.length ? `; COUNTS WRONG: ${filled.problems.join("; ")}` : ""}`,
        );
        if (filled.problems.length) failed = true;
        await resetStats();
        const after = await phase(mode, bench, n, seconds * 1000);
        total += after.batches;
        show(after, ` after ${total - after.batches} batches`);
        await printStats(bench, `after ${total - after.batches} batches`);
      }
      await bench.stop();
    }
  }
} finally {
  await database.close();
  rmSync(dir, { recursive: true, force: true });
}
console.log(
  "\n| mode | N | via | batches/s | claim p50 / p99 / max | report p50 / p99 / max | errors | exact counts |",
);
console.log("|---|---:|---|---:|---|---|---:|---|");
for (const r of results)
  console.log(
    `| ${r.mode} | ${r.n} | ${r.via} | ${r.perSecond.toFixed(1)} | ${r.claim} | ${r.report} | ${r.errors} | ${r.problems.length ? "NO" : "yes"} |`,
  );
if (failed) {
  console.error("fleet.mjs: exact counts FAILED (above)");
  process.exit(1);
}
