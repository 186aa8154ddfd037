/**
 * A build-mode iteration from its draw to its row (src/master/build-mode.ts): drawn from the θ
 * the master has, its plus and minus built in the background, then opened in iteration order.
 */
import { join } from "node:path";
import { spsaMathConfig } from "../config/config.js";
import { settingsOf } from "../config/iteration-settings.js";
import { valuesOf, type Param } from "../params/params.js";
import { buildPlusAndMinus, type BuiltEngine } from "../engine-build/engine-builder.js";
import { storeBinaries } from "../engine-build/binary-store.js";
import { insertIteration, readMeasuredIterations, readTrajectory } from "../db/iterations.js";
import { activeGameSlots } from "../db/workers.js";
import { createRng } from "../core/rng.js";
import { perturb } from "../spsa/math.js";
import { stepScales } from "../spsa/adaptive.js";
import { pilotIterations, widenedGains } from "../spsa/pilot.js";
import { planBatchSizes, planReferenceBatchSizes } from "../spsa/batch-plan.js";
import { signedEngines } from "../signing/binary-signature.js";
import type { Perturbation } from "../types/spsa.js";
import type { IterationSettings } from "../types/config.js";
import type { Sql } from "../postgres/sql.js";
import { drawnScale } from "../spsa/undo-replay.js";
import { GAIN_BLOCK_GAMES, isGainIteration, tunerStep, type BuildGainPlan } from "../spsa/gain-block-plan.js";
import { crashPoint } from "./crash-points.js";
import { buildGainEngine, gainPerturbation } from "./gain-iterations.js";
import { describePilot, pilotScaled } from "./pilot.js";
import type { MasterContext } from "./run-setup.js";

/**
 * Iteration k as drawn: its perturbation from θ `params`, its settings, and the engine its sides
 * play in reference mode or the curvature pilot.
 */
export interface DrawnIteration {
  k: number;
  params: Param[];
  staleness: number;
  perturbation: Perturbation;
  settings: IterationSettings;
  reference: BuiltEngine | undefined;
}

/** Iteration k's engines, built, with what it drew. */
export interface BuiltIteration {
  drawn: DrawnIteration;
  plus: BuiltEngine;
  minus: BuiltEngine;
}

/**
 * Draws iteration k from θ `params`, with `staleness` steps before it not applied yet: its
 * perturbation (its step scales follow when it opens, from the iterations 1..k − 1 − staleness). In reference mode, the curvature pilot and a gain iteration its sides each play
 * `reference` (θ₀ for the latter two). The tuner's schedule counts its own iterations (tunerStep
 * of the run's gain `plan`); a gain iteration is θ on both sides, its settings marked `gain`.
 */
export async function drawIteration(
  master: MasterContext,
  params: Param[],
  k: number,
  staleness: number,
  reference: BuiltEngine | undefined,
  plan: BuildGainPlan,
): Promise<DrawnIteration> {
  const { options, run, db, log } = master;
  const { config } = options;
  if (isGainIteration(plan, k))
    return {
      k,
      params,
      staleness,
      perturbation: gainPerturbation(params),
      reference,
      settings: { ...settingsOf(config, params), ...(staleness > 0 && { staleness }), gain: true },
    };
  const step = tunerStep(plan, k);
  // The self-correcting schedule's a_k follows from θ so far (past rows, then today's θ).
  const trajectory =
    config.spsa.schedule === "self-correcting"
      ? [...(await db.retrying((sql) => readTrajectory(sql, run.id, k - 1))), valuesOf(params)]
      : undefined;
  // Adaptive gains: each parameter's factor on a_k from what the iterations applied by now measured,
  // chosen when the iteration opens (scaledNow: an undo may rewrite them meanwhile); the floor until then.
  const adaptive = config.spsa.adaptive;
  const measured =
    adaptive.mode === "off"
      ? undefined
      : stepScales(
          [],
          params.map((p) => p.name),
          adaptive,
        );
  // After the curvature pilot, its factor on every scale and on the perturbation (src/master/pilot.ts).
  const { stepScale, pilot } =
    k > pilotIterations(config) ? await pilotScaled(master, measured) : { stepScale: measured, pilot: undefined };
  if (pilot && k === pilotIterations(config) + 1) log(describePilot(pilot, adaptive));
  const perturbation = perturb(
    params,
    widenedGains(
      spsaMathConfig({ ...config.spsa, maxIterations: plan.tunerIterations }, config.games.gamesPerIteration),
      pilot?.factor,
    ),
    step,
    createRng(`${run.seed}:${k}`),
    trajectory,
  );
  return {
    k,
    params,
    staleness,
    perturbation,
    reference,
    settings: { ...settingsOf(config, params, stepScale, pilot), ...(staleness > 0 && { staleness }) },
  };
}

/** Builds a drawn iteration's plus and minus in build slot `slot` (in the background: the master goes on meanwhile). */
export async function buildIteration(
  master: MasterContext,
  drawn: DrawnIteration,
  slot: number,
  signal: AbortSignal,
): Promise<BuiltIteration> {
  const { options, run, db } = master;
  const { config } = options;
  if (drawn.settings.gain) {
    const theta = { k: drawn.k, params: drawn.params, values: drawn.perturbation.plus };
    return { drawn, ...(await buildGainEngine(master, theta, slot, signal)) };
  }
  const building = buildPlusAndMinus({
    build: config.build,
    params: drawn.params,
    values: { plus: drawn.perturbation.plus, minus: drawn.perturbation.minus },
    destination: (role, binary) => join(config.build.outputDir, run.name, String(drawn.k), role, binary),
    slot,
    signal,
    // Its trees are held through the run's lease: a master that lost it blocks no other.
    hold: options.lease.treeHold(db),
  });
  // Cargo is running 200 ms after the builds start (a rebuild takes longer than that).
  const crashDuringBuild = setTimeout(() => crashPoint("build-started"), 200);
  const built = await building.finally(() => clearTimeout(crashDuringBuild));
  return { drawn, ...built };
}

/**
 * Iterations in flight (docs/in-flight.md), in words: iteration k was drawn from a θ that lacked the
 * steps of the `staleness` iterations before it, still playing then ("drawn from θ before iteration 2's
 * step, which was still playing").
 */
export function drawnBehind(k: number, staleness: number): string {
  return staleness === 1
    ? `drawn from θ before iteration ${k - 1}'s step, which was still playing`
    : `drawn from θ before the steps of iterations ${k - staleness}–${k - 1}, which were still playing`;
}

/** Opens a built iteration: its binaries stored and signed, its row and batches inserted. */
export async function openIteration(
  { options, run, db, log }: MasterContext,
  built: BuiltIteration,
  buildSeconds: number,
): Promise<void> {
  const { config } = options;
  const { k, staleness, perturbation, reference, settings } = built.drawn;
  const ahead = staleness === 0 ? "" : `; ${drawnBehind(k, staleness)}`;
  log(
    settings.gain
      ? `iteration ${k} (gain): θ built in ${buildSeconds.toFixed(1)}s, both sides play θ₀ (no step${ahead})`
      : `iteration ${k}: engines built in ${buildSeconds.toFixed(1)}s (c_k ` +
          `${perturbation.ck.toFixed(3)}, a_k ${perturbation.ak.toFixed(4)}${ahead})`,
  );
  // The run's uid, not its id: a signature names the database it belongs to (docs/signing.md).
  const engines = signedEngines(
    options.signingKey.sign,
    { runUid: run.uid, iterationNumber: k },
    { plus: built.plus, minus: built.minus, ...(reference && { reference }) },
  );
  const plan = reference ? planReferenceBatchSizes : planBatchSizes;
  const targetGames = settings.gain ? GAIN_BLOCK_GAMES : config.games.gamesPerIteration;
  // A gain iteration's plus and minus are one binary: stored once.
  const binaries = [
    ...new Map([built.plus, built.minus, ...(reference ? [reference] : [])].map((b) => [b.sha256, b])).values(),
  ];
  // The binaries stored and named in one transaction, which commits only while this master has the run's lease.
  await db.retrying(() =>
    options.lease.transaction(async (tx) => {
      await storeBinaries(tx, binaries);
      // Under the run's row lock, so an undo either came before (and its replay is read) or comes after (and rewrites this row).
      const scaled = await scaledNow(tx, run.id, built.drawn);
      return insertIteration(tx, {
        runId: run.id,
        iterationNumber: k,
        ...engines,
        timelowMs: config.timeControl.timelowMs,
        timehighMs: config.timeControl.timehighMs,
        targetGames,
        batchSizes: plan(targetGames, config.games.batchSize, await activeGameSlots(tx)),
        ck: perturbation.ck,
        ak: perturbation.ak,
        base: valuesOf(built.drawn.params),
        plusValues: perturbation.plus,
        minusValues: perturbation.minus,
        signs: perturbation.signs,
        settings: scaled,
      });
    }),
  );
  crashPoint("iteration-inserted");
}

/**
 * A drawn iteration's settings with the step scale its applied iterations (1..k − 1 − staleness)
 * give now, raised by the pilot's factor: read when it opens, since an undo or a take-out at a
 * flag after its draw replays what they measured (src/master/recorded-theta.ts), and its step must
 * take the scale a replay would.
 */
async function scaledNow(sql: Sql, runId: number, drawn: DrawnIteration): Promise<IterationSettings> {
  const { settings, k, staleness } = drawn;
  const window = settings.spsa.adaptive?.window;
  if (settings.stepScale === undefined || window === undefined) return settings;
  const stepScale = drawnScale(settings, await readMeasuredIterations(sql, runId, k - 1 - staleness, window));
  return { ...settings, ...(stepScale && { stepScale }) };
}
