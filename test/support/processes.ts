import { readFileSync } from "node:fs";
import { execa, type ResultPromise } from "execa";
import postgres from "postgres";
import { loadConfig, spsaMathConfig } from "../../src/config/config.js";
import { loadParams } from "../../src/params/params.js";
import { stepScales } from "../../src/spsa/adaptive.js";
import { pilotIterations } from "../../src/spsa/pilot.js";
import { perturb, update } from "../../src/spsa/math.js";
import { pilotMeasure, pilotScales, spreadSquared } from "../../src/spsa/pilot.js";
import { createRng } from "../../src/core/rng.js";
import { COMPETE_BIN, ROOT, SPSA_BIN } from "./cli.js";
import { outcomeOf, referenceGames, type ReferenceCounts } from "./reference-counts.js";
import { replayChain } from "./replay-chain.js";
import type { TuningSetup } from "./tuning-setup.js";
import {
  type MeasuredIteration,
  isReferenceResult,
  type SpsaParam,
  type PilotIteration,
} from "../../src/types/spsa.js";

type Child = ResultPromise<{ reject: false; all: true }>;

/** Whether the process is stopped by a signal (state T in /proc): a SIGSTOP took effect. */
export const isStopped = (pid: number) => /^\d+ \(.*\) T /.test(readFileSync(`/proc/${pid}/stat`, "utf8"));

export function startMaster(
  setup: TuningSetup,
  env: Record<string, string>,
  runName: string,
  extra: string[] = [],
): Child {
  return execa(
    "node",
    [SPSA_BIN, "--config", setup.configFile, "master", "--params", setup.paramsFile, "--name", runName, ...extra],
    {
      env,
      cwd: ROOT,
      reject: false,
      all: true,
    },
  );
}

/** `groupLeader`: in a process group of its own, as a terminal starts a foreground job (its Ctrl-C is `kill -INT -<pid>`). */
export function startWorker(
  setup: TuningSetup,
  env: Record<string, string>,
  name: string,
  extra: string[] = [],
  options: { groupLeader?: boolean } = {},
): Child {
  return execa("node", [COMPETE_BIN, "--spsa", "-c", "1", "--config", setup.configFile, "--name", name, ...extra], {
    env,
    cwd: ROOT,
    reject: false,
    all: true,
    detached: options.groupLeader ?? false,
  });
}

export interface IterationCheck extends ReferenceCounts {
  iteration_number: number;
  status: string;
  target_games: number;
  games_played: number;
  games_claimed: number;
  plus_wins: number;
  minus_wins: number;
  draws: number;
  batch_games: number;
  base_parameters: Record<string, number>;
  perturbation_signs: Record<string, number>;
  /** Iterations before it whose step was not applied when it was drawn (src/spsa/in-flight.ts). */
  staleness: number;
  created_at: Date;
  completed_at: Date | null;
}

/** The run's iterations with the games of their accepted batches. */
export async function iterationsOf(sql: postgres.Sql, runName: string): Promise<IterationCheck[]> {
  return sql<IterationCheck[]>`
    select i.iteration_number, i.status, i.target_games, i.games_played, i.games_claimed, i.plus_wins, i.minus_wins, i.draws,
      i.ref_plus_wins, i.ref_plus_draws, i.ref_plus_losses, i.ref_minus_wins, i.ref_minus_draws, i.ref_minus_losses,
      i.base_parameters, i.perturbation_signs, coalesce((i.settings->>'staleness')::int, 0) as staleness, i.created_at, i.completed_at,
      (select coalesce(sum(games), 0)::int from spsa_batch b where b.iteration_id = i.id and b.status = 'done') as batch_games
    from spsa_iteration i join spsa_run r on r.id = i.run_id where r.name = ${runName} order by i.iteration_number`;
}

/** Every iteration complete with exactly its target, each game counted once. */
export function expectExactCounts(
  rows: IterationCheck[],
  expect: (value: unknown, message?: string) => { toBe(v: unknown): void },
): void {
  for (const row of rows) {
    const label = `iteration ${row.iteration_number}`;
    expect(row.status, label).toBe("complete");
    expect(row.games_played, label).toBe(row.target_games);
    expect(row.batch_games, label).toBe(row.target_games);
    expect(row.plus_wins + row.minus_wins + row.draws + referenceGames(row), label).toBe(row.games_played);
  }
}

/**
 * Replays the SPSA formulas on the recorded results from the initial params: the θ of
 * every iteration, its signs and the final params.toml must be what an uninterrupted run
 * with the same game results gives, with each iteration's adaptive step scale recomputed
 * from the results before it and raised by the curvature pilot's factor once its iterations
 * are in. An iteration opened in flight (its recorded staleness d) was drawn from θ after the
 * steps of 1..k − 1 − d, with the scales of those, and its step moves θ after k − 1's step.
 * Returns the final θ.
 */
export function replayTheta(
  setup: TuningSetup,
  initialParamsFile: string,
  seed: string,
  rows: IterationCheck[],
  expect: (value: unknown, message?: string) => { toEqual(v: unknown): void },
): Record<string, number> {
  const config = loadConfig(setup.configFile);
  const start: SpsaParam[] = loadParams(initialParamsFile).map(({ name, value, min, max, step, type }) => ({
    name,
    value,
    min,
    max,
    step,
    type,
  }));
  const at = (theta: Record<string, number>) => start.map((p) => ({ ...p, value: theta[p.name] ?? p.value }));
  const measured: MeasuredIteration[] = [];
  const pilots: PilotIteration[] = [];
  const pilotCount = pilotIterations(config);
  const { adaptive } = config.spsa;
  return replayChain(
    rows,
    Object.fromEntries(start.map((p) => [p.name, p.value])),
    (row) => row.staleness,
    (row, applied, theta) => {
      const k = row.iteration_number;
      // After the pilot, its factor raises the scales and widens c (adapt_widen).
      const factor = pilots.length > 0 ? pilotMeasure(pilots).factor : undefined;
      const gains = spsaMathConfig(config.spsa, config.games.gamesPerIteration);
      const perturbation = perturb(
        at(row.base_parameters),
        { ...gains, c: gains.c * (factor ?? 1) ** (adaptive.widen ?? 0) },
        k,
        createRng(`${seed}:${k}`),
      );
      expect(row.perturbation_signs, `signs of iteration ${k}`).toEqual(perturbation.signs);
      const outcome = outcomeOf(row, k <= pilotCount);
      const adaptiveScale =
        adaptive.mode === "off"
          ? undefined
          : stepScales(
              measured.slice(0, applied),
              start.map((p) => p.name),
              adaptive,
            );
      const scale =
        adaptiveScale && factor !== undefined ? pilotScales(adaptiveScale, adaptive, factor) : adaptiveScale;
      const result = update(at(theta), { ...perturbation, ...(scale && { scale }) }, outcome, config.spsa);
      measured.push({ elo: result.elo, result: outcome });
      if (isReferenceResult(outcome)) {
        const steps = Object.fromEntries(start.map((p) => [p.name, p.step]));
        pilots.push({ outcome, spreadSquared: spreadSquared(steps, perturbation.plus, perturbation.minus) });
      }
      return result.newValues;
    },
    expect,
  );
}

/** The run is complete, and θ in the database and in params.toml (exactly, shortest round-trip form) is `final`. */
export async function expectRunFinal(
  sql: postgres.Sql,
  setup: TuningSetup,
  runName: string,
  final: Record<string, number>,
  expect: (value: unknown, message?: string) => { toBe(v: unknown): void; toEqual(v: unknown): void },
): Promise<void> {
  const written = Object.fromEntries(loadParams(setup.paramsFile).map((p) => [p.name, p.value]));
  for (const [name, value] of Object.entries(final)) expect(written[name], name).toBe(value);
  const [run] = await sql<{ current_parameters: Record<string, number>; status: string }[]>`
    select current_parameters, status from spsa_run where name = ${runName}`;
  expect(run?.status).toBe("complete");
  expect(run?.current_parameters).toEqual(final);
}

/** What a child has printed so far (stdout and stderr), growing as it prints. */
export function outputSoFar(child: Child): () => string {
  let text = "";
  child.all?.on("data", (chunk: Buffer | string) => (text += chunk.toString()));
  return () => text;
}

/** Waits (polling, bounded) until `check` holds. */
export async function waitFor(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
