import { createWriteStream, readFileSync } from "node:fs";
import { once } from "node:events";
import { join } from "node:path";
import { execa } from "execa";
import { BuildError } from "../errors.js";
import { parseToml } from "../config/toml-file.js";

export interface CargoBuild {
  treeDir: string;
  args: string[];
  /** cargo's output is appended here; the terminal only shows a spinner. */
  logFile: string;
  label: string;
}

/** Runs cargo in a build tree with its own target folder; a failure shows cargo's error. */
export async function runCargo(build: CargoBuild): Promise<void> {
  const log = createWriteStream(build.logFile, { flags: "a" });
  await once(log, "open");
  log.write(`\n=== ${new Date().toISOString()} ${build.label}: cargo ${build.args.join(" ")}\n`);
  const child = execa("cargo", build.args, {
    cwd: build.treeDir,
    env: { CARGO_TARGET_DIR: join(build.treeDir, "target"), CARGO_TERM_COLOR: "never" },
    reject: false,
    all: true,
    stdin: "ignore",
  });
  child.all?.pipe(log, { end: false });
  const result = await child;
  log.end();
  await once(log, "finish");
  if (result.failed) {
    const reason = result.exitCode === undefined ? `could not run cargo (${result.shortMessage})` : `exit ${result.exitCode}`;
    throw new BuildError(`cargo build of the ${build.label} engine failed (${reason}); log: ${build.logFile}\n${errorExcerpt(String(result.all ?? ""))}`);
  }
}

/** The part of cargo's output worth showing: from the first error on, at most 40 lines. */
function errorExcerpt(output: string): string {
  const lines = output.split("\n");
  const first = lines.findIndex((line) => line.startsWith("error"));
  return lines.slice(first === -1 ? -40 : first, (first === -1 ? lines.length : first) + 40).join("\n");
}

/** The binary cargo builds: `binary_name` from config, else the package name in Cargo.toml. */
export function binaryName(engineDir: string, configured: string | undefined): string {
  if (configured !== undefined) return configured;
  const manifest = join(engineDir, "Cargo.toml");
  let text: string;
  try {
    text = readFileSync(manifest, "utf8");
  } catch {
    throw new BuildError(`${manifest} not found: [build].engine_dir must be a Cargo crate`);
  }
  const pkg = parseToml(manifest, text).package as { name?: unknown } | undefined;
  if (typeof pkg?.name !== "string") throw new BuildError(`${manifest}: [package].name is missing`);
  return pkg.name;
}
