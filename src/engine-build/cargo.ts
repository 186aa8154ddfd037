import { createWriteStream, readFileSync } from "node:fs";
import { once } from "node:events";
import { join } from "node:path";
import { execa } from "execa";
import { BuildError } from "../core/errors.js";
import { parseToml } from "../core/toml-file.js";

export interface CargoBuild {
  treeDir: string;
  args: string[];
  /** cargo's output is appended here; the terminal only shows a spinner. */
  logFile: string;
  label: string;
  /** Stops the build: cargo and the compilers it started are killed. */
  signal?: AbortSignal;
}

/** Runs cargo in a build tree with its own target folder; a failure names cargo's first error and the log. */
export async function runCargo(build: CargoBuild): Promise<void> {
  build.signal?.throwIfAborted();
  const log = createWriteStream(build.logFile, { flags: "a" });
  await once(log, "open");
  const started = new Date();
  log.write(`\n=== ${started.toISOString()} ${build.label}: cargo ${build.args.join(" ")}\n`);
  // In a process group of its own, so that stopping it stops the rustc processes it started too.
  const child = execa("cargo", build.args, {
    cwd: build.treeDir,
    env: { CARGO_TARGET_DIR: join(build.treeDir, "target"), CARGO_TERM_COLOR: "never" },
    reject: false,
    all: true,
    stdin: "ignore",
    detached: true,
  });
  const killGroup = () => {
    if (child.pid === undefined) return;
    try {
      process.kill(-child.pid, "SIGTERM");
    } catch {
      // The group has already ended.
    }
  };
  build.signal?.addEventListener("abort", killGroup, { once: true });
  // A second Ctrl-C exits at once: the builds must not outlive the command.
  process.once("exit", killGroup);
  child.all?.pipe(log, { end: false });
  const result = await child.finally(() => {
    build.signal?.removeEventListener("abort", killGroup);
    process.removeListener("exit", killGroup);
  });
  // When it ended, too: the log shows which builds ran side by side, and for how long.
  const ended = new Date();
  log.end(
    `=== ${ended.toISOString()} ${build.label}: ${result.failed ? "failed" : "built"} in ` +
      `${((ended.getTime() - started.getTime()) / 1000).toFixed(1)} s\n`,
  );
  await once(log, "finish");
  build.signal?.throwIfAborted();
  if (result.failed) {
    const reason =
      result.exitCode === undefined ? `could not run cargo (${result.shortMessage})` : `exit ${result.exitCode}`;
    throw new BuildError(
      `cargo build of the ${build.label} engine failed (${reason}): ` +
        `${firstError(String(result.all ?? ""))}; log: ${build.logFile}`,
    );
  }
}

/** cargo's first error and where it is, on one line (the log has the rest). */
function firstError(output: string): string {
  const lines = output.split("\n").map((line) => line.trim());
  const first = lines.findIndex((line) => line.startsWith("error"));
  if (first === -1) return lines.filter((line) => line !== "").at(-1) ?? "no output";
  const where = lines.slice(first + 1, first + 3).find((line) => line.startsWith("-->"));
  return where ? `${lines[first]} (${where.slice(3).trim()})` : (lines[first] ?? "");
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
