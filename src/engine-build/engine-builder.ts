import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BuildError, InputError } from "../core/errors.js";
import { isTable } from "../core/table-reader.js";
import { describeKey, type TomlDocument } from "../core/toml-file.js";
import { allOrNothing } from "../core/side-by-side.js";
import type { Param } from "../params/params.js";
import { syncTree } from "./build-tree.js";
import { withFileLock, type LockHold } from "../core/lock-file.js";
import { binaryName, runCargo } from "./cargo.js";
import { ConstantNotFound, rewriteConstants } from "../rust-constants/rewriter.js";
import { readCrateAliases } from "../rust-constants/crate-aliases.js";
import type { TypeAlias } from "../rust-constants/rust-types.js";
import { targetProblems, type CheckedParam } from "./target-check.js";
import { placeAtomically, sha256OfFile } from "./binary-store.js";
import type { BuildConfig } from "../types/config.js";
import type { PlusMinus } from "../types/engines.js";

export interface BuiltEngine {
  path: string;
  sha256: string;
}

export function targetsOf(params: readonly Param[]): CheckedParam[] {
  return params.map((p) => ({
    param: p.name,
    constant: p.constant,
    index: p.index,
    type: p.type,
    rustType: p.rustType,
    min: p.min,
    max: p.max,
  }));
}

/** The constants file's text and the crate's `type` aliases its declared types may use. */
export function readConstants(build: BuildConfig): { file: string; source: string; aliases: TypeAlias[] } {
  const file = join(build.engineDir, build.constantsFile);
  let source: string;
  try {
    source = readFileSync(file, "utf8");
  } catch {
    throw new InputError(
      file,
      "cannot read the constants file (see [build].engine_dir and constants_file in config.toml)",
    );
  }
  return { file, source, aliases: readCrateAliases(join(build.engineDir, "src")) };
}

/**
 * Every problem of the parameters' targets in the constants file, found before anything is
 * written or built: each constant exists, is unique and is a literal of the right type, and
 * [min, max] fits the literal's Rust type. A constant the file does not define is reported at
 * the parameter's table in params.toml (`paramsDoc`, the file to fix), naming the constants file.
 */
export function constantProblems(
  build: BuildConfig,
  targets: readonly CheckedParam[],
  paramsDoc: TomlDocument,
): InputError[] {
  let constants: ReturnType<typeof readConstants>;
  try {
    constants = readConstants(build);
  } catch (error) {
    if (error instanceof InputError) return [error];
    throw error;
  }
  const { file, source, aliases } = constants;
  return targetProblems(source, targets, file, aliases).map((problem) => {
    if (!(problem instanceof ConstantNotFound)) return problem;
    const { param, constant } = problem.target;
    const table = paramsDoc.data[param];
    return !isTable(table) || table.constant === undefined
      ? new InputError(
          describeKey(paramsDoc, param),
          `no constant ${constant} in ${file}${problem.suggestion}; without constant = "…", a table's name ` +
            `is its constant`,
        )
      : new InputError(
          describeKey(paramsDoc, param, "constant"),
          `no constant ${constant} in ${file}${problem.suggestion}`,
        );
  });
}

/**
 * A builder whose right to build is a hold on something else (a master's: its run's lease). Its
 * build trees' locks carry the hold (LockHold): a builder that lost it (stopped with SIGSTOP, its
 * run taken over) holds no tree against the one that took over. `confirm` fences it: called once
 * it has the tree and again before it places a binary, it throws once the hold is gone, so a
 * builder continued after losing it writes nothing.
 */
export interface BuildHold extends LockHold {
  confirm: () => Promise<void>;
}

/**
 * Builds one engine: copies the user's crate into the build tree `tree` (never editing the
 * user's tree; a tree keeps its target folder, so a rebuild is incremental), writes its
 * constants with `values`, runs cargo, and places the binary at its destination (temp name,
 * then rename). `label` names it in messages and its cargo log.
 */
export async function buildEngine(options: {
  build: BuildConfig;
  params: readonly Param[];
  values: Record<string, number>;
  /** The build tree's name under `<output_dir>/trees/` (treeName). */
  tree: string;
  label: string;
  /** Where the binary goes, e.g. engines/builds/<run>/<k>/plus/minnow. */
  destination: (binary: string) => string;
  signal: AbortSignal | undefined;
  hold?: BuildHold | undefined;
}): Promise<BuiltEngine> {
  const { build, label } = options;
  const { file: constantsPath, source, aliases } = readConstants(build);
  const binary = binaryName(build.engineDir, build.binaryName);
  const logDir = join(build.outputDir, "logs");
  mkdirSync(logDir, { recursive: true });
  const tree = join(build.outputDir, "trees", options.tree);
  mkdirSync(join(build.outputDir, "trees"), { recursive: true });
  const assignments = targetsOf(options.params).map((target) => ({
    target,
    value: options.values[target.param] ?? Number.NaN,
  }));
  // Two masters sharing an output_dir (two runs on one machine) share its trees: without the
  // lock, one would rewrite the constants while the other's cargo compiles them.
  const { hold } = options;
  return withFileLock(
    `${tree}.lock`,
    TREE_LOCK_TIMEOUT_MS,
    async () => {
      await hold?.confirm();
      syncTree(build.engineDir, tree);
      writeIfChanged(join(tree, build.constantsFile), rewriteConstants(source, assignments, constantsPath, aliases));
      await runCargo({
        treeDir: tree,
        args: build.cargoArgs,
        logFile: join(logDir, `${label}.log`),
        label,
        signal: options.signal,
      });
      const built = join(tree, "target", "release", binary);
      if (!existsSync(built)) {
        throw new BuildError(
          `cargo built no ${built} for the ${label} engine (the crate's binary is named otherwise? ` +
            `set [build].binary_name)`,
        );
      }
      const dest = options.destination(binary);
      // A builder stopped during cargo and continued after losing its hold places nothing.
      await hold?.confirm();
      placeAtomically(built, dest);
      return { path: dest, sha256: sha256OfFile(dest) };
    },
    hold,
  );
}

/** How long a build waits for another process's build in the same tree (a long cargo build of a real engine). */
const TREE_LOCK_TIMEOUT_MS = 60 * 60_000;

/**
 * The build tree of `role` in build slot `slot`: slot 0's are `plus` and `minus`, slot n's
 * `plus-<n+1>` and `minus-<n+1>`. A master building several iterations at once gives each its
 * own slot, so every tree keeps its own target folder and its rebuilds stay incremental.
 */
export function treeName(role: PlusMinus, slot: number): string {
  return slot === 0 ? role : `${role}-${slot + 1}`;
}

/**
 * Builds the plus and minus engines, each in a build tree of its own (those of build slot
 * `slot`, 0 by default), both cargo builds in parallel (buildEngine).
 */
export async function buildPlusAndMinus(options: {
  build: BuildConfig;
  params: readonly Param[];
  values: Record<PlusMinus, Record<string, number>>;
  /** Where each engine's binary goes, e.g. engines/builds/<run>/<k>/plus/minnow. */
  destination: (role: PlusMinus, binary: string) => string;
  slot?: number;
  signal?: AbortSignal;
  hold?: BuildHold;
}): Promise<Record<PlusMinus, BuiltEngine>> {
  const buildOne = (role: PlusMinus, signal: AbortSignal) =>
    buildEngine({
      build: options.build,
      params: options.params,
      values: options.values[role],
      tree: treeName(role, options.slot ?? 0),
      // Its cargo log is the tree's: builds side by side never write into one log.
      label: treeName(role, options.slot ?? 0),
      destination: (binary) => options.destination(role, binary),
      signal,
      hold: options.hold,
    });
  // One failed build stops the other: its error is the one reported, and no cargo outlives it.
  const [plus, minus] = await allOrNothing(
    [(signal) => buildOne("plus", signal), (signal) => buildOne("minus", signal)],
    options.signal,
  );
  return { plus: plus!, minus: minus! };
}

function writeIfChanged(path: string, content: string): void {
  let current: string | undefined;
  try {
    current = readFileSync(path, "utf8");
  } catch {
    current = undefined;
  }
  if (current !== content) writeFileSync(path, content);
}
