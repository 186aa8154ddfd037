import { writeFileSync } from "node:fs";
import type postgres from "postgres";
import { expect } from "vitest";
import { loadConfig } from "../../src/config/config.js";
import { recordedParams, settingsOf } from "../../src/config/iteration-settings.js";
import { storedRunConfig } from "../../src/config/secrets.js";
import { createRng } from "../../src/core/rng.js";
import { claimBatch } from "../../src/db/batches.js";
import { insertOptionRun } from "../../src/db/option-run.js";
import { foldIteration } from "../../src/db/fold.js";
import { completeIteration, insertIteration, outcomeOf, readIteration } from "../../src/db/iterations.js";
import { openRun } from "../../src/db/runs.js";
import type { Param } from "../../src/params/params.js";
import { signedEngines } from "../../src/signing/binary-signature.js";
import { perturb, update } from "../../src/spsa/math.js";
import type { TuningConfig } from "../../src/types/config.js";
import type { IterationResult, SpsaMathConfig, Values } from "../../src/types/spsa.js";
import { registerTestWorker, reportResult } from "./iterations.js";
import { localSigningKey } from "./signing.js";

/**
 * A small build-mode run written as a master and its workers write it (no engine plays): each
 * iteration of 16 games in batches of 4, drawn from θ as the database holds it, its batches
 * claimed and reported by the named workers, folded and stepped as the master's finishIteration
 * steps. For the commands about a run's workers (`spsa undo`, `spsa workers`).
 */

export const PLAYED_PARAMS: Param[] = ["X", "Y"].map((name) => ({
  name,
  value: 5,
  min: 0,
  max: 10,
  step: 1,
  type: "float",
  constant: name,
  index: [],
  rustType: undefined,
  option: undefined,
}));

/** params.toml of PLAYED_PARAMS at θ, with a comment that must survive a rewrite. */
export function playedParamsToml(theta: Values): string {
  return [
    "# the run's parameters",
    ...PLAYED_PARAMS.flatMap((p) => [
      `[${p.name}]`,
      `value = ${theta[p.name]}`,
      "min = 0",
      "max = 10",
      "step = 1",
      'type = "float"',
      "",
    ]),
  ].join("\n");
}

/**
 * The run `name`: one iteration per entry of `iterations`, whose workers claim and report its four
 * batches in order (a worker named "liar" reports plus winning every game); every iteration is
 * stepped, but the last one when `openLast`. Returns the run and its θ.
 */
export async function playRun(
  sql: postgres.Sql,
  name: string,
  iterations: string[][],
  options: { openLast?: boolean } = {},
): Promise<{ run: { id: number; name: string; uid: string }; theta: Values }> {
  const config = loadConfig("config.toml");
  const { run } = await openRun(sql, { name, fresh: false, config: storedRunConfig(config), values: { X: 5, Y: 5 } });
  for (const w of new Set(iterations.flat())) await registerTestWorker(sql, w);
  const rng = createRng(name);
  const gains = { a: 0.02, c: 1, A: 1, alpha: 0.602, gamma: 0.101, maxIterations: 10 };
  for (const [i, workers] of iterations.entries()) {
    const k = i + 1;
    const iteration = await openPlayedIteration(sql, run, k, {
      config,
      gains,
      batches: workers.length,
      seed: `${name}:${k}`,
    });
    for (const worker of workers) {
      const batch = await claimBatch(sql, worker, 4);
      expect(batch?.iterationId).toBe(iteration.id);
      expect(await reportResult(sql, worker, batch!, resultOf(worker, batch!.games, rng))).toBe("accepted");
    }
    await foldIteration(sql, iteration.id);
    if (options.openLast && k === iterations.length) break;
    const row = await readIteration(sql, iteration.id);
    const step = (base: Values) => {
      const updated = update(
        recordedParams(row.settings!, base),
        { ak: row.ak, plus: row.plusParameters, minus: row.minusParameters },
        outcomeOf(row),
        row.settings!.spsa,
      );
      return { ...updated, newValues: { ...base, ...updated.newValues } };
    };
    const done = await sql.begin((tx) =>
      completeIteration(tx, { runId: run.id, iterationId: iteration.id, step, finalIteration: false }),
    );
    expect(done).toBeDefined();
  }
  return { run, theta: await runTheta(sql, run.id) };
}

/**
 * Iteration k of a run of PLAYED_PARAMS as a master opens it: `batches` batches of 4 games, drawn
 * from θ as the database holds it (draws seeded by `seed`), with the step scales given.
 */
export async function openPlayedIteration(
  sql: postgres.Sql,
  run: { id: number; uid: string },
  k: number,
  options: {
    config: TuningConfig;
    gains: Pick<SpsaMathConfig, "a" | "c" | "A" | "alpha" | "gamma" | "maxIterations">;
    batches: number;
    seed: string;
    stepScale?: Values;
  },
) {
  const theta = await runTheta(sql, run.id);
  const params = PLAYED_PARAMS.map((p) => ({ ...p, value: theta[p.name]! }));
  const perturbation = perturb(params, options.gains, k, createRng(options.seed));
  const engine = { path: "/nonexistent/engine", sha256: "0".repeat(64) };
  const settings = settingsOf(options.config, params);
  return insertIteration(sql, {
    runId: run.id,
    iterationNumber: k,
    ...signedEngines(localSigningKey().sign, { runUid: run.uid, iterationNumber: k }, { plus: engine, minus: engine }),
    timelowMs: 10,
    timehighMs: 20,
    targetGames: 4 * options.batches,
    batchSizes: Array.from({ length: options.batches }, () => 4),
    ck: perturbation.ck,
    ak: perturbation.ak,
    base: theta,
    plusValues: perturbation.plus,
    minusValues: perturbation.minus,
    signs: perturbation.signs,
    settings: options.stepScale ? { ...settings, stepScale: options.stepScale } : settings,
  });
}

/** A liar's report wins every game for plus; an honest one is whole pairs of wins, losses and draws. */
function resultOf(worker: string, games: number, rng: ReturnType<typeof createRng>): IterationResult {
  if (worker === "liar") return { plusWins: games, minusWins: 0, draws: 0 };
  const result = { plusWins: 0, minusWins: 0, draws: 0 };
  for (let g = 0; g < games; g += 2) {
    const x = rng.next();
    result[x < 0.35 ? "plusWins" : x < 0.7 ? "minusWins" : "draws"] += 2;
  }
  return result;
}

/**
 * A UCI-option run of PLAYED_PARAMS at θ (5, 5) as the master opens one: its carrier iteration of
 * `target` games, its option-run row with adaptive gains and θ stored after every second applied
 * batch. For the commands that rewrite a run's chain (`spsa undo`, `spsa workers accept`).
 */
export async function openPlayedOptionRun(sql: postgres.Sql, options: { name: string; seed: string; target: number }) {
  const config = loadConfig("config.toml");
  const { run } = await openRun(sql, {
    name: options.name,
    seed: options.seed,
    fresh: false,
    config: storedRunConfig(config),
    values: { X: 5, Y: 5 },
  });
  const engine = { path: "/nonexistent/engine", sha256: "0".repeat(64) };
  const iteration = await insertIteration(sql, {
    runId: run.id,
    iterationNumber: 1,
    ...signedEngines(localSigningKey().sign, { runUid: run.uid, iterationNumber: 1 }, { plus: engine, minus: engine }),
    timelowMs: 10,
    timehighMs: 20,
    targetGames: options.target,
    batchSizes: [],
    ck: 0,
    ak: 0,
    base: { X: 5, Y: 5 },
    plusValues: { X: 5, Y: 5 },
    minusValues: { X: 5, Y: 5 },
    signs: {},
    settings: settingsOf(config, PLAYED_PARAMS),
  });
  const parameters = Object.fromEntries(
    PLAYED_PARAMS.map((p) => [
      p.name,
      { min: p.min, max: p.max, step: p.step, type: p.type, frozen: false, option: p.name, optionScale: undefined },
    ]),
  );
  // Adaptive gains: each step's scale comes from the batches applied before it.
  const gains = {
    a: 2,
    c: 1,
    A: 2,
    alpha: 0.602,
    gamma: 0.101,
    maxIterations: 10,
    adaptive: { mode: "signal" as const, window: 2, floor: 0.2 },
  };
  const optionRun = {
    runId: run.id,
    iterationId: iteration.id,
    enginePath: "/x",
    engineSha256: "x",
    parameters,
    names: ["X", "Y"],
    thetaEvery: 2,
    gains,
    gamesPerIteration: 16,
    parametersSignature: null,
  };
  await insertOptionRun(sql, optionRun);
  return { run, iteration, optionRun };
}

export async function runTheta(sql: postgres.Sql, runId: number): Promise<Values> {
  const [row] = await sql<{ theta: Values }[]>`select current_parameters as theta from spsa_run where id = ${runId}`;
  return row!.theta;
}

/** Every row an undo could write, as text: two snapshots are equal when nothing changed. */
export async function runRows(sql: postgres.Sql): Promise<Record<string, string[]>> {
  const tables = ["spsa_run", "spsa_iteration", "spsa_batch", "spsa_undo", "spsa_perturbation", "spsa_worker_decision"];
  const rows: Record<string, string[]> = {};
  for (const table of tables)
    rows[table] = (await sql.unsafe(`select t::text as row from ${table} t order by 1`)).map((r) => String(r.row));
  return rows;
}

/** A config.toml at `file` that points the commands at the test's database. */
export function databaseConfig(file: string, url: string): string {
  writeFileSync(file, `[database]\nurl = "${url}"\n`);
  return file;
}
