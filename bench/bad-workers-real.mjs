#!/usr/bin/env node
// Bad workers on real runs (not a test; docs/bad-workers.md). Needs `npm run build`, and a
// database the workers reach over TCP (the embedded one after `npx spsa db start --listen
// 127.0.0.1`, or DATABASE_URL). UCI-option runs of minnow (8 options, 500 nodes per move,
// batches of 8, --games games): a clean run (two honest `compete --spsa -c 1`), then the same
// seed with a liar as well (test/support/liar-worker.ts: a process with a worker role's own URL
// that reports every batch won by whichever side pushed KNIGHT_VALUE_MG up, or by plus), on
// 10 % or 20 % of the batches. The master flags it, holds its batches and takes those θ held out
// of θ; at the run's end the bench rejects it (spsa workers reject). Prints per run: the liar's
// batches when it was flagged, honest workers flagged, KNIGHT_VALUE_MG at the end, and its
// distance from the clean run's in steps.
// `--mode build`: build-mode runs of the repository's params.toml instead (18 constants).
// `--honest 1`: one honest machine, the pool a framing liar (issue 55) works against.
// Kinds: test/support/liar-worker.ts (targeted, plus-wins, mixing, framing).
//   node bench/bad-workers-real.mjs [--games 640] [--seed real] [--runs clean,targeted:0.1,targeted:0.2,plus-wins:0.2] [--mode build] [--honest 2]
//     [--iteration-games 16]
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { setTimeout as sleep } from "node:timers/promises";
import { execa } from "execa";
import { openDatabase } from "../dist/postgres/connection.js";
import { databaseOptionsFrom } from "../dist/commands/database-options.js";

const ROOT = new URL("..", import.meta.url).pathname;
const { values } = parseArgs({
  options: {
    games: { type: "string", default: "640" },
    seed: { type: "string", default: "real" },
    runs: { type: "string", default: "clean,targeted:0.1,targeted:0.2,plus-wins:0.2" },
    mode: { type: "string", default: "options" },
    honest: { type: "string", default: "2" },
    // Short iterations make many of them in a short run, and small batches: the master plans an
    // iteration's games for the workers' slots (the default, 64, gives larger ones).
    "iteration-games": { type: "string", default: "16" },
  },
});
const ITERATION_GAMES = Number(values["iteration-games"]);
const TARGET = "KNIGHT_VALUE_MG";
const build = values.mode === "build";
// Build mode tunes the repository's params.toml (18 of minnow's constants, KNIGHT_VALUE_MG's step 10).
const STEP = build ? 10 : 8;
const PARAMS = `
[LMR_BASE]
type = "float"
value = 0.75
min = 0.0
max = 2.0
step = 0.1
option = "LMR_BASE_X100"
option_scale = 100

[LMR_MIN_DEPTH]
value = 3
min = 1
max = 6
step = 1
option = "LMR_MIN_DEPTH"

[NULL_MOVE_MIN_DEPTH]
value = 3
min = 1
max = 6
step = 1
option = "NULL_MOVE_MIN_DEPTH"

[SEE_PRUNE_MARGIN]
value = 70
min = 0
max = 200
step = 10
option = "SEE_PRUNE_MARGIN"

[ALPHA_PRUNE_MARGINS_1]
value = 260
min = 100
max = 500
step = 20
option = "ALPHA_PRUNE_MARGINS_1"

[KNIGHT_VALUE_MG]
value = 320
min = 250
max = 400
step = ${STEP}
option = "KNIGHT_VALUE_MG"

[BISHOP_VALUE_MG]
value = 335
min = 260
max = 420
step = 8
option = "BISHOP_VALUE_MG"

[ROOK_VALUE_MG]
value = 480
min = 380
max = 600
step = 12
option = "ROOK_VALUE_MG"
`;

const spsa = (args, options = {}) =>
  execa("node", [join(ROOT, "bin/spsa.js"), ...args], { reject: false, all: true, ...options });
const database = await openDatabase(databaseOptionsFrom(undefined));
const sql = database.sql;
const machine = `bench${process.pid}`;
const urlFile = join(mkdtempSync(join(tmpdir(), "spsa-liar-")), "worker.url");
const issued = await spsa(["db", "worker-url", "--name", machine, "--output", urlFile]);
if (issued.exitCode !== 0) throw new Error(issued.all);
const workerUrl = readFileSync(urlFile, "utf8").trim();

async function run(label) {
  // KIND:SHARE, or KIND:SHARE:accept: the bench accepts the liar as soon as it is flagged (no defence: its batches are applied).
  const [kind, share, accept] = label.split(":");
  const dir = mkdtempSync(join(tmpdir(), "spsa-real-"));
  const config = join(dir, "config.toml");
  const params = join(dir, "params.toml");
  writeFileSync(params, build ? readFileSync(join(ROOT, "params.toml"), "utf8") : PARAMS);
  writeFileSync(
    config,
    `
[time_control]
nodes = 500

[games]
games_per_iteration = ${ITERATION_GAMES}
batch_size = 8

[spsa]
max_iterations = ${Number(values.games) / ITERATION_GAMES}

[build]
engine_dir = "${join(ROOT, "engines", "minnow")}"
output_dir = "${join(dir, "builds")}"

[database]
poll_interval = 0.2
${build ? "" : '\n[engine]\nmode = "options"'}
`,
  );
  const name = `real-${values.seed}-${label.replace(/[^a-z0-9]/g, "")}-${process.pid}`;
  const started = Date.now();
  const master = spsa(["--config", config, "master", "--params", params, "--name", name, "--seed", values.seed]);
  const honest = Array.from({ length: Number(values.honest) }, (_, i) => `h${i + 1}`).map((w) =>
    execa(
      "node",
      [join(ROOT, "bin/compete.js"), "--spsa", "-c", "1", "--config", config, "--name", `${w}-${process.pid}`],
      { reject: false, all: true },
    ),
  );
  const liar =
    kind === "clean"
      ? undefined
      : execa(
          join(ROOT, "node_modules/.bin/tsx"),
          [
            "test/support/liar-worker.ts",
            "--name",
            `liar-${process.pid}`,
            "--kind",
            kind,
            "--target",
            TARGET,
            "--share",
            share,
            "--idle-ms",
            "30000",
          ],
          {
            cwd: ROOT,
            env: { DATABASE_URL: workerUrl },
            reject: false,
            all: true,
          },
        );
  let ended = false;
  void master.then(() => (ended = true));
  if (accept) {
    const [run] = await waitForRun(name, () => ended);
    for (let accepted = false; !ended && !accepted; await sleep(500)) {
      const [flag] = run
        ? await sql`select 1 from spsa_worker_decision where run_id = ${run.id} and decision = 'suspect'`
        : [];
      if (flag)
        accepted =
          // --yes: the master took its batches out of θ at the flag, and accepting gives them back.
          (
            await spsa([
              "--config",
              config,
              "workers",
              "accept",
              `liar-${process.pid}`,
              "--name",
              name,
              "--params",
              params,
              "--yes",
            ])
          ).exitCode === 0;
    }
  }
  const done = await master;
  for (const p of [...honest, liar]) p?.kill("SIGTERM");
  await Promise.all([...honest, liar].filter(Boolean));
  if (done.exitCode !== 0) throw new Error(`${label}: master exited ${done.exitCode}\n${done.all}`);
  const [row] = await sql`select id, current_parameters as theta from spsa_run where name = ${name}`;
  const decisions =
    await sql`select worker_name, decision, (evidence->>'batches')::int as batches from spsa_worker_decision where run_id = ${row.id} order by id`;
  const counts = await sql`
    select b.worker_name, count(*)::int as reported, (count(*) filter (where b.held_at is null))::int as applied
    from spsa_batch b join spsa_iteration i on i.id = b.iteration_id where i.run_id = ${row.id} and b.status = 'done' group by b.worker_name`;
  const liarName = `liar-${process.pid}`;
  // What it moved before the flag the master took out of θ then: rejecting it changes nothing more.
  if (!accept && decisions.some((d) => d.worker_name === liarName))
    await spsa(["--config", config, "workers", "reject", liarName, "--name", name]);
  return {
    label,
    theta: row.theta,
    decisions,
    counts,
    liarName,
    minutes: (Date.now() - started) / 60000,
  };
}

/** The run's row once its master made it. */
async function waitForRun(name, ended) {
  for (;;) {
    const rows = await sql`select id from spsa_run where name = ${name}`;
    if (rows.length > 0 || ended()) return rows;
    await sleep(200);
  }
}

const results = [];
for (const label of values.runs.split(",")) {
  const result = await run(label);
  results.push(result);
  console.error(
    `${label}: ${result.minutes.toFixed(1)} min, ${TARGET} ${result.theta[TARGET].toFixed(2)}, decisions ${JSON.stringify(result.decisions)}`,
  );
}
const clean = results.find((r) => r.label === "clean");
console.log(
  `minnow, ${build ? "build mode, params.toml's 18 constants" : "UCI-option mode, 8 options"}, 500 nodes per move, ${values.games} games per run (${ITERATION_GAMES} per iteration, batches of at most 8), ${values.honest} honest worker${values.honest === "1" ? "" : "s"} (-c 1), seed ${values.seed}\n`,
);
console.log(
  `| run | liar's batches reported (applied) | flagged after its batches | honest workers flagged | ${TARGET} at the end (Δ steps from clean) |`,
);
console.log("| --- | ---: | ---: | ---: | ---: |");
for (const r of results) {
  const liar = r.counts.find((c) => c.worker_name === r.liarName);
  const flag = r.decisions.find((d) => d.worker_name === r.liarName && d.decision === "suspect");
  const honestFlags = r.decisions.filter((d) => d.worker_name !== r.liarName && d.decision === "suspect").length;
  const delta = (theta) =>
    clean && r !== clean
      ? ` (${(theta[TARGET] - clean.theta[TARGET]) / STEP >= 0 ? "+" : ""}${((theta[TARGET] - clean.theta[TARGET]) / STEP).toFixed(2)})`
      : "";
  console.log(
    `| ${r.label} | ${liar ? `${liar.reported} (${liar.applied})` : "-"} | ${flag ? flag.batches : "-"} | ${honestFlags} | ${r.theta[TARGET].toFixed(2)}${delta(r.theta)} |`,
  );
}
await spsa(["db", "worker-url", "--name", machine, "--revoke"]);
await database.close();
