import { constantProblems } from "../engine-build/engine-builder.js";
import { throwProblems } from "../core/errors.js";
import { inFileOrder, readTomlFile } from "../core/toml-file.js";
import { loadConfig } from "../config/config.js";
import { readParams, type Param } from "../params/params.js";
import { openDatabase } from "../postgres/connection.js";
import { onOwnDatabase } from "../postgres/retry.js";
import { runBuildMaster } from "../master/build-mode.js";
import { loadOrCreateSigningKey, signingKeyPath } from "../signing/key-file.js";
import { refuseOptionRun, runOptionsMaster } from "../master/options-mode.js";
import { DEFAULT_CONFIG_FILE } from "./database-options.js";
import type { TuningConfig } from "../types/config.js";
import { optionParamsOf } from "../params/option-names.js";
import type { MasterSummary } from "../master/run-setup.js";

export interface MasterCommandOptions {
  config?: string;
  params?: string;
  name?: string;
  fresh?: boolean;
  seed?: string;
  /** Applied to the loaded config (the demo shortens the run this way). */
  adjust?: (config: TuningConfig) => TuningConfig;
  log?: (line: string) => void;
  signal?: AbortSignal;
}

export const DEFAULT_PARAMS_FILE = "params.toml";
export const DEFAULT_RUN_NAME = "main";

/**
 * config.toml and params.toml, read and checked against the engine's constants file (every
 * target, every [min, max] against its Rust type) before any file or database row is written.
 */
export function loadRunInputs(options: Pick<MasterCommandOptions, "config" | "params" | "adjust">): {
  config: TuningConfig;
  params: Param[];
  paramsFile: string;
} {
  const loaded = loadConfig(options.config ?? DEFAULT_CONFIG_FILE);
  const config = options.adjust ? options.adjust(loaded) : loaded;
  const paramsFile = options.params ?? DEFAULT_PARAMS_FILE;
  // Every problem of params.toml and of its targets in the constants file, reported at once.
  const { doc, params, targets, problems } = readParams(readTomlFile(paramsFile));
  // UCI-option mode needs no constants file: every parameter names its option instead.
  if (config.engine.mode === "build") problems.push(...constantProblems(config.build, targets, doc));
  throwProblems(inFileOrder(problems, paramsFile));
  if (config.engine.mode === "options") optionParamsOf(params, paramsFile);
  return { config, params, paramsFile };
}

/** `spsa master`: runs (or resumes) a tuning run until max_iterations. */
export async function masterCommand(options: MasterCommandOptions = {}): Promise<MasterSummary> {
  const { config, params, paramsFile } = loadRunInputs(options);
  // One connection, no session state: the master may go through a pooler like the workers (docs/scaling-out.md).
  const database = await openDatabase({ configUrl: config.database.url, max: 1, applicationName: "spsa-master" });
  return onOwnDatabase(
    database,
    options.signal,
    "nothing is lost: the run is as the database last saw it, and the master resumes it when started again",
    async () => {
      // After the database: an unusable home is reported as the database's failure (exit 3).
      const signingKey = loadOrCreateSigningKey(signingKeyPath(config));
      const runName = options.name ?? DEFAULT_RUN_NAME;
      if (config.engine.mode === "build") await refuseOptionRun(database, runName, options.fresh ?? false);
      return await (config.engine.mode === "options" ? runOptionsMaster : runBuildMaster)({
        database,
        config,
        params,
        paramsFile,
        runName,
        signingKey,
        fresh: options.fresh,
        seed: options.seed,
        log: options.log,
        signal: options.signal,
      });
    },
  );
}
