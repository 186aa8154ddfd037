import { copyFileSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT } from "./cli.js";
import { OPTION_PARAMS, OPTIONS_MODE } from "./options-run.js";

export interface TuningSetup {
  dir: string;
  configFile: string;
  paramsFile: string;
}

/**
 * A config and a params file in a temp folder for a short real run of the sample engine:
 * builds go to the folder, the engine crate is the repository's.
 */
export interface TuningSetupOptions {
  iterations: number;
  games: number;
  batchSize: number;
  leaseSeconds?: number;
  timelow?: number;
  timehigh?: number;
  /** e.g. "nodes = 1500": games at a node or depth limit instead of timelow and timehigh. */
  moveLimit?: string;
  extraConfig?: string;
  /** Lines of `[spsa]` besides max_iterations, e.g. "max_staleness = 1". */
  spsaLines?: string;
  /** Lines of `[build]` besides engine_dir and output_dir, e.g. "builds_at_once = 2". */
  buildLines?: string;
  /** "options": a UCI-option run of four of minnow's tunables (default: the build mode on params.toml). */
  mode?: "build" | "options";
}

export function tuningSetup(options: TuningSetupOptions): TuningSetup {
  const dir = mkdtempSync(join(tmpdir(), "spsa-run-"));
  const configFile = join(dir, "config.toml");
  const paramsFile = join(dir, "params.toml");
  if (options.mode === "options") writeFileSync(paramsFile, OPTION_PARAMS);
  else copyFileSync(join(ROOT, "params.toml"), paramsFile);
  writeFileSync(
    configFile,
    `
[time_control]
${options.moveLimit ?? `timelow = ${options.timelow ?? 0.01}\ntimehigh = ${options.timehigh ?? 0.03}`}
margin_ms = 100

[games]
games_per_iteration = ${options.games}
batch_size = ${options.batchSize}
lease_seconds = ${options.leaseSeconds ?? 30}

[spsa]
max_iterations = ${options.iterations}
${options.spsaLines ?? ""}

[build]
engine_dir = "${join(ROOT, "engines", "minnow")}"
output_dir = "${join(dir, "builds")}"
${options.buildLines ?? ""}

[database]
poll_interval = 0.2
${options.mode === "options" ? OPTIONS_MODE : ""}
${options.extraConfig ?? ""}`,
  );
  return { dir, configFile, paramsFile };
}
