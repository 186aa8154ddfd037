import { join } from "node:path";
import { spsaMathConfig } from "../config/config.js";
import { valuesOf, type Param } from "../params/params.js";
import { buildVariants } from "../engine-build/engine-builder.js";
import { storeBinaries } from "../engine-build/binary-store.js";
import { afterExpiringLeases, foldIteration } from "../db/batches.js";
import { holdSetAsideReports } from "../db/worker-decisions.js";
import { PollBackoff } from "../postgres/poll-backoff.js";
import { withRetry } from "../postgres/retry.js";
import { createRng } from "../core/rng.js";
import { perturb, update } from "../spsa/math.js";
import { previousMove, tailAverage } from "../spsa/trajectory.js";
import { stepScales } from "../spsa/adaptive.js";
import { crashPoint } from "./crash-points.js";
import { describeChanges, recordedParams, settingsOf } from "../config/iteration-settings.js";
import { faultWarning, formatProgress } from "./progress.js";
import { rateWindowMinutes, runRate } from "../db/run-status.js";
import {
  completeIteration, inFlightState, insertIteration, latestIteration, oldestOpenIteration, outcomeOf, readIteration, readMeasuredIterations, readThetaAfter, readTrajectory,
  type IterationRow,
} from "../db/iterations.js";
import { activeGameSlots } from "../db/workers.js";
import { allowedStaleness, mayOpen, slowBuildWarning, stalenessBound, stalenessOf } from "../spsa/in-flight.js";
import { markRunComplete, runParameters, type RunRow } from "../db/runs.js";
import { planBatchSizes, planReferenceBatchSizes } from "../spsa/batch-plan.js";
import { signedEngines } from "../signing/binary-signature.js";
import { StatusLine, withSpinner } from "../core/status-line.js";
import { outcomeText } from "../spsa/outcome-text.js";
import type { BuiltEngine } from "../engine-build/engine-builder.js";
import { runReference } from "./reference.js";
import { describePilot, pilotEngine, pilotIterations, pilotScaled, pilotSkipped } from "./pilot.js";
import type { Values } from "../types/spsa.js";
import { masterLog, openTuningRun, sweepRun, syncParamsFile, withTuningRun, type HeldOptions, type MasterOptions, type MasterSummary } from "./run-setup.js";
import { refuseRepeatedShipGames, runShipCheck } from "./ship-check.js";
import { BuildReview } from "./worker-review.js";
import { describeShipCheck } from "../head-to-head/ship-text.js";
import { finishTransfers, lookAtTransfers, queueTransfers } from "./transfer.js";

/**
 * The SPSA loop: perturb θ, build plus and minus, insert the iteration, wait for the
 * workers, apply the update in one transaction, write params.toml, repeat. Iterations are
 * opened ahead while earlier ones are played (src/spsa/in-flight.ts), and steps applied in
 * iteration order. Every step can be interrupted: a restarted master picks up from the database.
 */
export async function runMaster(options: MasterOptions): Promise<MasterSummary> {
  const log = masterLog(options);
  refuseRepeatedShipGames(options.config);
  const opened = await openTuningRun(options, log);
  const { run, created } = opened;
  log(created ? `run "${run.name}" started (seed ${run.seed})` : `run "${run.name}" resumed (seed ${run.seed})`);
  return withTuningRun(options, opened, (held) => tune(held, run, opened.params, log));
}

async function tune(options: HeldOptions, run: RunRow, params: Param[], log: (line: string) => void): Promise<MasterSummary> {
  const { database, config, paramsFile } = options;
  // What a master killed midway left to remove.
  await sweepRun(options, run, false, log);
  const reference = await runReference(options, run, params, log);
  const skipped = pilotSkipped(options.config);
  if (skipped) log(skipped);
  // θ₀ for the pilot iterations: built once, when the first of them starts.
  let theta0: Promise<BuiltEngine> | undefined;
  const opponentOf = (k: number) => (k <= pilotIterations(options.config) ? (theta0 ??= pilotEngine(options, run, params, log)) : Promise.resolve(reference));
  const initial = valuesOf(params);
  syncParamsFile(paramsFile, valuesOf(params), log);
  await reportChanges(options, run, params, log);
  const review = await BuildReview.start({ sql: database.sql, runId: run.id, names: params.map((p) => p.name), log, signal: options.signal });

  let current = params;
  const pace: Pace = { buildSeconds: undefined, warned: false };
  const bound = stalenessBound(config.spsa);
  for (;;) {
    options.signal?.throwIfAborted();
    // Before the step of any iteration due one: an iteration is never stepped without its transfer queued.
    await queueTransfers(options, run, current, log);
    // θ as the database holds it: an undo (spsa undo --worker) may have moved it.
    current = withTheta(current, await withRetry(log, options.signal, () => runParameters(database.sql, run.id)));
    const state = await withRetry(log, options.signal, () => inFlightState(database.sql, run.id));
    const k = state.latest + 1;
    // Open the next iteration while earlier ones are played, as far ahead as the slots need.
    if (k <= config.spsa.maxIterations) {
      const slots = await withRetry(log, options.signal, () => activeGameSlots(database.sql));
      const allowed = allowedStaleness({ slots, gamesPerIteration: config.games.gamesPerIteration, buildSeconds: pace.buildSeconds, gamesPerSecond: state.gamesPerSecond, maxStaleness: bound });
      if (mayOpen(k, state.applied, allowed, pilotIterations(config))) {
        pace.buildSeconds = await startIteration(options, run, current, k, stalenessOf(k, state.applied), log, await opponentOf(k));
        const warning = pace.warned ? undefined : slowBuildWarning({ gamesPerIteration: config.games.gamesPerIteration, buildSeconds: pace.buildSeconds, gamesPerSecond: state.gamesPerSecond });
        if (warning) log(warning);
        pace.warned ||= warning !== undefined;
        continue;
      }
    }
    // Steps are applied in iteration order: the oldest open iteration's is next.
    const oldest = await withRetry(log, options.signal, () => oldestOpenIteration(database.sql, run.id));
    if (oldest) {
      const played = await waitForGames(options, run, oldest, log);
      // The step waits while batches of a worker found a suspect are played again.
      if (await review.beforeStep(played.iterationNumber)) current = await finishIteration(options, run, current, played, log);
      // The iteration's engines are no longer played (unless a transfer still plays them).
      await sweepRun(options, run, false, log);
      continue;
    }
    await finishTransfers(options, run, current, log);
    await withRetry(log, options.signal, () => options.hold.transaction((tx) => markRunComplete(tx, run.id)));
    log(`run "${run.name}" complete: ${config.spsa.maxIterations} iterations`);
    const final = await finalValues(options, run, current, k - 1, log);
    const shipped = await shipCandidate(options, run, current, log);
    // A complete run keeps no engine: the final θ's is rebuilt from θ if ever needed (docs/results.md).
    await sweepRun(options, run, true, log);
    return { runName: run.name, iterations: state.latest, initial, final: shipped ?? final };
  }
}

/** What the master measured of its own builds, for how far ahead it opens iterations. */
interface Pace {
  buildSeconds: number | undefined;
  /** The slow-build warning is said once. */
  warned: boolean;
}

/** A resumed run says which settings differ from the last iteration's: they apply from the next one. */
async function reportChanges(options: MasterOptions, run: RunRow, params: Param[], log: (line: string) => void): Promise<void> {
  const latest = await withRetry(log, options.signal, () => latestIteration(options.database.sql, run.id));
  if (!latest?.settings) return;
  for (const change of describeChanges(latest.settings, settingsOf(options.config, params))) {
    log(`changed since iteration ${latest.iterationNumber}: ${change} (applies from iteration ${latest.iterationNumber + 1})`);
  }
}

/**
 * Builds plus and minus and opens iteration k, drawn from θ `params` with `staleness` steps
 * before it not applied yet; in reference mode and the curvature pilot they each play
 * `reference`. Returns the build's seconds.
 */
async function startIteration(
  options: HeldOptions,
  run: RunRow,
  params: Param[],
  k: number,
  staleness: number,
  log: (line: string) => void,
  reference: BuiltEngine | undefined,
): Promise<number> {
  const { config, database } = options;
  // The self-correcting schedule's a_k follows from θ so far (past rows, then today's θ).
  const trajectory =
    config.spsa.schedule === "self-correcting"
      ? [...(await withRetry(log, options.signal, () => readTrajectory(database.sql, run.id, k - 1))), valuesOf(params)]
      : undefined;
  const perturbation = perturb(params, spsaMathConfig(config.spsa, config.games.gamesPerIteration), k, createRng(`${run.seed}:${k}`), trajectory);
  // Adaptive gains: each parameter's factor on a_k from what the last iterations measured, recorded in the settings.
  const adaptive = config.spsa.adaptive;
  const measured =
    adaptive.mode === "off"
      ? undefined
      : stepScales(await withRetry(log, options.signal, () => readMeasuredIterations(database.sql, run.id, k - 1, adaptive.window)), params.map((p) => p.name), adaptive);
  // After the curvature pilot, its factor on every scale (src/master/pilot.ts).
  const { stepScale, pilot } = k > pilotIterations(config) ? await pilotScaled(options, run, measured, log) : { stepScale: measured, pilot: undefined };
  if (pilot && k === pilotIterations(config) + 1) log(describePilot(pilot));
  crashPoint("build-starting");
  // A master that stalled and lost the run to another one never builds.
  await withRetry(log, options.signal, () => options.hold.confirm());
  const started = Date.now();
  const building = buildVariants({
    build: config.build,
    params,
    values: { plus: perturbation.plus, minus: perturbation.minus },
    destination: (variant, binary) => join(config.build.outputDir, run.name, String(k), variant, binary),
    signal: options.signal,
  });
  // Cargo is running 200 ms after the builds start (a rebuild takes longer than that).
  const crashDuringBuild = setTimeout(() => crashPoint("build-started"), 200);
  const built = await withSpinner(`iteration ${k}: building plus and minus engines`, building).finally(() => clearTimeout(crashDuringBuild));
  const buildSeconds = (Date.now() - started) / 1000;
  const ahead = staleness > 0 ? `, drawn ${staleness} step${staleness > 1 ? "s" : ""} behind: iteration${staleness > 1 ? "s" : ""} ${k - staleness}${staleness > 1 ? `–${k - 1}` : ""} still playing` : "";
  log(`iteration ${k}: engines built in ${buildSeconds.toFixed(1)}s (c_k ${perturbation.ck.toFixed(3)}, a_k ${perturbation.ak.toFixed(4)}${ahead})`);
  // The run's uid, not its id: a signature names the database it belongs to (docs/signing.md).
  const engines = signedEngines(options.signingKey.sign, { runUid: run.uid, iterationNumber: k }, { plus: built.plus, minus: built.minus, ...(reference && { reference }) });
  const plan = reference ? planReferenceBatchSizes : planBatchSizes;
  // The binaries stored and named in one transaction, which commits only while this master holds the run.
  await withRetry(log, options.signal, () => options.hold.transaction(async (tx) => {
    await storeBinaries(tx, [built.plus, built.minus, ...(reference ? [reference] : [])]);
    return insertIteration(tx, {
      runId: run.id,
      iterationNumber: k,
      ...engines,
      timelowMs: config.timeControl.timelowMs,
      timehighMs: config.timeControl.timehighMs,
      targetGames: config.games.gamesPerIteration,
      batchSizes: plan(config.games.gamesPerIteration, config.games.batchSize, await activeGameSlots(tx)),
      ck: perturbation.ck,
      ak: perturbation.ak,
      base: valuesOf(params),
      plusValues: perturbation.plus,
      minusValues: perturbation.minus,
      signs: perturbation.signs,
      settings: { ...settingsOf(config, params, stepScale, pilot), ...(staleness > 0 && { staleness }) },
    });
  }));
  crashPoint("iteration-inserted");
  return buildSeconds;
}

/** Waits until the workers have played the iteration's target, showing progress; looks at the transfers playing meanwhile. */
async function waitForGames(options: HeldOptions, run: RunRow, iteration: IterationRow, log: (line: string) => void): Promise<IterationRow> {
  const { database, config } = options;
  const status = options.status ?? new StatusLine();
  const poll = new PollBackoff(config.database.pollIntervalMs);
  let row = iteration;
  let warnedFaults = false;
  try {
    for (;;) {
      options.signal?.throwIfAborted();
      const seen = row.gamesPlayed;
      await withRetry(log, options.signal, () => options.hold.stillHeld());
      row = await afterExpiringLeases(database.sql, log, options.signal, async () => {
        // Reports of workers under suspicion are held and their games played again (docs/bad-workers.md).
        await foldIteration(database.sql, iteration.id, (tx) => holdSetAsideReports(tx, run.id, iteration.id, true));
        return readIteration(database.sql, iteration.id);
      });
      // Reports arriving: look again soon, as the iteration may be about to finish.
      if (row.gamesPlayed !== seen) poll.reset();
      const rate = await withRetry(log, options.signal, () => runRate(database.sql, run.id, rateWindowMinutes(process.uptime())));
      status.update(formatProgress(row, config.spsa.maxIterations, rate));
      const warning = warnedFaults ? undefined : faultWarning(row);
      if (warning) {
        warnedFaults = true;
        status.done();
        log(warning);
      }
      await lookAtTransfers(options, run, (line) => {
        status.done();
        log(line);
      });
      if (row.gamesPlayed >= row.targetGames) break;
      if (row.gamesPlayed > 0) crashPoint("waiting");
      await poll.wait(options.signal);
    }
  } finally {
    status.done();
  }
  return row;
}

async function finishIteration(
  options: HeldOptions,
  run: RunRow,
  params: Param[],
  iteration: IterationRow,
  log: (line: string) => void,
): Promise<Param[]> {
  const { config, database, paramsFile } = options;
  const k = iteration.iterationNumber;
  // The update uses only what the iteration recorded (today's files may differ from what was
  // played), and moves θ as the database holds it: the step measured around the iteration's base
  // θ, which an iteration opened in flight drew before the steps of the iterations still playing then.
  const settings = iteration.settings ?? settingsOf(config, params);
  const played = { ak: iteration.ak, plus: iteration.plusParameters, minus: iteration.minusParameters, ...(settings.stepScale && { scale: settings.stepScale }) };
  // Plus against minus, or (its row names a reference engine) both sides against the reference.
  const counts = outcomeOf(iteration);
  const previous = (settings.spsa.momentum ?? 0) > 0 ? previousMove(await withRetry(log, options.signal, () => readTrajectory(database.sql, run.id, k)), k) : undefined;
  const step = (stored: Values) => {
    // Parameters added since the run started have no θ in the database yet: they keep their value.
    const theta = { ...valuesOf(params), ...stored };
    const updated = update(recordedParams(settings, theta), played, counts, settings.spsa, previous);
    return { ...updated, newValues: { ...theta, ...updated.newValues } };
  };
  const result = await withRetry(log, options.signal, () =>
    options.hold.transaction((tx) => completeIteration(tx, { runId: run.id, iterationId: iteration.id, step, finalIteration: k >= config.spsa.maxIterations })),
  );
  crashPoint("iteration-committed");
  // Not applied: the iteration was completed already (a commit retried after its answer was
  // lost, or another master on this run). θ is then what the database holds.
  if (result) {
    log(`iteration ${k}: ${outcomeText(counts)}, Elo ${result.elo.toFixed(1)} (${iteration.referenceEngineSha256 === null ? "plus vs minus" : "θ+ vs reference − θ− vs reference"})`);
  } else {
    log(`iteration ${k} was already complete in the database: θ taken from there`);
  }
  const theta = result ? result.newValues : await withRetry(log, options.signal, () => runParameters(database.sql, run.id));
  const next = withTheta(params, theta);
  syncParamsFile(paramsFile, valuesOf(next), () => {});
  return next;
}

/** The parameters at θ (a parameter θ lacks keeps its value). */
function withTheta(params: readonly Param[], theta: Values): Param[] {
  return params.map((p) => ({ ...p, value: theta[p.name] ?? p.value }));
}

/**
 * With a ship check (`[ship]`, or one a killed master left running): its chosen candidate,
 * written to params.toml, and its verdict said; a candidate that did not pass is said as a warning.
 */
async function shipCandidate(options: MasterOptions, run: RunRow, params: Param[], log: (line: string) => void): Promise<Values | undefined> {
  const check = await runShipCheck(options, run, params, log);
  if (!check?.chosenParameters) return undefined;
  log(describeShipCheck(check));
  syncParamsFile(options.paramsFile, check.chosenParameters, () => {});
  log(`${options.paramsFile}: the ship check's candidate (${check.chosen})`);
  if (check.verdict !== "pass") log(`warning: the shipped candidate did not pass its test against the start θ (${check.verdict ?? "no verdict"}): keep testing before you ship it`);
  return check.chosenParameters;
}

/**
 * What the run hands back: its last θ, or with `[spsa] average_tail` the mean of θ over that
 * share of the last iterations (Polyak–Ruppert), written to params.toml. The database keeps
 * the last θ (spsa_run.current_parameters), so the run's history stays as it was played.
 */
async function finalValues(options: MasterOptions, run: RunRow, params: Param[], iterations: number, log: (line: string) => void): Promise<Values> {
  const { averageTail } = options.config.spsa;
  if (averageTail === 0 || iterations === 0) return valuesOf(params);
  // θ after each iteration as its step left it (with iterations in flight, the next one's base is older θ).
  const thetas = await withRetry(log, options.signal, () => readThetaAfter(options.database.sql, run.id));
  const averaged = tailAverage(thetas.length > 0 ? thetas : [valuesOf(params)], averageTail);
  syncParamsFile(options.paramsFile, averaged, () => {});
  log(`${options.paramsFile}: θ averaged over the last ${Math.max(1, Math.ceil(averageTail * iterations))} of ${iterations} iterations ([spsa] average_tail ${averageTail})`);
  return averaged;
}

