import { existsSync } from "node:fs";
import { join } from "node:path";
import { binaryName } from "../engine-build/cargo.js";
import { InputError } from "../core/errors.js";
import type { BuildConfig } from "../types/config.js";

/**
 * The engine that scores positions: `--engine`, or the release build of [build].engine_dir
 * (`cargo build --release` there). Texel tuning sets options, so one build serves a run.
 */
export function texelEngine(engine: string | undefined, buildConfig: () => BuildConfig): string {
  if (engine !== undefined) {
    if (!existsSync(engine)) throw new InputError("--engine", `${engine} does not exist`);
    return engine;
  }
  // Read only without --engine, so a folder without config.toml can use --engine.
  const build = buildConfig();
  const path = join(build.engineDir, "target", "release", binaryName(build.engineDir, build.binaryName));
  if (!existsSync(path))
    throw new InputError(
      "--engine",
      `not given, and ${path} does not exist: run cargo build --release in ${build.engineDir}, or pass --engine PATH`,
    );
  return path;
}
