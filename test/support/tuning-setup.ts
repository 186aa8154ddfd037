import { randomBytes } from "node:crypto";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
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
   * there. Otherwise to a build folder of the test server's that no other live setup holds
   * (buildsFolder), whose build trees keep their target folders from the setups before: a run's
   * first build of minnow is then incremental, as a user's second run is, not one from nothing.
   */
  ownBuilds?: boolean;
}

/**
 * An output_dir for the setup in `dir`: the first of `.spsa-test/builds-N` that no live setup
 * holds (removed with the test server). Its holder is a symlink to the setup's folder, made
 * atomically; once that folder is gone (the test removed it) the next setup takes it over,
 * renaming the stale link away first (a rename succeeds once, so two never both take it).
 * Setups at once (two files, or a file's concurrent tests) so never share one: their runs'
 * folders in it could have the same name.
 */
function buildsFolder(dir: string): string {
  for (let n = 1; ; n++) {
    const folder = join(TEST_HOME, `builds-${n}`);
    const holder = join(folder, "holder");
    mkdirSync(folder, { recursive: true });
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        symlinkSync(dir, holder);
        return folder;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      }
      if (existsSync(holder)) break;
      const stale = `${holder}.${process.pid}.${randomBytes(4).toString("hex")}`;
      try {
        renameSync(holder, stale);
      } catch {
        break;
      }
      rmSync(stale, { force: true });
    }
  }
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
output_dir = "${options.ownBuilds ? join(dir, "builds") : buildsFolder(dir)}"
${options.buildLines ?? ""}

[database]
poll_interval = 0.2
${options.mode === "options" ? OPTIONS_MODE : ""}
${options.extraConfig ?? ""}`,
  );
  return { dir, configFile, paramsFile };
}
