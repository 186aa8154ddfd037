#!/usr/bin/env node
// Proof on a real engine (not a test; about an hour on 2 cores). Needs `npm run build`.
//   1. Detunes the sample engine on purpose: every parameter of params.toml (or, with --subset N,
//      N of them drawn from --seed; the others stay at their default) is moved --steps of its own
//      steps away from its default value (direction drawn from --seed, kept in bounds).
//   2. Measures the gap: a match of the detuned engine against the default one.
//   3. Runs a real tuning run from the detuned values with the repository's default SPSA
//      settings (config.toml's [spsa] section): `spsa master` and a `compete --spsa -c 2`
//      worker on the embedded database (or DATABASE_URL), --iterations × --games games.
//   4. `spsa verify` of the run (tuned θ against its start, the detuned values, through the run's
//      worker) and a match of tuned against default; prints the Elo recovered as a share of the gap
//      both ways and, with --subset, how far the untouched parameters ended from their defaults.
//   node bench/tune-recovery.mjs [--steps 3] [--iterations 60] [--games 64] [--timelow 0.01]
//     [--timehigh 0.03] [--nodes N] [--match-games 600] [--seed recovery-1] [--margin 300] [--r-end R]
//     [--subset N] [-c 2]
// --nodes N plays every game of the run, the matches and the verification at N nodes per move
// instead of a time per move: the result then does not depend on how busy the machine is.
// -c: games at once, in the worker and in each match.
// Without DATABASE_URL the script starts its own embedded Postgres ($SPSA_HOME in its temp
// folder: its own data folder, free port and socket) and stops it at the end, so two runs of
// the script, or a run and the tests, never share a database.
// --r-end replaces config.toml's r_end, e.g. with the one `spsa simulate` picks for this
// engine's measured gap and the run's budget.
// The margin (ms a move may overrun) is generous so that a busy machine does not turn the
// comparison into a count of time forfeits; the forfeits are printed with each match.
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { performance } from "node:perf_hooks";
import { buildPlusAndMinus } from "../dist/engine-build/engine-builder.js";
import { loadConfig } from "../dist/config/config.js";
import { loadParams } from "../dist/params/params.js";
import { updateParamValues } from "../dist/params/params-update.js";
import { builtValue } from "../dist/spsa/math.js";
import { benchProcesses, detunedValues, eloOf, spsaSection, writeRunConfig } from "./tuning-kit.mjs";

const { values: opts } = parseArgs({
  options: {
    steps: { type: "string", default: "3" },
    iterations: { type: "string", default: "60" },
    games: { type: "string", default: "64" },
    timelow: { type: "string", default: "0.01" },
    timehigh: { type: "string", default: "0.03" },
    nodes: { type: "string" },
    concurrency: { type: "string", short: "c", default: "2" },
    "match-games": { type: "string", default: "600" },
    seed: { type: "string", default: "recovery-1" },
    margin: { type: "string", default: "300" },
    subset: { type: "string" },
    "r-end": { type: "string" },
  },
});
const root = new URL("..", import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), "spsa-recovery-"));
// Every child (master, worker, verify) sees its database; this process opens none itself.
const workers = benchProcesses(root, dir);
const started = performance.now();
const elapsed = () => `${((performance.now() - started) / 60000).toFixed(1)} min`;
const log = (line) => console.log(`[${elapsed()}] ${line}`);

// 1. Detuned values.
const params = loadParams(join(root, "params.toml"));
const defaults = Object.fromEntries(params.map((p) => [p.name, p.value]));
const { values: detuned, moved } = detunedValues(params, { steps: opts.steps, subset: opts.subset, seed: opts.seed });
const paramsFile = join(dir, "params.toml");
writeFileSync(paramsFile, updateParamValues(readFileSync(join(root, "params.toml"), "utf8"), detuned, paramsFile));
const configFile = join(dir, "config.toml");
const spsaText = spsaSection(root, opts.iterations, opts["r-end"] === undefined ? {} : { r_end: opts["r-end"] });
const limitFlags =
  opts.nodes === undefined ? ["--timelow", opts.timelow, "--timehigh", opts.timehigh] : ["--nodes", opts.nodes];
writeRunConfig(configFile, {
  root,
  dir,
  spsa: spsaText,
  games: opts.games,
  nodes: opts.nodes,
  timelow: opts.timelow,
  timehigh: opts.timehigh,
  margin: opts.margin,
});
const config = loadConfig(configFile);
log(
  `[spsa] ${spsaText
    .split("\n")
    .filter((l) => /^(c_end|r_end|max_iterations|adapt|adapt_window|adapt_floor|adapt_pilot) /.test(l))
    .map((l) => l.replace(/\s*#.*/, ""))
    .join(", ")}`,
);
log(
  `moves at ${opts.nodes === undefined ? `${opts.timelow}–${opts.timehigh} s` : `${opts.nodes} nodes`}, ${opts.concurrency} games at once, database ${process.env.DATABASE_URL === undefined ? `embedded in ${process.env.SPSA_HOME}` : "DATABASE_URL"}`,
);
log(
  `detuned by ${opts.steps} steps: ${params.map((p) => `${p.name} ${defaults[p.name]} → ${detuned[p.name]}`).join(", ")}`,
);

const build = async (label, plus, minus) => {
  const built = await buildPlusAndMinus({
    build: config.build,
    params,
    values: { plus, minus },
    destination: (role, binary) => join(dir, label, role, binary),
  });
  return [built.plus.path, built.minus.path];
};
const match = (a, b, label) => {
  const out = execFileSync(
    "node",
    [
      join(root, "bin/compete.js"),
      a,
      b,
      "-g",
      opts["match-games"],
      "-c",
      opts.concurrency,
      ...limitFlags,
      "--margin",
      opts.margin,
      "--seed",
      `${opts.seed}:${label}`,
    ],
    { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] },
  );
  const { elo, error } = eloOf(out);
  const lines = out.split("\n");
  const faultsAt = lines.findIndex((l) => l.startsWith("faults"));
  const faults = lines
    .slice(faultsAt, faultsAt + 3)
    .map((l) => l.trim().replace(/\s+/g, " "))
    .join("; ");
  log(`${label}: Elo ${elo} ± ${error} (${out.split("\n")[0]}) ${faults}`);
  return { elo, error };
};

// 2. The gap.
const [defaultEngine, detunedEngine] = await build("start", defaults, detuned);
const gap = match(defaultEngine, detunedEngine, "default vs detuned");

// 3. The tuning run.
const name = `recovery-${Date.now()}`;
const worker = spawn(
  "node",
  [join(root, "bin/compete.js"), "--spsa", "-c", opts.concurrency, "--config", configFile, "--name", `${name}-worker`],
  { stdio: "ignore" },
);
workers.push(worker);
const tuneStart = performance.now();
execFileSync(
  "node",
  [
    join(root, "bin/spsa.js"),
    "--config",
    configFile,
    "master",
    "--params",
    paramsFile,
    "--name",
    name,
    "--seed",
    opts.seed,
  ],
  { stdio: ["ignore", "ignore", "ignore"] },
);
const tunedParams = loadParams(paramsFile);
const tuned = Object.fromEntries(tunedParams.map((p) => [p.name, p.value]));
log(
  `tuning run "${name}": ${Number(opts.iterations) * Number(opts.games)} games in ${((performance.now() - tuneStart) / 60000).toFixed(1)} min`,
);
// The run's own verification, played by its worker (verify logs to stderr).
const verifying = spawnSync(
  "node",
  [
    join(root, "bin/spsa.js"),
    "--config",
    configFile,
    "verify",
    "--params",
    paramsFile,
    "--name",
    name,
    "--games",
    opts["match-games"],
    ...limitFlags,
  ],
  { encoding: "utf8", stdio: ["ignore", "ignore", "pipe"] },
);
if (verifying.status !== 0) throw new Error(`spsa verify failed: ${verifying.stderr}`);
const verifyOut = verifying.stderr;
const verified = eloOf(verifyOut);
log(
  `spsa verify (tuned vs start): Elo ${verified.elo} ± ${verified.error} (${verifyOut
    .trim()
    .split("\n")
    .filter((l) => l.startsWith("games "))
    .at(-1)})`,
);
worker.kill("SIGTERM");
log(
  `tuned: ${params.map((p) => `${p.name} ${detuned[p.name]} → ${Number(tuned[p.name].toPrecision(4))} (default ${defaults[p.name]})`).join(", ")}`,
);
const stepsOff = (values) =>
  params.reduce((s, p) => s + Math.abs(values[p.name] - defaults[p.name]) / p.step, 0) / params.length;
log(
  `mean distance to the defaults: detuned ${stepsOff(detuned).toFixed(2)} steps, tuned ${stepsOff(tuned).toFixed(2)} steps`,
);
const untouched = params
  .filter((p) => !moved.has(p.name))
  .map((p) => ({ name: p.name, steps: Math.abs(tuned[p.name] - defaults[p.name]) / p.step }));
if (untouched.length > 0) {
  const worst = untouched.reduce((a, b) => (b.steps > a.steps ? b : a));
  log(
    `untouched parameters: ${untouched.filter((u) => u.steps <= 1).length} of ${untouched.length} within 1 step of their default; the farthest ${worst.name} ${worst.steps.toFixed(2)} steps`,
  );
}

// 4. Tuned against default (the verification above was tuned against detuned).
const [tunedEngine] = await build("end", Object.fromEntries(tunedParams.map((p) => [p.name, builtValue(p)])), defaults);
const vsDefault = match(tunedEngine, defaultEngine, "tuned vs default");
// Share of the gap, two ways: what the run gained over its start, and what is left to the default (1 + tuned vs default / gap).
// Errors of a ratio: both matches' errors, combined to first order.
const share = (elo, error) => ({
  value: elo / gap.elo,
  error: Math.sqrt(error ** 2 + ((elo / gap.elo) * gap.error) ** 2) / Math.abs(gap.elo),
});
const gained = share(verified.elo, verified.error);
const left = share(-vsDefault.elo, vsDefault.error);
const percent = (x) => `${(100 * x.value).toFixed(0)} ± ${(100 * x.error).toFixed(0)} %`;
log(
  `gap ${gap.elo.toFixed(1)} ± ${gap.error.toFixed(1)} Elo; recovered (spsa verify) ${verified.elo.toFixed(1)} ± ${verified.error.toFixed(1)} Elo = ${percent(gained)} of the gap; ` +
    `tuned vs default ${vsDefault.elo.toFixed(1)} ± ${vsDefault.error.toFixed(1)} Elo = ${(100 * (1 - left.value)).toFixed(0)} ± ${(100 * left.error).toFixed(0)} % of the gap recovered`,
);
log(`files in ${dir}`);
