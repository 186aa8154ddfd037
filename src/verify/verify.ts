import { join } from "node:path";
import type { Param } from "../params/params.js";
import { buildVariants } from "../engine-build/engine-builder.js";
import { storeBinary } from "../engine-build/binary-store.js";
import { afterExpiringLeases, foldIteration } from "../db/batches.js";
import type { Database } from "../postgres/connection.js";
import { withRetry } from "../postgres/retry.js";
import { PollBackoff } from "../postgres/poll-backoff.js";
import { createVerification, findRunningVerification, readVerification, recordOutcome, stopHandingOut, type VerificationOutcome, type VerificationRow } from "../db/verifications.js";
import { InputError } from "../core/errors.js";
import { settingsOf } from "../config/iteration-settings.js";
import { insertIteration } from "../db/iterations.js";
import { activeGameSlots } from "../db/workers.js";
import { signedEngines } from "../signing/binary-signature.js";
import { planBatchSizes } from "../spsa/batch-plan.js";
import { runNamed } from "../db/runs.js";
import type { SigningKey } from "../signing/key-file.js";
import { StatusLine, withSpinner } from "../core/status-line.js";
import { eloFromPentanomial, los, sprt } from "../stats/elo.js";
import { describeLimits } from "../play/time-control.js";
import { loadBook, resolveBook } from "../play/book.js";
import { refuseRepeatedGames } from "../play/repeated-games.js";
import { builtValue } from "../spsa/math.js";
import { describeTheta, thetaOf, type ThetaLabel } from "./theta.js";
import type { TuningConfig } from "../types/config.js";
import type { SprtBounds, PlayLimits } from "../types/play.js";
import type { Values } from "../types/spsa.js";

export interface VerifyOptions {
  database: Database;
  config: TuningConfig;
  /** params.toml: which constants the values go to. */
  params: Param[];
  runName: string;
  /** Signs the two binaries, as the master signs its iterations' (docs/signing.md). */
  signingKey: SigningKey;
  from: ThetaLabel;
  to: ThetaLabel;
  /** Fixed number of games, or the most an SPRT may play. */
  games: number;
  sprt: SprtBounds | undefined;
  /** What both engines search with (src/verify/limits.ts; the run's own by default). */
  limits: PlayLimits;
  log?: (line: string) => void;
  signal?: AbortSignal;
}

export interface VerifyResult extends VerificationOutcome {
  id: number;
  games: number;
  wins: number;
  losses: number;
  draws: number;
}

/**
 * `spsa verify`: builds the engines of two θ of a run and has the workers play them against
 * each other as an ordinary iteration of a carrier run, so verification scales out like
 * tuning; stops at the game count or when the SPRT decides. A rerun resumes a killed one.
 */
export async function runVerify(options: VerifyOptions): Promise<VerifyResult> {
  const { database } = options;
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const sql = database.sql;
  const run = await runNamed(sql, options.runName);
  if (!run) throw new InputError(`run "${options.runName}"`, "not found (see select name from spsa_run)");
  const fromLabel = describeTheta(options.from);
  const toLabel = describeTheta(options.to);
  const limitsText = describeLimits(options.limits);
  let row = await findRunningVerification(sql, run.id, fromLabel, toLabel, options.limits);
  if (row) {
    log(`resuming verification ${row.id} of run "${run.name}": ${toLabel} vs ${fromLabel} at ${limitsText}, ${row.gamesPlayed} games played`);
  } else {
    // The workers play the book of the config (the default one unless `[games] book` names another).
    const bookFile = resolveBook(options.config.games.book);
    const book = loadBook(bookFile, { plies: options.config.games.bookPlies });
    refuseRepeatedGames({ games: options.games, book, bookFile, limits: options.limits, flag: "--games" });
    const fromValues = await thetaOf(sql, run, options.from);
    const toValues = await thetaOf(sql, run, options.to);
    row = await startVerification(options, run, { fromLabel, toLabel, fromValues, toValues });
    log(`verification ${row.id} of run "${run.name}": ${toLabel} vs ${fromLabel} at ${limitsText}, up to ${row.maxGames} games; workers play it as ${row.carrierName}`);
  }
  return waitForOutcome(options, row, log);
}

async function startVerification(
  options: VerifyOptions,
  run: { id: number; name: string },
  compared: { fromLabel: string; toLabel: string; fromValues: Values; toValues: Values },
): Promise<VerificationRow> {
  const { config, database, limits } = options;
  // Timed per move: the iteration's [timelow, timehigh]; otherwise its settings' moveLimit
  // (timelow and timehigh are then unused, and kept as the run's).
  const timeRange = "timelowMs" in limits ? limits : { timelowMs: config.timeControl.timelowMs, timehighMs: config.timeControl.timehighMs };
  const moveLimit = "timelowMs" in limits ? undefined : limits;
  const built = (values: Values) => Object.fromEntries(options.params.map((p) => [p.name, builtValue({ ...p, value: requireValue(values, p, run.name) })]));
  const stamp = Date.now();
  // A tree of its own, so that a master building in output_dir at the same time is not disturbed.
  const build = { ...config.build, outputDir: join(config.build.outputDir, "verify") };
  const engines = await withSpinner(
    `building ${compared.toLabel} and ${compared.fromLabel} engines`,
    buildVariants({
      build,
      params: options.params,
      values: { plus: built(compared.toValues), minus: built(compared.fromValues) },
      destination: (variant, binary) => join(build.outputDir, `${run.name}-${stamp}`, variant, binary),
      signal: options.signal,
    }),
  );
  await storeBinary(database.sql, engines.plus.path);
  await storeBinary(database.sql, engines.minus.path);
  return createVerification(database.sql, {
    runId: run.id,
    runName: run.name,
    ...compared,
    maxGames: options.games,
    sprt: options.sprt,
    limits: options.limits,
    insertGames: async (tx, carrier) => {
      await insertIteration(tx, {
        runId: carrier.id,
        iterationNumber: 1,
        ...signedEngines(options.signingKey.sign, { runUid: carrier.uid, iterationNumber: 1 }, { plus: engines.plus, minus: engines.minus }),
        ...timeRange,
        targetGames: options.games,
        batchSizes: planBatchSizes(options.games, config.games.batchSize, await activeGameSlots(tx)),
        // Not an SPSA step: no gains, and the "base" is the θ on the plus side.
        ck: 0,
        ak: 0,
        base: compared.toValues,
        plusValues: compared.toValues,
        minusValues: compared.fromValues,
        signs: {},
        settings: { ...settingsOf(config, options.params), moveLimit },
      });
    },
  });
}

async function waitForOutcome(options: VerifyOptions, first: VerificationRow, log: (line: string) => void): Promise<VerifyResult> {
  const { database } = options;
  const status = new StatusLine();
  const poll = new PollBackoff(options.config.database.pollIntervalMs);
  let row = first;
  try {
    for (;;) {
      options.signal?.throwIfAborted();
      const seen = row.gamesPlayed;
      row = await afterExpiringLeases(database.sql, log, options.signal, async () => {
        await foldIteration(database.sql, first.iterationId);
        return readVerification(database.sql, first.id);
      });
      if (row.gamesPlayed !== seen) poll.reset();
      const outcome = outcomeOf(row);
      if (outcome.verdict === "H0" || outcome.verdict === "H1") await stopHandingOut(database.sql, row.iterationId);
      const finished = row.gamesPlayed >= row.targetGames || (row.targetGames === 0 && row.gamesClaimed === 0);
      const final = finished && row.sprt && outcome.verdict === null ? { ...outcome, verdict: "undecided" } : outcome;
      await withRetry(log, options.signal, () => recordOutcome(database.sql, row, final, finished));
      status.update(describe(row, final));
      if (finished) {
        status.done();
        log(describe(row, final));
        return { id: row.id, games: row.gamesPlayed, wins: row.plusWins, losses: row.minusWins, draws: row.draws, ...final };
      }
      await poll.wait();
    }
  } finally {
    status.done();
  }
}

function outcomeOf(row: VerificationRow): VerificationOutcome {
  const { elo, error } = eloFromPentanomial(row.pairs);
  // No verdict before a game is in: bounds at 0 (alpha = beta = 0.5) would otherwise decide on nothing.
  const state = row.sprt && row.gamesPlayed > 0 ? sprt(row.pairs, row.sprt) : undefined;
  return { elo, eloError: error, los: los(row.plusWins, row.minusWins), llr: state?.llr ?? null, verdict: state?.decision ?? null };
}

function describe(row: VerificationRow, outcome: VerificationOutcome): string {
  const sign = outcome.elo >= 0 ? "+" : "";
  const sprtText = row.sprt && outcome.llr !== null ? `, LLR ${outcome.llr.toFixed(2)} [${row.sprt.elo0}, ${row.sprt.elo1}]${outcome.verdict ? ` ${outcome.verdict}` : ""}` : "";
  return (
    `games ${row.gamesPlayed}/${row.targetGames}  +${row.plusWins} -${row.minusWins} =${row.draws}  ` +
    `Elo ${sign}${outcome.elo.toFixed(1)} ± ${Number.isFinite(outcome.eloError) ? outcome.eloError.toFixed(1) : "inf"} (95%), LOS ${(100 * outcome.los).toFixed(1)}%${sprtText}`
  );
}

function requireValue(values: Values, param: Param, runName: string): number {
  const value = values[param.name];
  if (value === undefined) throw new InputError(`run "${runName}"`, `has no value for parameter ${param.name} of the parameters file`);
  return value;
}
