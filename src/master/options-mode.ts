import { join } from "node:path";
import { sha256OfFile, storeBinaries } from "../engine-build/binary-store.js";
import { optionEngineBinary } from "../engine-build/option-engine.js";
import { configKey, GAIN_KEYS, spsaMathConfig } from "../config/config.js";
import { expireLeases } from "../db/batches.js";
import type { Database } from "../postgres/connection.js";
import {
  carrierProgress,
  endCarrierEarly,
  completeOptionRun,
  insertOptionRun,
  isOptionRun,
  optionRunOf,
  runTheta,
  setParametersSignature,
  type OptionRunRow,
} from "../db/option-run.js";
import { PollBackoff } from "../postgres/poll-backoff.js";
import { InputError } from "../core/errors.js";
import { describeChanges, playedWith, settingsOf } from "../config/iteration-settings.js";
import { valuesOf } from "../params/params.js";
import { insertIteration, iterationCount, readPlayedWith } from "../db/iterations.js";
import { StatusLine } from "../core/status-line.js";
import { applyReports } from "./apply-reports.js";
import { shipCandidate } from "./finish-run.js";
import { refuseRepeatedShipGames } from "./ship-check.js";
import { CachedTheta, writeCachedTheta } from "./cached-theta.js";
import { topUpDraws } from "./draw-pool.js";
import { optionsMessage, signOptions } from "../signing/options-signature.js";
import { signedEngines } from "../signing/binary-signature.js";
import type { TuningConfig } from "../types/config.js";
import { optionParamsOf } from "../params/option-names.js";
import {
  openTuningRun,
  sweepRun,
  syncParamsFile,
  withTuningRun,
  type MasterContext,
  type MasterOptions,
  type MasterSummary,
} from "./run-setup.js";
import { formatOptionProgress } from "./progress.js";
import { rateWindowMinutes, runRate } from "../db/run-status.js";
import { OptionReview } from "./worker-review.js";
import { measureOptionPilot, optionPilotGames } from "./option-pilot.js";
import { describePilot } from "./pilot.js";
import { pilotSkipped } from "../spsa/pilot.js";
import { GAIN_BLOCK_GAMES, gainBlockPlan, tunerIterations } from "../spsa/gain-block-plan.js";
import { GainStop } from "./gain-stop.js";

/**
 * params.toml follows θ at most this often while the run goes on: every 10 s, every 10 s per
 * 1,000 parameters beyond (a file of 10,000 tables every 100 s), and once at the run's end.
 */
function paramsSyncMs(count: number): number {
  return 10_000 * Math.max(1, count / 1000);
}

/** Bytes of stored θ per applied batch at most, on average: θ is stored after every thetaEvery-th batch. */
const STORED_THETA_BYTES_PER_BATCH = 2048;

/**
 * How often a run of `count` parameters stores θ: after every batch up to 256 parameters, after
 * every ⌈count / 256⌉-th above (every 40th at 10,000), so stored θ costs at most about 2 KB per
 * batch; θ between two stored ones is replayed from the batches' rows (src/spsa/option-chain.ts).
 */
export function thetaEveryFor(count: number): number {
  return Math.max(1, Math.ceil((count * 8) / STORED_THETA_BYTES_PER_BATCH));
}

/**
 * The master of UCI-option mode: builds nothing after its start (the crate of [build], if
 * no binary is named, once), opens the run's games as one carrier iteration of
 * max_iterations × games_per_iteration games, and watches: it draws every batch's
 * perturbation ahead of the workers (src/master/draw-pool.ts), they claim and play the
 * batches and report results only, and the master applies the reports to θ in report order and
 * counts them in the carrier iteration as it does
 * (src/master/apply-reports.ts). It returns leases to the pool, writes params.toml from θ,
 * and ends the run at its game budget. A restart resumes.
 */
export async function runOptionsMaster(options: MasterOptions): Promise<MasterSummary> {
  // Checked before the run is opened; taken again under the names the run holds (withStoredNames).
  optionParamsOf(options.params, options.paramsFile);
  refuseRepeatedShipGames(options.config);
  const opened = await openTuningRun(options);
  return withTuningRun(options, opened, (master) =>
    tune(master, opened.created, optionParamsOf(master.params, options.paramsFile)),
  );
}

async function tune(
  master: MasterContext,
  created: boolean,
  parameters: OptionRunRow["parameters"],
): Promise<MasterSummary> {
  const { options, run, params, db, log } = master;
  const { config, paramsFile } = options;
  const initial = valuesOf(params);
  // What a master killed midway left to remove.
  await sweepRun(master, false);
  let optionRun = await optionRunOf(db.sql, run.id);
  if (!optionRun) {
    if (!created && run.status === "active") {
      if ((await iterationCount(db.sql, run.id)) > 0)
        throw new InputError(
          `run "${run.name}"`,
          'was started in build mode; tune with [engine] mode = "options" under another --name, or ' +
            "start over with --fresh",
        );
    }
    optionRun = await openOptionRun(master, parameters);
  } else {
    await warnOfChanges(master, optionRun);
    if (optionRun.parametersSignature === null) optionRun = await signOlderRun(master, optionRun, parameters);
  }
  log(
    `${created ? "run" : "resumed run"} "${run.name}" in UCI-option mode (seed ${run.seed}): ` +
      `${optionRun.enginePath}, ` +
      `${config.spsa.maxIterations * optionRun.gamesPerIteration} games, each batch its own perturbation`,
  );
  announcePilot(config, optionRun, log);
  announceGain(optionRun, config.spsa.maxIterations * optionRun.gamesPerIteration, log);
  syncParamsFile(paramsFile, (await runTheta(db.sql, run.id)).theta, log);
  const review = await OptionReview.start({ db, runId: run.id, names: optionRun.names, log }, optionRun);
  const final = await watch(master, optionRun, review);
  // The ship check, with its engine still kept (src/master/ship-check.ts).
  const shipped = await shipCandidate(master, params);
  // A complete run keeps no engine.
  await sweepRun(master, true);
  return { runName: run.name, iterations: config.spsa.maxIterations, initial, final: shipped ?? final };
}

/**
 * What the run's curvature pilot does, or why a configured one does not run (a run opened before
 * the mode had one: nothing).
 */
function announcePilot(config: TuningConfig, optionRun: OptionRunRow, log: (line: string) => void): void {
  if ((optionRun.pilotGames ?? 0) > 0)
    log(
      `curvature pilot: θ+ and θ− of the run's first ${optionRun.pilotGames} games each play θ₀ ` +
        `(the binary with θ₀'s options); nothing else is drawn until they are in`,
    );
  else if (optionPilotGames(config) === 0) {
    const skipped = pilotSkipped(config);
    if (skipped) log(skipped);
  }
}

/** Where the run's gain blocks go (src/spsa/gain-block-plan.ts), or nothing for a run without them. */
function announceGain(optionRun: OptionRunRow, targetGames: number, log: (line: string) => void): void {
  const share = optionRun.gainShare ?? 0;
  if (share === 0) return;
  const plan = gainBlockPlan(targetGames, optionRun.pilotGames ?? 0, share);
  log(
    plan.blocks === 0
      ? `gain blocks: none ([spsa] gain_share = ${share}: a block of ${GAIN_BLOCK_GAMES} games needs ` +
          `${plan.between + GAIN_BLOCK_GAMES} games after the pilot); spsa status shows no gain`
      : `gain blocks: ${plan.blocks} of ${GAIN_BLOCK_GAMES} games, θ against θ₀, one after every ` +
          `${plan.between} of the tuner's games (its schedule planned for its ${plan.tunerGames}); ` +
          `they move θ no step, and spsa status shows what θ gained`,
  );
}

/**
 * The binary (built once from the crate if none is named), stored by hash; the carrier iteration
 * and the option settings in one transaction.
 */
async function openOptionRun(
  { options, run, params, db }: MasterContext,
  parameters: OptionRunRow["parameters"],
): Promise<OptionRunRow> {
  const { config } = options;
  // A master that stalled and lost the run to another one never builds.
  await db.retrying(() => options.lease.confirm());
  const enginePath = await optionEngineBinary(config, run.name, join(config.build.outputDir, run.name, "options"));
  const sha256 = sha256OfFile(enginePath);
  const gamesPerIteration = config.games.gamesPerIteration;
  const names = params.map((p) => p.name);
  const pilotGames = optionPilotGames(config);
  const targetGames = config.spsa.maxIterations * gamesPerIteration;
  // The tuner's gains are planned for the games the gain blocks leave it (docs/gain-so-far.md).
  const plan = gainBlockPlan(targetGames, pilotGames, config.spsa.gain.share);
  const maxIterations = tunerIterations(plan, gamesPerIteration, config.spsa.maxIterations);
  const row = (iterationId: number): OptionRunRow => ({
    runId: run.id,
    iterationId,
    enginePath,
    engineSha256: sha256,
    parameters,
    names,
    thetaEvery: thetaEveryFor(names.length),
    gains: spsaMathConfig({ ...config.spsa, maxIterations }, gamesPerIteration),
    gamesPerIteration,
    parametersSignature: signOptions(options.signingKey.signMessage, run.uid, parameters),
    pilotGames,
    gainShare: config.spsa.gain.share,
  });
  return db.retrying(() =>
    options.lease.transaction(async (tx) => {
      await storeBinaries(tx, [{ path: enginePath, sha256 }]);
      const iteration = await insertIteration(tx, {
        runId: run.id,
        iterationNumber: 1,
        ...signedEngines(
          options.signingKey.sign,
          { runUid: run.uid, iterationNumber: 1 },
          { plus: { path: enginePath, sha256 }, minus: { path: enginePath, sha256 } },
        ),
        timelowMs: config.timeControl.timelowMs,
        timehighMs: config.timeControl.timehighMs,
        targetGames,
        batchSizes: [],
        ck: 0,
        ak: 0,
        base: valuesOf(params),
        plusValues: valuesOf(params),
        minusValues: valuesOf(params),
        signs: {},
        settings: settingsOf(config, params),
      });
      await insertOptionRun(tx, row(iteration.id));
      return row(iteration.id);
    }),
  );
}

/**
 * A run opened before option lists were signed: its master signs the stored list once, if it
 * is the list params.toml gives (a list changed in the database is not signed into trust).
 */
async function signOlderRun(
  { options, run, db }: MasterContext,
  optionRun: OptionRunRow,
  parameters: OptionRunRow["parameters"],
): Promise<OptionRunRow> {
  if (!optionsMessage(run.uid, optionRun.parameters).equals(optionsMessage(run.uid, parameters))) {
    throw new InputError(
      `run "${run.name}"`,
      `its stored UCI options differ from ${options.paramsFile} and were never signed: restart it ` +
        `with --fresh, or tune under another --name`,
    );
  }
  const signature = signOptions(options.signingKey.signMessage, run.uid, parameters);
  await db.retrying((sql) => setParametersSignature(sql, run.id, signature));
  return { ...optionRun, parametersSignature: signature };
}

/**
 * A resumed run plays on with what it started with (the carrier iteration's settings: time
 * per move or node limit, reference_nps; spsa_option_run: options and gains), so edits
 * since are named as not applied rather than silently ignored.
 */
async function warnOfChanges({ options, params, db, log }: MasterContext, optionRun: OptionRunRow): Promise<void> {
  const recorded = await db.retrying((sql) => readPlayedWith(sql, { iterationId: optionRun.iterationId }));
  if (!recorded) return;
  const changes = describeChanges(recorded, playedWith(options.config, params));
  const share = options.config.spsa.gain.share;
  // Kept with the option run: its gain blocks and its tuner's schedule were planned from it.
  if (share !== (optionRun.gainShare ?? 0))
    changes.push(`${configKey("spsa", GAIN_KEYS.share)}: ${optionRun.gainShare ?? 0} → ${share}`);
  for (const change of changes) {
    log(
      `changed since the run started: ${change} (not applied: a UCI-option run keeps the settings ` +
        `it started with; --fresh or another --name to use them)`,
    );
  }
}

/**
 * Until the carrier iteration has all its games: progress, expired leases back to the pool, reports
 * into θ, the workers' evidence, params.toml from θ.
 */
async function watch(
  { options, run, db, log }: MasterContext,
  optionRun: OptionRunRow,
  review: OptionReview,
): Promise<MasterSummary["final"]> {
  const { paramsFile } = options;
  const status = options.status ?? new StatusLine();
  const poll = new PollBackoff(options.config.database.pollIntervalMs);
  // θ as this master moved it: not read back nor written at every batch of a large run.
  const cached = new CachedTheta();
  const gainStop = new GainStop(
    { runId: run.id, name: run.name, gainShare: optionRun.gainShare ?? 0 },
    options.config.spsa.gain,
    log,
    (sql) => endCarrierEarly(sql, optionRun.iterationId),
  );
  let seen = -1;
  let synced = Date.now();
  try {
    for (;;) {
      options.signal?.throwIfAborted();
      const iteration = await db.retrying(async (sql) => {
        await options.lease.stillLeased();
        await expireLeases(sql);
        // θ and the carrier's counters move together: a batch is counted as it is applied.
        await applyReports(sql, optionRun, cached);
        // What the reports say about each worker (docs/bad-workers.md): a suspect's next reports are set aside.
        await review.afterApply();
        // The curvature pilot measured once its games are in: the draws below go on past it.
        const pilot = await measureOptionPilot(sql, optionRun);
        if (pilot) log(`run "${run.name}": ${describePilot(pilot, optionRun.gains.adaptive ?? { floor: 1 })}`);
        const carrier = await carrierProgress(sql, optionRun.iterationId);
        if (carrier.complete) return carrier;
        // The stop rule, with the blocks just folded; an early end draws nothing more.
        if (await gainStop.check(sql)) return carrierProgress(sql, optionRun.iterationId);
        // New draws from the θ just moved, for the batches the workers claim next.
        await topUpDraws(
          sql,
          { ...optionRun, seed: run.seed },
          carrier.targetGames,
          options.config.games.batchSize,
          cached,
        );
        return carrier;
      });
      if (iteration.gamesPlayed !== seen) poll.reset();
      // A complete carrier is the end whatever its count: no worker can claim a game of it.
      const finished = iteration.complete || iteration.gamesPlayed >= iteration.targetGames;
      if (finished) {
        await db.retrying((sql) => writeCachedTheta(sql, optionRun, cached));
        await db.retrying((sql) => completeOptionRun(sql, optionRun));
      }
      seen = iteration.gamesPlayed;
      const rate = await db.retrying((sql) => runRate(sql, run.id, rateWindowMinutes(process.uptime())));
      if (!iteration.complete) status.update(formatOptionProgress(run.name, iteration, rate));
      if (finished || Date.now() - synced >= paramsSyncMs(optionRun.names.length)) {
        const { theta } = await db.retrying((sql) => runTheta(sql, run.id));
        syncParamsFile(paramsFile, theta, () => {});
        synced = Date.now();
        if (finished) {
          status.done();
          log(`run "${run.name}" complete: ${iteration.gamesPlayed} games; ${paramsFile} holds the final θ`);
          return theta;
        }
      }
      await poll.wait(options.signal);
    }
  } finally {
    status.done();
  }
}

/** The build-mode master must not take over a UCI-option run: its carrier iteration has no perturbation of its own. */
export async function refuseOptionRun(database: Database, runName: string, fresh: boolean): Promise<void> {
  if (fresh) return;
  if (await isOptionRun(database.sql, runName))
    throw new InputError(
      `run "${runName}"`,
      'is a UCI-option run: set [engine] mode = "options" to resume it, or use another --name or --fresh',
    );
}
