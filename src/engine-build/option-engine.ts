import { mkdirSync } from "node:fs";
import { basename, join } from "node:path";
import { withSpinner } from "../core/status-line.js";
import { placeAtomically } from "./binary-store.js";
import { binaryName, runCargo } from "./cargo.js";
import type { TuningConfig } from "../types/config.js";

/**
 * The one binary of UCI-option mode: `[engine] binary`, or [build].engine_dir built once with cargo
 * and placed in `folder` (the master's run folder, or a verification's when the run's binary is gone).
 * `label` names the build's log file in output_dir.
 */
export async function optionEngineBinary(config: TuningConfig, label: string, folder: string): Promise<string> {
  if (config.engine.binary !== undefined) return config.engine.binary;
  const { build } = config;
  const name = binaryName(build.engineDir, build.binaryName);
  mkdirSync(build.outputDir, { recursive: true });
  await withSpinner(
    `building ${basename(build.engineDir)} once for UCI-option tuning`,
    runCargo({
      treeDir: build.engineDir,
      args: build.cargoArgs,
      logFile: join(build.outputDir, `${label}-options-build.log`),
      label: "UCI-option",
    }),
  );
  const placed = join(folder, name);
  placeAtomically(join(build.engineDir, "target", "release", name), placed);
  return placed;
}
