import { loadConfig } from "../config/config.js";
import { loadParams } from "../params/params.js";
import { withStoredNames } from "../params/element-names.js";
import { writeFileAtomic } from "../core/write-atomic.js";
import { openDatabase } from "../postgres/connection.js";
import { faultedGamesOf } from "../db/faulted-games.js";
import { readPlayedWith } from "../db/iterations.js";
import { recentIterations } from "../db/run-status.js";
import { InputError, SpsaError } from "../core/errors.js";
import { faultedGamesPgn } from "../export/faulted-pgn.js";
import { exportedTheta } from "../export/shipped.js";
import { readShipCheck } from "../db/ship-checks.js";
import { readTransfers } from "../db/transfers.js";
import { summarizeTransfers } from "../verification/transfer-text.js";
import { constantsWithTheta, historyCsv, toolLines } from "../export/run-export.js";
import { requireRun } from "../status/run-lookup.js";
import { appliedThetaHistory, thetaHistory } from "../status/snapshot.js";
import { perturbationProgress } from "../db/option-progress.js";
import { isOptionRun } from "../db/option-run.js";
import { DEFAULT_CONFIG_FILE, databaseOptionsFrom } from "./database-options.js";
import { DEFAULT_PARAMS_FILE } from "./master.js";
import { runGainLine } from "../status/gain-status.js";

/** Why `spsa export --constants` writes nothing for a UCI-option run, and what to use instead. */
const NO_CONSTANTS_FILE =
  "a UCI-option run has no constants file (its parameters are UCI options): use --format csv (θ by option " +
  "over the run), or --format openbench or --format fishtest (the tuned values as those tools' lines)";

export const EXPORT_FORMATS = ["csv", "openbench", "fishtest"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export interface ExportCommandOptions {
  config?: string;
  params?: string;
  name?: string;
  /** Write the engine's constants file with the run's θ to this path. */
  constants?: string;
  format?: string;
  /** Write the run's kept faulted games as PGN (to `out`, or stdout). */
  faulted?: boolean;
  /** --faulted: the PGN file to write. */
  out?: string;
  write?: (text: string) => void;
  log?: (line: string) => void;
}

/**
 * `spsa export`: a run's θ as the engine's constants file, its history and parameters in other
 * tools' formats, or its faulted games.
 */
export async function exportCommand(options: ExportCommandOptions): Promise<void> {
  const out = options.write ?? ((text: string) => process.stdout.write(text));
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const format = options.format;
  const given = [options.constants !== undefined, format !== undefined, options.faulted === true].filter(
    Boolean,
  ).length;
  if (given !== 1)
    throw new InputError("spsa export", "give one of --constants FILE, --format csv|openbench|fishtest or --faulted");
  if (options.out !== undefined && !options.faulted) throw new InputError("--out", "goes with --faulted");
  if (format !== undefined && !(EXPORT_FORMATS as readonly string[]).includes(format)) {
    throw new InputError("--format", `must be one of ${EXPORT_FORMATS.join(", ")}, got "${format}"`);
  }
  // The files are read before the database is opened: bad input writes nothing.
  const forConstants =
    options.constants === undefined
      ? undefined
      : {
          config: loadConfig(options.config ?? DEFAULT_CONFIG_FILE),
          params: loadParams(options.params ?? DEFAULT_PARAMS_FILE),
        };
  if (forConstants?.config.engine.mode === "options") throw new InputError("--constants", NO_CONSTANTS_FILE);
  const database = await openDatabase(databaseOptionsFrom(options.config));
  try {
    const run = await requireRun(database.sql, options.name);
    if (options.constants !== undefined && (await isOptionRun(database.sql, run.name)))
      throw new InputError(`run "${run.name}"`, NO_CONSTANTS_FILE);
    // θ to ship: the ship check's candidate when the run has one (else the run's θ), and a caution
    // when it did not pass.
    const shipped =
      options.constants !== undefined || format === "openbench" || format === "fishtest"
        ? exportedTheta(run, await readShipCheck(database.sql, run.id))
        : undefined;
    if (shipped?.caution) log(`warning: run "${run.name}": ${shipped.caution}`);
    // Transfer in the run: which parameters' gradients disagree between the tuning and the ship
    // limits, before they are shipped.
    const transfer =
      shipped && summarizeTransfers(await readTransfers(database.sql, run.id), Object.keys(run.currentParameters));
    if (transfer) log(`note: run "${run.name}": ${transfer.summary}`);
    if (forConstants && options.constants !== undefined && shipped) {
      const { params } = withStoredNames(forConstants.params, shipped.theta);
      const { file, text } = constantsWithTheta(forConstants.config.build, params, shipped.theta);
      writeFileAtomic(
        options.constants,
        `${shipped.caution ? `// spsa ship check: ${shipped.caution}\n` : ""}${text}`,
        { mode: 0o644 },
      );
      log(
        `${options.constants}: ${file} with ${shipped.source} of run "${run.name}" ` +
          `(${forConstants.params.length} parameters, ints rounded as built)`,
      );
    } else if (options.faulted) {
      const rows = await faultedGamesOf(database.sql, run.id);
      const pgn = faultedGamesPgn(run.name, rows);
      if (options.out === undefined) out(pgn);
      else writeFileAtomic(options.out, pgn);
      log(
        `${rows.length} faulted games of run ` +
          `"${run.name}"${options.out === undefined ? "" : ` written to ${options.out}`}`,
      );
    } else if (format === "csv") {
      // A UCI-option run: θ after each applied batch whose θ is stored, and its θ now.
      const progress = await perturbationProgress(database.sql, run.id, 0);
      if (progress)
        out(
          historyCsv(
            await appliedThetaHistory(database.sql, run, progress.thetaApplied, Number.POSITIVE_INFINITY, "all", -1),
            "batches",
          ),
        );
      else
        out(
          historyCsv(
            await thetaHistory(
              database.sql,
              run,
              (await recentIterations(database.sql, run.id, 1))[0],
              Number.POSITIVE_INFINITY,
            ),
          ),
        );
    } else if (format === "openbench" || format === "fishtest") {
      const settings = (await readPlayedWith(database.sql, { runId: run.id }))?.settings;
      if (!settings)
        throw new SpsaError(
          `run "${run.name}" has no iteration yet: its bounds and steps are recorded with the first one`,
        );
      if (shipped?.caution) out(`# spsa ship check: ${shipped.caution}\n`);
      const gain = await runGainLine(database.sql, run.id);
      if (gain) out(`# ${gain}\n`);
      out(toolLines(format, settings, shipped?.theta ?? run.currentParameters));
    }
  } finally {
    await database.close();
  }
}
