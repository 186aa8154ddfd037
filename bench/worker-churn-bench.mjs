#!/usr/bin/env node
// Worker-churn benchmark (not a test). Needs `npm run build` first. A real tuning run of
// engines/minnow with a master and N workers under fixed names, one of which is killed
// with -9 at random intervals and restarted, for a fixed time; run twice:
//   same-name: restarted under its name, so it returns its dead predecessor's batches at once;
//   new-name:  restarted under a new name, so those batches wait out their leases (the
//              behaviour before workers released them: lease expiry alone).
// Prints the run's progress (games counted, iterations complete) every 30 s and per mode.
//   node bench/worker-churn-bench.mjs [--minutes 4] [--workers 3] [--kill-every 6] [--lease 120]
//     [--batch 8] [--games 16] [--timelow 0.01] [--timehigh 0.02]
import { spawn } from "node:child_process";
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { setTimeout as sleep } from "node:timers/promises";
import { openDatabase } from "../dist/postgres/connection.js";

const { values } = parseArgs({
  options: {
    minutes: { type: "string", default: "4" },
    workers: { type: "string", default: "3" },
    "kill-every": { type: "string", default: "6" },
    lease: { type: "string", default: "120" },
    batch: { type: "string", default: "8" },
    games: { type: "string", default: "16" },
    timelow: { type: "string", default: "0.01" },
    timehigh: { type: "string", default: "0.02" },
  },
});
const root = new URL("..", import.meta.url).pathname;
const minutes = Number(values.minutes);
const killEveryMs = Number(values["kill-every"]) * 1000;
const database = await openDatabase({});

async function progress(runName) {
  const [row] = await database.sql`
    select coalesce(sum(i.games_played), 0)::int as games, count(*) filter (where i.status = 'complete')::int as complete,
      (select count(*)::int from spsa_batch b join spsa_iteration j on j.id = b.iteration_id where j.run_id = r.id and b.status = 'expired') as returned
    from spsa_run r left join spsa_iteration i on i.run_id = r.id where r.name = ${runName} group by r.id`;
  return row ?? { games: 0, complete: 0, returned: 0 };
}

async function churn(mode) {
  const dir = mkdtempSync(join(tmpdir(), "spsa-churn-"));
  const configFile = join(dir, "config.toml");
  const paramsFile = join(dir, "params.toml");
  copyFileSync(join(root, "params.toml"), paramsFile);
  writeFileSync(
    configFile,
    `[time_control]\ntimelow = ${values.timelow}\ntimehigh = ${values.timehigh}\nmargin_ms = 100\n` +
      `[games]\ngames_per_iteration = ${values.games}\nbatch_size = ${values.batch}\nlease_seconds = ${values.lease}\n` +
      `[spsa]\nmax_iterations = 1000\n[build]\nengine_dir = "${join(root, "engines/minnow")}"\noutput_dir = "${join(dir, "builds")}"\n` +
      `[database]\npoll_interval = 0.2\n`,
  );
  const runName = `churn-${mode}-${Date.now()}`;
  const master = spawn(
    "node",
    [join(root, "bin/spsa.js"), "--config", configFile, "master", "--params", paramsFile, "--name", runName],
    { stdio: "ignore" },
  );
  let serial = 0;
  const startWorker = (slot) => {
    const name = mode === "same-name" ? `${runName}-w${slot}` : `${runName}-w${slot}-${serial++}`;
    return spawn("node", [join(root, "bin/compete.js"), "--spsa", "-c", "1", "--config", configFile, "--name", name], {
      stdio: "ignore",
    });
  };
  const workers = Array.from({ length: Number(values.workers) }, (_, slot) => startWorker(slot));
  const started = Date.now();
  const end = started + minutes * 60_000;
  let nextReport = started + 30_000;
  let kills = 0;
  while (Date.now() < end) {
    await sleep(Math.min(killEveryMs * (0.5 + Math.random()), Math.max(0, end - Date.now())));
    if (Date.now() >= end) break;
    const slot = Math.floor(Math.random() * workers.length);
    workers[slot].kill("SIGKILL");
    workers[slot] = startWorker(slot);
    kills++;
    if (Date.now() >= nextReport) {
      const p = await progress(runName);
      console.log(
        `[${mode}] ${Math.round((Date.now() - started) / 1000)} s: ${p.games} games counted, ${p.complete} iterations complete, ${kills} kills`,
      );
      nextReport += 30_000;
    }
  }
  const result = await progress(runName);
  for (const worker of workers) worker.kill("SIGKILL");
  master.kill("SIGKILL");
  // Stopped, so the next mode's workers do not play this run's open iteration.
  await database.sql`update spsa_run set status = 'stopped' where name = ${runName}`;
  rmSync(dir, { recursive: true, force: true });
  const perMinute = result.games / minutes;
  console.log(
    `[${mode}] after ${minutes} min and ${kills} kills: ${result.games} games counted (${perMinute.toFixed(1)}/min), ` +
      `${result.complete} iterations complete, ${result.returned} batches returned to the pool`,
  );
  return perMinute;
}

const released = await churn("same-name");
const leaseOnly = await churn("new-name");
await database.close();
console.log(
  `progress with immediate release: ${released.toFixed(1)} games/min; with lease expiry alone: ${leaseOnly.toFixed(1)} games/min; ` +
    `ratio ${leaseOnly > 0 ? (released / leaseOnly).toFixed(1) : "∞"}×`,
);
