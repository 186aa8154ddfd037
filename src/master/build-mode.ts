import { availableParallelism } from "node:os";
import { join } from "node:path";
import { spsaMathConfig } from "../config/config.js";
import { valuesOf, type Param } from "../params/params.js";
import { buildPlusAndMinus } from "../engine-build/engine-builder.js";
import { storeBinaries } from "../engine-build/binary-store.js";
import { expireLeases } from "../db/batches.js";
import { foldIteration } from "../db/fold.js";
import { PollBackoff } from "../postgres/poll-backoff.js";
import { createRng } from "../core/rng.js";
import { perturb, update } from "../spsa/math.js";
import { previousMove, tailAverage } from "../spsa/trajectory.js";
import { stepScales } from "../spsa/adaptive.js";
import { crashPoint } from "./crash-points.js";
import { describeChanges, playedWith, recordedParams, settingsOf } from "../config/iteration-settings.js";
import { faultWarning, formatProgress } from "./progress.js";
import { rateWindowMinutes, runRate } from "../db/run-status.js";
import {
  completeIteration,
  inFlightState,
  insertIteration,
  latestIteration,
  oldestOpenIteration,
  outcomeOf,
  readIteration,
  readMeasuredIterations,
  readPlayedWith,
  readThetaAfter,
  readTrajectory,
  type IterationRow,
} from "../db/iterations.js";
import { activeGameSlots } from "../db/workers.js";
import {
  allowedStaleness,
  buildsAtOnce,
  mayOpen,
  slowBuildWarning,
  stalenessBound,
  stalenessOf,
} from "../spsa/in-flight.js";
import { markRunComplete, runParameters } from "../db/runs.js";
import { planBatchSizes, planReferenceBatchSizes } from "../spsa/batch-plan.js";
import { signedEngines } from "../signing/binary-signature.js";
import { StatusLine, withSpinner } from "../core/status-line.js";
import { outcomeText } from "../spsa/outcome-text.js";
import type { BuiltEngine } from "../engine-build/engine-builder.js";
import { runReference } from "./reference.js";
import { describePilot, pilotEngine, pilotIterations, pilotScaled, pilotSkipped } from "./pilot.js";
import type { Perturbation, Values } from "../types/spsa.js";
import type { IterationSettings } from "../types/config.js";
import { IterationBuilds } from "./iteration-builds.js";
import {
  openTuningRun,
  sweepRun,
  syncParamsFile,
  withTuningRun,
  type MasterContext,
  type MasterOptions,
  type MasterSummary,
} from "./run-setup.js";
import { refuseRepeatedShipGames, runShipCheck } from "./ship-check.js";
import { BuildReview } from "./worker-review.js";
import { describeShipCheck } from "../verification/ship-text.js";
import { finishTransfers, lookAtTransfers, queueTransfers } from "./transfer.js";

/**
 * The SPSA loop: perturb θ, build plus and minus, insert the iteration, wait for the
 * workers, apply the update in one transaction, write params.toml, repeat. Iterations are
 * opened ahead while earlier ones are played (src/spsa/in-flight.ts), and steps applied in
 * iteration order. Every step can be interrupted: a restarted master picks up from the database.
 */
export async function runBuildMaster(options: MasterOptions): Promise<MasterSummary> {
  refuseRepeatedShipGames(options.config);
  const opened = await openTuningRun(options);
  const { run, created, log } = opened;
  log(created ? `run "${run.name}" started (seed ${run.seed})` : `run "${run.name}" resumed (seed ${run.seed})`);
  return withTuningRun(options, opened, tune);
}

async function tune(master: MasterContext): Promise<MasterSummary> {
  const { options, run, params, db, log } = master;
  const { config, paramsFile } = options;
  // What a master killed midway left to remove.
  await sweepRun(master, false);
  const reference = await runReference(master);
  const skipped = pilotSkipped(options.config);
  if (skipped) log(skipped);
  // θ₀ for the pilot iterations: built once, when the first of them starts.
  let theta0: Promise<BuiltEngine> | undefined;
  const opponentOf = (k: number) =>
    k <= pilotIterations(options.config) ? (theta0 ??= pilotEngine(master)) : Promise.resolve(reference);
  const initial = valuesOf(params);
  syncParamsFile(paramsFile, valuesOf(params), log);
  await reportChanges(master);
  const review = await BuildReview.start({ db, runId: run.id, names: params.map((p) => p.name), log });

  let current = params;
  const bound = stalenessBound(config.spsa);
  const cores = availableParallelism();
  // Several iterations built at once, in the background, while steps are applied and reports folded.
  const builds = new IterationBuilds<BuiltIteration>(options.signal);
  const status = options.status ?? new StatusLine();
  let watch: Watch | undefined;
  let warned = false;
  try {
    for (;;) {
      options.signal?.throwIfAborted();
      // Before the step of any iteration due one: an iteration is never stepped without its transfer queued.
      await queueTransfers(master, current);
      // θ as the database holds it: an undo (spsa undo --worker) may have moved it.
      current = withTheta(current, await db.retrying((sql) => runParameters(sql, run.id)));
      const state = await db.retrying((sql) => inFlightState(sql, run.id));
      const atOnce = buildsAtOnce({
        configured: config.build.buildsAtOnce,
        cores,
        coresPerBuild: builds.coresPerBuild,
      });
      // Built iterations open in iteration order, so the database holds iterations 1..latest, never a gap.
      const built = builds.take();
      if (built) {
        await openIteration(master, built.value, built.seconds);
        // Said once: builds the slots outpace, and what would keep them busy.
        if (!warned) {
          const slots = await db.retrying(activeGameSlots);
          const warning = slowBuildWarning({
            gamesPerIteration: config.games.gamesPerIteration,
            buildSeconds: built.seconds,
            gamesPerSecond: state.gamesPerSecond,
            buildsAtOnce: atOnce,
            configured: config.build.buildsAtOnce,
            cores,
            coresPerBuild: builds.coresPerBuild,
            slots,
            maxStaleness: bound,
          });
          if (warning) log(warning);
          warned = warning !== undefined;
        }
        continue;
      }
      // The iterations being built count as opened: their steps are not applied either.
      const k = state.latest + builds.iterations.length + 1;
      // Open the next iteration while earlier ones are played and built, as far ahead as the slots need.
      if (k <= config.spsa.maxIterations && builds.running < atOnce) {
        const slots = await db.retrying(activeGameSlots);
        const allowed = allowedStaleness({
          slots,
          gamesPerIteration: config.games.gamesPerIteration,
          buildSeconds: builds.lastSeconds,
          gamesPerSecond: state.gamesPerSecond,
          maxStaleness: bound,
        });
        if (mayOpen(k, state.applied, allowed, pilotIterations(config))) {
          const drawn = await drawIteration(master, current, k, stalenessOf(k, state.applied), await opponentOf(k));
          crashPoint("build-starting");
          // A master that stalled and lost the run to another one never builds.
          await db.retrying(() => options.hold.confirm());
          builds.start(k, (slot, signal) => buildIteration(master, drawn, slot, signal));
          continue;
        }
      }
      // Steps are applied in iteration order: the oldest open iteration's is next.
      const oldest = await db.retrying((sql) => oldestOpenIteration(sql, run.id));
      if (oldest) {
        if (watch?.iterationId !== oldest.id) watch = { iterationId: oldest.id, warnedFaults: false };
        const played = await waitForGames(master, oldest, { status, watch, builds });
        if (played.gamesPlayed < played.targetGames) continue; // a build ended: open it
        // The step waits while batches of a worker found a suspect are played again.
        if (await review.beforeStep(played.iterationNumber)) current = await finishIteration(master, current, played);
        // The iteration's engines are no longer played (unless a transfer still plays them).
        await sweepRun(master, false, builds.iterations);
        continue;
      }
      if (builds.iterations.length > 0) {
        await withSpinner(`building ${describeIterations(builds.iterations)} (plus and minus engines)`, builds.ended());
        continue;
      }
      await finishTransfers(master, current);
      await db.retrying(() => options.hold.transaction((tx) => markRunComplete(tx, run.id)));
      log(`run "${run.name}" complete: ${config.spsa.maxIterations} iterations`);
      const final = await finalValues(master, current, k - 1);
      const shipped = await shipCandidate(master, current);
      // A complete run keeps no engine: the final θ's is rebuilt from θ if ever needed (docs/results.md).
      await sweepRun(master, true);
      return { runName: run.name, iterations: state.latest, initial, final: shipped ?? final };
    }
  } finally {
    // A stop or an error: no cargo outlives the loop.
    await builds.close();
  }
}

/** "iteration 4", "iterations 4–7". */
function describeIterations(ks: readonly number[]): string {
  return ks.length === 1 ? `iteration ${ks[0]}` : `iterations ${ks[0]}–${ks.at(-1)}`;
}

/** The progress of the oldest open iteration as this master watches it, across the waits that builds interrupt. */
interface Watch {
  iterationId: number;
  warnedFaults: boolean;
}

/** A resumed run says which settings differ from the last iteration's: they apply from the next one. */
async function reportChanges({ options, run, params, db, log }: MasterContext): Promise<void> {
  const latest = await db.retrying((sql) => latestIteration(sql, run.id));
  const recorded = latest && (await db.retrying((sql) => readPlayedWith(sql, { iterationId: latest.id })));
  if (!latest || !recorded) return;
  for (const change of describeChanges(recorded, playedWith(options.config, params))) {
    log(
      `changed since iteration ${latest.iterationNumber}: ${change} (applies from iteration ${latest.iterationNumber + 1})`,
    );
  }
}

/** Iteration k as drawn: its perturbation from θ `params`, its settings, and the engine its sides play in reference mode or the curvature pilot. */
interface DrawnIteration {
  k: number;
  params: Param[];
  staleness: number;
  perturbation: Perturbation;
  settings: IterationSettings;
  reference: BuiltEngine | undefined;
}

/** Iteration k's engines, built, with what it drew. */
interface BuiltIteration {
  drawn: DrawnIteration;
  plus: BuiltEngine;
  minus: BuiltEngine;
}

/**
 * Draws iteration k from θ `params`, with `staleness` steps before it not applied yet: its
 * perturbation, and its step scales from the iterations completed so far (always 1..k − 1 −
 * staleness). In reference mode and the curvature pilot its sides each play `reference`.
 */
async function drawIteration(
  master: MasterContext,
  params: Param[],
  k: number,
  staleness: number,
  reference: BuiltEngine | undefined,
): Promise<DrawnIteration> {
  const { options, run, db, log } = master;
  const { config } = options;
  // The self-correcting schedule's a_k follows from θ so far (past rows, then today's θ).
  const trajectory =
    config.spsa.schedule === "self-correcting"
      ? [...(await db.retrying((sql) => readTrajectory(sql, run.id, k - 1))), valuesOf(params)]
      : undefined;
  const perturbation = perturb(
    params,
    spsaMathConfig(config.spsa, config.games.gamesPerIteration),
    k,
    createRng(`${run.seed}:${k}`),
    trajectory,
  );
  // Adaptive gains: each parameter's factor on a_k from what the last iterations measured, recorded in the settings.
  const adaptive = config.spsa.adaptive;
  const measured =
    adaptive.mode === "off"
      ? undefined
      : stepScales(
          await db.retrying((sql) => readMeasuredIterations(sql, run.id, k - 1, adaptive.window)),
          params.map((p) => p.name),
          adaptive,
        );
  // After the curvature pilot, its factor on every scale (src/master/pilot.ts).
  const { stepScale, pilot } =
    k > pilotIterations(config) ? await pilotScaled(master, measured) : { stepScale: measured, pilot: undefined };
  if (pilot && k === pilotIterations(config) + 1) log(describePilot(pilot));
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
async function buildIteration(
  { options, run }: MasterContext,
  drawn: DrawnIteration,
  slot: number,
  signal: AbortSignal,
): Promise<BuiltIteration> {
  const { config } = options;
  const building = buildPlusAndMinus({
    build: config.build,
    params: drawn.params,
    values: { plus: drawn.perturbation.plus, minus: drawn.perturbation.minus },
    destination: (role, binary) => join(config.build.outputDir, run.name, String(drawn.k), role, binary),
    slot,
    signal,
  });
  // Cargo is running 200 ms after the builds start (a rebuild takes longer than that).
  const crashDuringBuild = setTimeout(() => crashPoint("build-started"), 200);
  const built = await building.finally(() => clearTimeout(crashDuringBuild));
  return { drawn, ...built };
}

/** Opens a built iteration: its binaries stored and signed, its row and batches inserted. */
async function openIteration(
  { options, run, db, log }: MasterContext,
  built: BuiltIteration,
  buildSeconds: number,
): Promise<void> {
  const { config } = options;
  const { k, staleness, perturbation, reference, settings } = built.drawn;
  const ahead =
    staleness > 0
      ? `, drawn ${staleness} step${staleness > 1 ? "s" : ""} behind: iteration${staleness > 1 ? "s" : ""} ${k - staleness}${staleness > 1 ? `–${k - 1}` : ""} not applied then`
      : "";
  log(
    `iteration ${k}: engines built in ${buildSeconds.toFixed(1)}s (c_k ${perturbation.ck.toFixed(3)}, a_k ${perturbation.ak.toFixed(4)}${ahead})`,
  );
  // The run's uid, not its id: a signature names the database it belongs to (docs/signing.md).
  const engines = signedEngines(
    options.signingKey.sign,
    { runUid: run.uid, iterationNumber: k },
    { plus: built.plus, minus: built.minus, ...(reference && { reference }) },
  );
  const plan = reference ? planReferenceBatchSizes : planBatchSizes;
  // The binaries stored and named in one transaction, which commits only while this master holds the run.
  await db.retrying(() =>
    options.hold.transaction(async (tx) => {
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
        base: valuesOf(built.drawn.params),
        plusValues: perturbation.plus,
        minusValues: perturbation.minus,
        signs: perturbation.signs,
        settings,
      });
    }),
  );
  crashPoint("iteration-inserted");
}

/**
 * Waits until the workers have played the iteration's target, showing progress; looks at the
 * transfers playing meanwhile. Returns early, the iteration not complete, when one of `builds`
 * ends: the master opens it and starts the next.
 */
async function waitForGames(
  master: MasterContext,
  iteration: IterationRow,
  { status, watch, builds }: { status: StatusLine; watch: Watch; builds: IterationBuilds<unknown> },
): Promise<IterationRow> {
  const { options, run, db, log } = master;
  const { config } = options;
  const poll = new PollBackoff(config.database.pollIntervalMs);
  let row = iteration;
  let built = false;
  // Only while something builds: a wait on nothing would hold its callback until the next build ends.
  const buildEnded =
    builds.iterations.length === 0
      ? undefined
      : builds.ended().then(() => {
          built = true;
        });
  try {
    for (;;) {
      options.signal?.throwIfAborted();
      const seen = row.gamesPlayed;
      await db.retrying(() => options.hold.stillHeld());
      row = await db.retrying(async (sql) => {
        // A dead worker's games are handed out again, whoever looks first.
        await expireLeases(sql);
        // Reports of workers under suspicion are held and their games played again (docs/bad-workers.md).
        await foldIteration(sql, iteration.id, { runId: run.id, reopen: true });
        return readIteration(sql, iteration.id);
      });
      // Reports arriving: look again soon, as the iteration may be about to finish.
      if (row.gamesPlayed !== seen) poll.reset();
      const rate = await db.retrying((sql) => runRate(sql, run.id, rateWindowMinutes(process.uptime())));
      const building = builds.iterations.length > 0 ? `  building ${describeIterations(builds.iterations)}` : "";
      status.update(formatProgress(row, config.spsa.maxIterations, rate) + building);
      const warning = watch.warnedFaults ? undefined : faultWarning(row);
      if (warning) {
        watch.warnedFaults = true;
        status.done();
        log(warning);
      }
      await lookAtTransfers(master, (line) => {
        status.done();
        log(line);
      });
      if (row.gamesPlayed >= row.targetGames || built) break;
      if (row.gamesPlayed > 0) crashPoint("waiting");
      await (buildEnded ? Promise.race([poll.wait(options.signal), buildEnded]) : poll.wait(options.signal));
    }
  } finally {
    status.done();
  }
  return row;
}

async function finishIteration(
  { options, run, db, log }: MasterContext,
  params: Param[],
  iteration: IterationRow,
): Promise<Param[]> {
  const { config, paramsFile } = options;
  const k = iteration.iterationNumber;
  // The update uses only what the iteration recorded (today's files may differ from what was
  // played), and moves θ as the database holds it: the step measured around the iteration's base
  // θ, which an iteration opened in flight drew before the steps of the iterations still playing then.
  const settings = iteration.settings ?? settingsOf(config, params);
  const played = {
    ak: iteration.ak,
    plus: iteration.plusParameters,
    minus: iteration.minusParameters,
    ...(settings.stepScale && { scale: settings.stepScale }),
  };
  // Plus against minus, or (its row names a reference engine) both sides against the reference.
  const counts = outcomeOf(iteration);
  const previous =
    (settings.spsa.momentum ?? 0) > 0
      ? previousMove(await db.retrying((sql) => readTrajectory(sql, run.id, k)), k)
      : undefined;
  const step = (stored: Values) => {
    // Parameters added since the run started have no θ in the database yet: they keep their value.
    const theta = { ...valuesOf(params), ...stored };
    const updated = update(recordedParams(settings, theta), played, counts, settings.spsa, previous);
    return { ...updated, newValues: { ...theta, ...updated.newValues } };
  };
  const result = await db.retrying(() =>
    options.hold.transaction((tx) =>
      completeIteration(tx, {
        runId: run.id,
        iterationId: iteration.id,
        step,
        finalIteration: k >= config.spsa.maxIterations,
      }),
    ),
  );
  crashPoint("iteration-committed");
  // Not applied: the iteration was completed already (a commit retried after its answer was
  // lost, or another master on this run). θ is then what the database holds.
  if (result) {
    log(
      `iteration ${k}: ${outcomeText(counts)}, Elo ${result.elo.toFixed(1)} (${iteration.referenceEngineSha256 === null ? "plus vs minus" : "θ+ vs reference − θ− vs reference"})`,
    );
  } else {
    log(`iteration ${k} was already complete in the database: θ taken from there`);
  }
  const theta = result ? result.newValues : await db.retrying((sql) => runParameters(sql, run.id));
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
async function shipCandidate(master: MasterContext, params: Param[]): Promise<Values | undefined> {
  const { options, log } = master;
  const check = await runShipCheck(master, params);
  if (!check?.chosenParameters) return undefined;
  log(describeShipCheck(check));
  syncParamsFile(options.paramsFile, check.chosenParameters, () => {});
  log(`${options.paramsFile}: the ship check's candidate (${check.chosen})`);
  if (check.verdict !== "pass")
    log(
      `warning: the shipped candidate did not pass its test against the start θ (${check.verdict ?? "no verdict"}): keep testing before you ship it`,
    );
  return check.chosenParameters;
}

/**
 * What the run hands back: its last θ, or with `[spsa] average_tail` the mean of θ over that
 * share of the last iterations (Polyak–Ruppert), written to params.toml. The database keeps
 * the last θ (spsa_run.current_parameters), so the run's history stays as it was played.
 */
async function finalValues(
  { options, run, db, log }: MasterContext,
  params: Param[],
  iterations: number,
): Promise<Values> {
  const { averageTail } = options.config.spsa;
  if (averageTail === 0 || iterations === 0) return valuesOf(params);
  // θ after each iteration as its step left it (with iterations in flight, the next one's base is older θ).
  const thetas = await db.retrying((sql) => readThetaAfter(sql, run.id));
  const averaged = tailAverage(thetas.length > 0 ? thetas : [valuesOf(params)], averageTail);
  syncParamsFile(options.paramsFile, averaged, () => {});
  log(
    `${options.paramsFile}: θ averaged over the last ${Math.max(1, Math.ceil(averageTail * iterations))} of ${iterations} iterations ([spsa] average_tail ${averageTail})`,
  );
  return averaged;
}
