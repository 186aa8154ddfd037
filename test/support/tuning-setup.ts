import { copyFileSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT } from "./cli.js";
import { OPTION_PARAMS, OPTIONS_MODE } from "./options-run.js";
import { TEST_HOME } from "./test-server.js";

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
  /**
   * True: builds go to the setup's own folder (`dir/builds`), for a test that looks at what is
   * there. Otherwise to the output_dir shared by the files this vitest worker runs one after
   * another (sharedBuilds), whose build trees keep their target folders: a run's first build
   * of minnow is then incremental, as a user's second run is, not a build from nothing.
   */
  ownBuilds?: boolean;
}

/**
 * The output_dir of the test files vitest worker VITEST_POOL_ID runs, one at a time, in the test
 * server's folder (removed with it). Two masters that share it share its build trees, under
 * their lock, as two runs on one machine do; every run of a file has its own database.
 */
export function sharedBuilds(): string {
  return join(TEST_HOME, `builds-${process.env.VITEST_POOL_ID ?? "0"}`);
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
output_dir = "${options.ownBuilds ? join(dir, "builds") : sharedBuilds()}"
${options.buildLines ?? ""}

[database]
poll_interval = 0.2
${options.mode === "options" ? OPTIONS_MODE : ""}
${options.extraConfig ?? ""}`,
  );
  return { dir, configFile, paramsFile };
}
