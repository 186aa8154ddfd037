import { existsSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Param } from "../params/params.js";
import { buildPlusAndMinus, type BuiltEngine } from "../engine-build/engine-builder.js";
import { sha256OfFile, storeBinaries } from "../engine-build/binary-store.js";
import { optionEngineBinary } from "../engine-build/option-engine.js";
import { optionRunOf, type OptionRunRow } from "../db/option-run.js";
import { signOptions } from "../signing/options-signature.js";
import { buildingLock, verificationFolder, sweepBuilds } from "../engine-build/retention.js";
import { withFileLock } from "../core/lock-file.js";
import { expireLeases } from "../db/batches.js";
import { foldIteration } from "../db/fold.js";
import type { DatabaseHandle } from "../postgres/database-handle.js";
import { PollBackoff } from "../postgres/poll-backoff.js";
import {
  insertCarrierRun,
  insertVerification,
  readVerification,
  recordOutcome,
  stopHandingOut,
  type NewVerification,
  type VerificationOutcome,
  type VerificationRow,
} from "../db/verifications.js";
import { InputError } from "../core/errors.js";
import { settingsOf } from "../config/iteration-settings.js";
import { insertIteration } from "../db/iterations.js";
import { activeGameSlots } from "../db/workers.js";
import { signedEngines } from "../signing/binary-signature.js";
import { planBatchSizes } from "../spsa/batch-plan.js";
import type { SigningKey } from "../signing/key-file.js";
import { StatusLine, withSpinner } from "../core/status-line.js";
import { eloFromPentanomial, eloWithError, los, sprt } from "../stats/elo.js";
import { builtValue } from "../spsa/math.js";
import type { TuningConfig } from "../types/config.js";
import type { SprtBounds, PlayLimits } from "../types/play.js";
import type { Values } from "../types/spsa.js";
import { rateAndEtas } from "../core/duration.js";
import { etaSeconds, gamesPerMinute, rateWindowMinutes, runRate } from "../db/run-status.js";

/**
 * A verification (a spsa_verification row): two θ of a run played against each other by the
 * run's own workers, as the one ordinary iteration of a carrier run (a spsa_run row of its own
 * that only holds the games, so it scales out like tuning), to a game count or an SPRT's
 * decision: what `spsa verify`, the master's ship check and its transfers play. This is how
 * one is set up.
 */
export interface VerificationSetup {
  /** Retried through outages; its stop ends the builds and the waits. */
  db: DatabaseHandle;
  config: TuningConfig;
  /** params.toml: which constants the values go to. */
  params: Param[];
  /** Signs the two binaries, as the master signs its iterations' (docs/signing.md). */
  signingKey: SigningKey;
  /** Fixed number of games, or the most an SPRT may play. */
  games: number;
  sprt: SprtBounds | undefined;
  /** What both engines search with. */
  limits: PlayLimits;
  /** Where a verification says what the log should know (a UCI-option run's binary gone). */
  log?: (line: string) => void;
}

/** The two θ compared: "to" plays on the plus side, and the Elo is its. */
export interface Compared {
  fromLabel: string;
  toLabel: string;
  fromValues: Values;
  toValues: Values;
}

export interface FinishedVerification extends VerificationOutcome {
  id: number;
  games: number;
  wins: number;
  losses: number;
  draws: number;
}

/**
 * Builds both engines (a UCI-option run: takes its one binary, both sides set up from its options)
 * and opens the games, the verification row (and, for a ship check, its stage) in one transaction.
 */
export async function startVerification(
  match: VerificationSetup,
  run: { id: number; name: string },
  compared: Compared,
  ship?: { checkId: number; stage: string },
): Promise<VerificationRow> {
  const { config, params } = match;
  const optionRun = await match.db.retrying((sql) => optionRunOf(sql, run.id));
  const built = (values: Values) =>
    Object.fromEntries(
      params.map((p) => [p.name, builtValue({ ...p, value: requireValue(values, p.name, run.name) })]),
    );
  // A tree of its own, so that a master building in output_dir at the same time is not disturbed.
  const build = { ...config.build, outputDir: join(config.build.outputDir, "verify") };
  const folder = verificationFolder(config.build.outputDir, run.name, Date.now());
  mkdirSync(dirname(folder), { recursive: true });
  // Until the games are opened nothing names the folder: its lock keeps a sweep (sweepBuilds) away.
  return withFileLock(buildingLock(folder), BUILD_LOCK_TIMEOUT_MS, async () => {
    const engines = optionRun
      ? await optionEngines(match, optionRun, compared, run.name, folder)
      : await withSpinner(
          `building ${compared.toLabel} and ${compared.fromLabel} engines`,
          buildPlusAndMinus({
            build,
            params,
            values: { plus: built(compared.toValues), minus: built(compared.fromValues) },
            destination: (variant, binary) => join(folder, variant, binary),
            signal: match.db.signal,
          }),
        );
    return openVerification(match, run, compared, engines, ship && { ship });
  });
}

/**
 * A UCI-option run's engines: its one binary on both sides (the run's file while it is there, as
 * the run stored it; once a complete run's is swept, `[engine] binary` or [build].engine_dir built
 * once into the verification's folder), each set up from the run's parameter list with its θ.
 */
async function optionEngines(
  match: VerificationSetup,
  optionRun: OptionRunRow,
  compared: Compared,
  runName: string,
  folder: string,
): Promise<VerificationEngines> {
  for (const name of optionRun.names) {
    requireValue(compared.toValues, name, runName);
    requireValue(compared.fromValues, name, runName);
  }
  const kept = existsSync(optionRun.enginePath) && sha256OfFile(optionRun.enginePath) === optionRun.engineSha256;
  const path = kept
    ? optionRun.enginePath
    : await optionEngineBinary(match.config, `${runName}-verify`, join(folder, "options"));
  const engine = { path, sha256: kept ? optionRun.engineSha256 : sha256OfFile(path) };
  if (engine.sha256 !== optionRun.engineSha256)
    match.log?.(
      `run "${runName}": its binary (${optionRun.enginePath}) is gone; both sides play ${path}, ` +
        `which is not the binary the run tuned (sha256 ${engine.sha256.slice(0, 12)}, not ${optionRun.engineSha256.slice(0, 12)})`,
    );
  return { plus: engine, minus: engine, options: { runId: optionRun.runId, parameters: optionRun.parameters } };
}

/**
 * The two engines of a verification ("to" on the plus side); on a UCI-option run both are its one
 * binary, set up from its parameter list (`options`) with each side's θ.
 */
export interface VerificationEngines {
  plus: BuiltEngine;
  minus: BuiltEngine;
  options?: Pick<OptionRunRow, "runId" | "parameters">;
}

/** The lock is new (the folder's name is unique to the millisecond): it is never waited for. */
const BUILD_LOCK_TIMEOUT_MS = 10_000;

/**
 * Opens the games of two engines already built and stored ("to" on the plus side): the carrier
 * run, its iteration (the engines signed for it) and the verification row, in one transaction.
 * `link` names what the match belongs to: a ship check's stage, or the tuning iteration a
 * transfer match plays at the ship limits.
 */
export async function openVerification(
  match: VerificationSetup,
  run: { id: number; name: string },
  compared: Compared,
  engines: VerificationEngines,
  link?: { ship: { checkId: number; stage: string } } | { transferIterationId: number },
): Promise<VerificationRow> {
  const { config, db, limits } = match;
  // Timed per move: the iteration's [timelow, timehigh]; otherwise its settings' moveLimit
  // (timelow and timehigh are then unused, and kept as the run's).
  const timeRange =
    "timelowMs" in limits
      ? limits
      : { timelowMs: config.timeControl.timelowMs, timehighMs: config.timeControl.timehighMs };
  const moveLimit = "timelowMs" in limits ? undefined : limits;
  const verification: NewVerification = {
    runId: run.id,
    runName: run.name,
    ...compared,
    maxGames: match.games,
    sprt: match.sprt,
    limits: match.limits,
    ...link,
  };
  return db.sql.begin(async (tx) => {
    const carrier = await insertCarrierRun(tx, verification);
    await storeBinaries(tx, [engines.plus, engines.minus]);
    await insertIteration(tx, {
      runId: carrier.id,
      iterationNumber: 1,
      ...signedEngines(
        match.signingKey.sign,
        { runUid: carrier.uid, iterationNumber: 1 },
        { plus: engines.plus, minus: engines.minus },
      ),
      ...timeRange,
      targetGames: match.games,
      batchSizes: planBatchSizes(match.games, config.games.batchSize, await activeGameSlots(tx)),
      // Not an SPSA step: no gains, and the "base" is the θ on the plus side.
      ck: 0,
      ak: 0,
      base: compared.toValues,
      plusValues: compared.toValues,
      minusValues: compared.fromValues,
      signs: {},
      settings: { ...settingsOf(config, match.params), moveLimit },
      // Options, like binaries, only as the master signed them for this run (the carrier).
      ...(engines.options && {
        options: {
          runId: engines.options.runId,
          signature: signOptions(match.signingKey.signMessage, carrier.uid, engines.options.parameters),
        },
      }),
    });
    return insertVerification(tx, carrier.id, verification);
  });
}

/**
 * Waits for the workers' games, recording the outcome as they come, until the game count or
 * the SPRT's decision; `onGames` is called with each look at the row (the master's crash points).
 */
export async function waitForOutcome(
  match: Pick<VerificationSetup, "db" | "config">,
  first: VerificationRow,
  log: (line: string) => void,
  onGames?: (row: VerificationRow) => void,
): Promise<FinishedVerification> {
  const status = new StatusLine();
  const poll = new PollBackoff(match.config.database.pollIntervalMs);
  let row = first;
  try {
    for (;;) {
      match.db.signal?.throwIfAborted();
      const seen = row.gamesPlayed;
      const look = await lookAtOutcome(match, row);
      row = look.row;
      if (row.gamesPlayed !== seen) poll.reset();
      status.update(look.result ? look.text : `${look.text}  ${await matchSpeed(match, row)}`);
      if (look.result) {
        status.done();
        log(look.text);
        // Its engines are no longer needed (unless other games name them): their bytes go.
        await match.db.retrying((sql) => sweepBuilds(sql, match.config.build.outputDir, undefined));
        return look.result;
      }
      onGames?.(row);
      await poll.wait(match.db.signal);
    }
  } finally {
    status.done();
  }
}

/** What a progress line says while no worker has claimed the games it waits for. */
export const WAITING_FOR_WORKERS = "waiting for a worker to claim its games (start one: compete --spsa)";

/**
 * "16.8 games/min  ETA 1m17s" of a match's games left, from its carrier run's reports, or that no
 * worker has claimed any.
 */
async function matchSpeed(match: Pick<VerificationSetup, "db">, row: VerificationRow): Promise<string> {
  if (row.gamesClaimed === 0 && row.gamesPlayed === 0) return WAITING_FOR_WORKERS;
  const rate = await match.db.retrying((sql) => runRate(sql, row.carrierRunId, rateWindowMinutes(process.uptime())));
  return rateAndEtas(gamesPerMinute(rate.recentGames, rate.recentSeconds), [
    { name: "match", seconds: etaSeconds(row.targetGames - row.gamesPlayed, rate) },
  ]);
}

/**
 * One look at a match: folds the reported games, records the outcome so far (closing the
 * carrier run once the game count or the SPRT's decision is reached) and says it. `result` is
 * set when the match is over. The master looks at its transfer matches this way between its
 * own steps, without waiting for them.
 */
export async function lookAtOutcome(
  { db }: Pick<VerificationSetup, "db">,
  previous: VerificationRow,
): Promise<{ row: VerificationRow; text: string; result: FinishedVerification | undefined }> {
  const row = await db.retrying(async (sql) => {
    // A dead worker's games are handed out again, whoever looks first.
    await expireLeases(sql);
    await foldIteration(sql, previous.iterationId);
    return readVerification(sql, previous.id);
  });
  const outcome = outcomeOf(row);
  if (outcome.verdict === "H0" || outcome.verdict === "H1") await stopHandingOut(db.sql, row.iterationId);
  const finished = row.gamesPlayed >= row.targetGames || (row.targetGames === 0 && row.gamesClaimed === 0);
  const final = finished && row.sprt && outcome.verdict === null ? { ...outcome, verdict: "undecided" } : outcome;
  await db.retrying((sql) => recordOutcome(sql, row, final, finished));
  const result = finished
    ? { id: row.id, games: row.gamesPlayed, wins: row.plusWins, losses: row.minusWins, draws: row.draws, ...final }
    : undefined;
  return { row, text: describeOutcome(row, final), result };
}

function outcomeOf(row: VerificationRow): VerificationOutcome {
  const { elo, error } = eloFromPentanomial(row.pairs);
  // No verdict before a game is in: bounds at 0 (alpha = beta = 0.5) would otherwise decide on nothing.
  const state = row.sprt && row.gamesPlayed > 0 ? sprt(row.pairs, row.sprt) : undefined;
  return {
    elo,
    eloError: error,
    los: los(row.plusWins, row.minusWins),
    llr: state?.llr ?? null,
    verdict: state?.decision ?? null,
  };
}

function describeOutcome(row: VerificationRow, outcome: VerificationOutcome): string {
  const sprtText =
    row.sprt && outcome.llr !== null
      ? `, LLR ${outcome.llr.toFixed(2)} [${row.sprt.elo0}, ` +
        `${row.sprt.elo1}]${outcome.verdict ? ` ${outcome.verdict}` : ""}`
      : "";
  return (
    `games ${row.gamesPlayed}/${row.targetGames}  +${row.plusWins} -${row.minusWins} =${row.draws}  ` +
    `Elo ${eloWithError(outcome.elo, outcome.eloError, row.pairs)}, LOS ${(100 * outcome.los).toFixed(1)}%${sprtText}`
  );
}

function requireValue(values: Values, name: string, runName: string): number {
  const value = values[name];
  if (value === undefined)
    throw new InputError(`run "${runName}"`, `has no value for parameter ${name} of the parameters file`);
  return value;
}
