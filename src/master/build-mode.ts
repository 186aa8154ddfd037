import { availableParallelism } from "node:os";
import { valuesOf, type Param } from "../params/params.js";
import { describeChanges, playedWith } from "../config/iteration-settings.js";
import {
  inFlightState,
  latestIteration,
  oldestOpenIteration,
  readPlayedWith,
  type InFlightState,
  type IterationRow,
} from "../db/iterations.js";
import { recordEarlyEnd, runParameters } from "../db/runs.js";
import { activeGameSlots } from "../db/workers.js";
import { allowedStaleness, buildsAtOnce, slowBuildWarning, stalenessBound } from "../spsa/in-flight.js";
import { nextBuildAction, type BuildAction, type BuildState } from "../spsa/build-actions.js";
import { StatusLine, withSpinner } from "../core/status-line.js";
import type { BuiltEngine } from "../engine-build/engine-builder.js";
import type { Values } from "../types/spsa.js";
import { crashPoint } from "./crash-points.js";
import { finishIteration, withTheta } from "./finish-iteration.js";
import { finishRun } from "./finish-run.js";
import { IterationBuilds } from "./iteration-builds.js";
import { buildIteration, drawIteration, openIteration, type BuiltIteration } from "./open-iteration.js";
import { pilotEngine } from "./pilot.js";
import { pilotIterations, pilotSkipped } from "../spsa/pilot.js";
import { describeGainPlan } from "./gain-iterations.js";
import { gainPlanOf } from "../spsa/gain-block-plan.js";
import { GainStop } from "./gain-stop.js";
import { gamesThrough, isGainIteration, type BuildGainPlan } from "../spsa/gain-block-plan.js";
import { runReference } from "./reference.js";
import {
  openTuningRun,
  sweepRun,
  syncParamsFile,
  withTuningRun,
  type MasterContext,
  type MasterOptions,
  type MasterSummary,
} from "./run-setup.js";
import { refuseRepeatedShipGames } from "./ship-check.js";
import { queueTransfers } from "./transfer.js";
import { describeIterations, waitForGames, type Watch } from "./wait-for-games.js";
import { BuildReview } from "./worker-review.js";

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

/** What the loop's turns share: its builds, θ as it stands, and what it measured and said so far. */
interface BuildLoop {
  /** Several iterations built at once, in the background, while steps are applied and reports folded. */
  builds: IterationBuilds<BuiltIteration>;
  /** θ at the start (what the run hands back as its initial values), and θ as it stands. */
  initial: Values;
  current: Param[];
  /** The staleness bound (stalenessBound) and the master's cores. */
  bound: number;
  cores: number;
  status: StatusLine;
  review: BuildReview;
  /** Where the gain iterations go among the run's iterations (src/spsa/gain-block-plan.ts). */
  plan: BuildGainPlan;
  /** The stop rule (docs/gain-so-far.md), and the last iteration once it ended the run early (stop_early). */
  gainStop: GainStop;
  endedAt: number | undefined;
  /** The engine iteration k's sides play: θ₀ in the pilot's and the gain iterations, or the reference (or none). */
  opponentOf: (k: number) => Promise<BuiltEngine | undefined>;
  watch: Watch | undefined;
  /** Whether the slow-build warning was said: once per master. */
  warned: boolean;
}

/** An iteration built, taken from the builds in order. */
type Built = NonNullable<ReturnType<IterationBuilds<BuiltIteration>["take"]>>;

/** What the loop does next (nextBuildAction), with the built iteration or the oldest open one it acts on. */
type Action = BuildAction<Built, IterationRow>;

async function tune(master: MasterContext): Promise<MasterSummary> {
  const { options, run, db } = master;
  const { config } = options;
  const loop = await startLoop(master);
  try {
    for (;;) {
      options.signal?.throwIfAborted();
      // Before the step of any iteration due one: an iteration is never stepped without its transfer queued.
      await queueTransfers(master, loop.current);
      // θ as the database holds it: an undo (spsa undo --worker) may have moved it.
      loop.current = withTheta(loop.current, await db.retrying((sql) => runParameters(sql, run.id)));
      // The stop rule, on the games counted so far (restart-safe: the database's reading decides again).
      await db.retrying((sql) => loop.gainStop.check(sql));
      const inFlight = await db.retrying((sql) => inFlightState(sql, run.id));
      const atOnce = buildsAtOnce({
        configured: config.build.buildsAtOnce,
        cores: loop.cores,
        coresPerBuild: loop.builds.coresPerBuild,
      });
      const action = await decide(master, loop, inFlight, atOnce);
      switch (action.kind) {
        case "open-built":
          await openBuilt(master, loop, action.built, inFlight, atOnce);
          break;
        case "start-build":
          await startBuild(master, loop, action.k, action.staleness);
          break;
        case "step-oldest":
          await stepOldest(master, loop, action.oldest);
          break;
        case "wait-builds":
          await waitForBuilds(loop.builds);
          break;
        case "finish":
          return await finishRun(master, loop.current, inFlight.latest, loop.initial);
      }
    }
  } finally {
    // A stop or an error: no cargo outlives the loop.
    await loop.builds.close();
  }
}

/** Before the loop: what a killed master left swept, the reference built, params.toml in step with θ. */
async function startLoop(master: MasterContext): Promise<BuildLoop> {
  const { options, run, params, db, log } = master;
  const { config, paramsFile } = options;
  // What a master killed midway left to remove.
  await sweepRun(master, false);
  const reference = await runReference(master);
  const skipped = pilotSkipped(options.config);
  if (skipped) log(skipped);
  const plan = gainPlanOf(config);
  const gainPlan = describeGainPlan(config, plan);
  if (gainPlan) log(gainPlan);
  if (run.endedEarlyAt !== null)
    log(`run "${run.name}": ended early by the stop rule at iteration ${run.endedEarlyAt}: no later iteration opens`);
  // θ₀ for the pilot and gain iterations: built once, when the first of them starts.
  let theta0: Promise<BuiltEngine> | undefined;
  const opponentOf = (k: number) =>
    k <= pilotIterations(config) || isGainIteration(plan, k)
      ? (theta0 ??= pilotEngine(master))
      : Promise.resolve(reference);
  const initial = valuesOf(params);
  syncParamsFile(paramsFile, valuesOf(params), log);
  await reportChanges(master);
  const review = await BuildReview.start({ db, runId: run.id, names: params.map((p) => p.name), log });
  const builds = new IterationBuilds<BuiltIteration>(options.signal);
  const loop: BuildLoop = {
    builds,
    initial,
    current: params,
    bound: stalenessBound(config.spsa),
    cores: availableParallelism(),
    status: options.status ?? new StatusLine(),
    review,
    plan,
    // Ended early: no iteration opens after those opened or being built; the run finishes once they are played.
    gainStop: new GainStop(
      { runId: run.id, name: run.name, gainShare: config.spsa.gain.share },
      config.spsa.gain,
      log,
      async (sql) => {
        const last = ((await latestIteration(sql, run.id))?.iterationNumber ?? 0) + builds.iterations.length;
        loop.endedAt = await recordEarlyEnd(sql, run.id, last);
        return gamesThrough(plan, config.games.gamesPerIteration, loop.endedAt);
      },
    ),
    // Ended early by an earlier master: its decision stands, whatever the rule reads now.
    endedAt: run.endedEarlyAt ?? undefined,
    opponentOf,
    watch: undefined,
    warned: false,
  };
  return loop;
}

/**
 * The loop's next action (nextBuildAction), reading what the decision asks for only when it
 * gets that far: the workers' slots when a build may start, the oldest open iteration when
 * nothing opens nor starts.
 */
async function decide(
  { options, run, db }: MasterContext,
  loop: BuildLoop,
  inFlight: InFlightState,
  atOnce: number,
): Promise<Action> {
  const { config } = options;
  let state: BuildState<Built, IterationRow> = {
    built: loop.builds.take(),
    latest: inFlight.latest,
    applied: inFlight.applied,
    beingBuilt: loop.builds.iterations.length,
    buildsRunning: loop.builds.running,
    buildsAtOnce: atOnce,
    maxIterations: Math.min(loop.plan.iterations, loop.endedAt ?? Infinity),
    pilots: pilotIterations(config),
  };
  for (;;) {
    const next = nextBuildAction(state);
    if (next.kind === "ask-allowed-staleness") {
      const slots = await db.retrying(activeGameSlots);
      const allowed = allowedStaleness({
        slots,
        gamesPerIteration: config.games.gamesPerIteration,
        buildSeconds: loop.builds.lastSeconds,
        gamesPerSecond: inFlight.gamesPerSecond,
        maxStaleness: loop.bound,
      });
      state = { ...state, allowedStaleness: allowed };
    } else if (next.kind === "ask-oldest") {
      state = { ...state, oldest: (await db.retrying((sql) => oldestOpenIteration(sql, run.id))) ?? null };
    } else return next;
  }
}

/**
 * Opens the built iteration. The first time builds are slower than the slots, says so once,
 * naming what would keep them busy.
 */
async function openBuilt(
  master: MasterContext,
  loop: BuildLoop,
  built: Built,
  inFlight: InFlightState,
  atOnce: number,
): Promise<void> {
  const { options, db, log } = master;
  const { config } = options;
  await openIteration(master, built.value, built.seconds);
  if (loop.warned) return;
  const slots = await db.retrying(activeGameSlots);
  const warning = slowBuildWarning({
    gamesPerIteration: config.games.gamesPerIteration,
    buildSeconds: built.seconds,
    gamesPerSecond: inFlight.gamesPerSecond,
    buildsAtOnce: atOnce,
    configured: config.build.buildsAtOnce,
    cores: loop.cores,
    coresPerBuild: loop.builds.coresPerBuild,
    slots,
    maxStaleness: loop.bound,
  });
  if (warning) log(warning);
  loop.warned = warning !== undefined;
}

/** Draws iteration k from θ as it stands and starts its build in the background. */
async function startBuild(master: MasterContext, loop: BuildLoop, k: number, staleness: number): Promise<void> {
  const { options, db } = master;
  const drawn = await drawIteration(master, loop.current, k, staleness, await loop.opponentOf(k), loop.plan);
  crashPoint("build-starting");
  // A master that stalled and lost the run to another one never builds.
  await db.retrying(() => options.lease.confirm());
  loop.builds.start(k, (slot, signal) => buildIteration(master, drawn, slot, signal));
}

/**
 * Waits for the oldest open iteration's games and applies its step, unless a build ends first
 * (the loop opens it and comes back).
 */
async function stepOldest(master: MasterContext, loop: BuildLoop, oldest: IterationRow): Promise<void> {
  const watch = loop.watch?.iterationId === oldest.id ? loop.watch : { iterationId: oldest.id, warnedFaults: false };
  loop.watch = watch;
  const played = await waitForGames(master, oldest, {
    status: loop.status,
    watch,
    builds: loop.builds,
    iterations: loop.plan.iterations,
  });
  if (played.gamesPlayed < played.targetGames) return; // a build ended: open it
  // The step waits while batches of a worker found a suspect are played again.
  if (await loop.review.beforeStep(played.iterationNumber))
    loop.current = await finishIteration(master, loop.current, played, loop.plan.iterations);
  // The iteration's engines are no longer played (unless a transfer still plays them).
  await sweepRun(master, false, loop.builds.iterations);
}

/** Waits until a build ends: nothing is open, and the next iteration is still being built. */
async function waitForBuilds(builds: IterationBuilds<BuiltIteration>): Promise<void> {
  await withSpinner(`building ${describeIterations(builds.iterations)} (plus and minus engines)`, builds.ended());
}

/** A resumed run says which settings differ from the last tuner iteration's: they apply from the next one. */
async function reportChanges({ options, run, params, db, log }: MasterContext): Promise<void> {
  const latest = await db.retrying((sql) => latestIteration(sql, run.id));
  const recorded = latest && (await db.retrying((sql) => readPlayedWith(sql, { runId: run.id })));
  if (!latest || !recorded) return;
  for (const change of describeChanges(recorded, playedWith(options.config, params))) {
    log(
      `changed since iteration ${latest.iterationNumber}: ${change} (applies from iteration ` +
        `${latest.iterationNumber + 1})`,
    );
  }
}
