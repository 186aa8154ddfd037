import type { Param } from "../params/params.js";
import { withStoredNames } from "../params/element-names.js";
import type { Database } from "../postgres/connection.js";
import { DatabaseHandle } from "../postgres/database-handle.js";
import { findRunningVerification } from "../db/verifications.js";
import { InputError } from "../core/errors.js";
import { runNamed } from "../db/runs.js";
import { isOptionRun } from "../db/option-run.js";
import type { SigningKey } from "../signing/key-file.js";
import { describeLimits } from "../play/time-control.js";
import { loadBook, resolveBook } from "../play/book.js";
import { refuseRepeatedGames } from "../play/repeated-games.js";
import { startVerification, waitForOutcome, type FinishedVerification } from "../verification/verification.js";
import { describeTheta, thetaOf, type ThetaLabel } from "./theta.js";
import type { TuningConfig } from "../types/config.js";
import type { SprtBounds, PlayLimits } from "../types/play.js";

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

/**
 * `spsa verify`: builds the engines of two θ of a run (a UCI-option run: its one binary, set up
 * with each θ's option values) and has the workers play them against each other as an ordinary
 * iteration of a carrier run, so verification scales out like tuning; stops at the game count or
 * when the SPRT decides. A rerun resumes a killed one.
 */
export async function runVerify(options: VerifyOptions): Promise<FinishedVerification> {
  const { database } = options;
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const sql = database.sql;
  const { config, params, signingKey, games, sprt, limits } = options;
  const match = {
    db: new DatabaseHandle(database.sql, log, options.signal),
    config,
    params,
    signingKey,
    games,
    sprt,
    limits,
    log,
  };
  const run = await runNamed(sql, options.runName);
  if (!run) throw new InputError(`run "${options.runName}"`, "not found (see select name from spsa_run)");
  const optionRun = await isOptionRun(sql, run.name);
  const fromLabel = describeTheta(options.from, optionRun);
  const toLabel = describeTheta(options.to, optionRun);
  const limitsText = describeLimits(options.limits);
  let row = await findRunningVerification(sql, run.id, fromLabel, toLabel, options.limits);
  if (row) {
    log(
      `resuming verification ${row.id} of run "${run.name}": ${toLabel} vs ${fromLabel} at ` +
        `${limitsText}, ${row.gamesPlayed} games played`,
    );
  } else {
    // The workers play the book of the config (the default one unless `[games] book` names another).
    const bookFile = resolveBook(options.config.games.book);
    const book = loadBook(bookFile, { plies: options.config.games.bookPlies });
    refuseRepeatedGames({ games: options.games, book, bookFile, limits: options.limits, flag: "--games" });
    const fromValues = await thetaOf(sql, run, options.from, optionRun);
    const toValues = await thetaOf(sql, run, options.to, optionRun);
    // The run's names for params.toml's parameters (an element it holds under its former name).
    const named = { ...match, params: withStoredNames(params, fromValues).params };
    row = await startVerification(named, run, { fromLabel, toLabel, fromValues, toValues });
    log(
      `verification ${row.id} of run "${run.name}": ${toLabel} vs ${fromLabel} at ${limitsText}, up ` +
        `to ${row.maxGames} games; workers play it as ${row.carrierName}`,
    );
  }
  return waitForOutcome(match, row, log);
}
