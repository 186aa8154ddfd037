import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { ROOT } from "./cli.js";

/** The extra options' name prefix: BENCH_EXTRA_0, BENCH_EXTRA_1, … (minnow names array elements NAME_<i>). */
export const EXTRA_OPTION = "BENCH_EXTRA";

/**
 * minnow with `extra` more tunables, an array the search never reads: the same engine, playing
 * the same games, that offers `extra` more UCI spin options (range −1000 to 1000, default 0)
 * and has `extra` more literals in its constants file. A copy of the crate under `folder`
 * (`minnow`, default the repository's, is never edited), rebuilt incrementally: a later call
 * with the same source and count pays little. Returns the crate, its binary and constants file.
 */
export async function buildExtraOptionsEngine(
  folder: string,
  extra: number,
  minnow = join(ROOT, "engines", "minnow"),
): Promise<{ crate: string; binary: string; constantsFile: string }> {
  const crate = join(folder, `minnow-extra-${extra}`);
  const constantsFile = join(crate, "src", "engine_constants.rs");
  const source = withExtraTunables(readFileSync(join(minnow, "src", "engine_constants.rs"), "utf8"), extra);
  mkdirSync(crate, { recursive: true });
  for (const part of ["Cargo.toml", "Cargo.lock", "src"])
    cpSync(join(minnow, part), join(crate, part), { recursive: true });
  writeFileSync(constantsFile, source);
  await execa("cargo", ["build", "--release", "--quiet"], { cwd: crate });
  const binary = join(crate, "target", "release", "minnow");
  if (!existsSync(binary)) throw new Error(`cargo built no ${binary}`);
  return { crate, binary, constantsFile };
}

/** The constants file with `extra` zeros declared last in its `tunables!` block. */
export function withExtraTunables(source: string, extra: number): string {
  const end = source.indexOf("\n}\n", source.indexOf("tunables! {"));
  if (end < 0) throw new Error("engine_constants.rs has no tunables! { … } block");
  const zeros = Array.from({ length: extra }, () => "0").join(", ");
  const declaration = `\n\n    /// Never read by the search: options for benchmarks of large tunes.\n    #[range(-1000, 1000)]\n    pub const ${EXTRA_OPTION}: [Score; ${extra}] = [${zeros}];`;
  return source.slice(0, end) + declaration + source.slice(end);
}

/**
 * params.toml text for the first `count` extra tunables: each an int at 0 in [−1000, 1000], step
 * 20, its element of the constant (build mode) and its option (UCI-option mode).
 */
export function extraOptionParams(count: number): string {
  return Array.from(
    { length: count },
    (_, i) =>
      `[${EXTRA_OPTION}_${i}]\nvalue = 0\nmin = -1000\nmax = 1000\nstep = 20\nconstant = "${EXTRA_OPTION}"\nindex = ${i}\noption = "${EXTRA_OPTION}_${i}"\n`,
  ).join("\n");
}
