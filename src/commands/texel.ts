import { availableParallelism } from "node:os";
import { readConstants } from "../engine-build/engine-builder.js";
import { readInputFile } from "../core/input-file.js";
import type { Param } from "../params/params.js";
import { updateParamValues } from "../params/params-update.js";
import { writeFileAtomic } from "../core/write-atomic.js";
import { openDatabase } from "../postgres/connection.js";
import { insertTexelRun } from "../db/texel-runs.js";
import { InputError } from "../core/errors.js";
import { BatchEnginePool } from "../texel/batch-engine-pool.js";
import { texelEngine } from "../texel/engine-path.js";
import type { TexelMethod } from "../texel/local-search.js";
import { optionTargets } from "../params/option-names.js";
import { parsePositions } from "../texel/positions.js";
import { formatImprovement, formatSearchPosition } from "../texel/progress.js";
import { StatusLine } from "../core/status-line.js";
import { texelTune, type TexelTuneResult } from "../texel/tune.js";
import { loadRunInputs } from "./master.js";

export interface TexelCommandOptions {
  config?: string;
  params?: string;
  positions: string;
  /** Parameter names to tune (default: every one that is not frozen). */
  only?: string[];
  method?: TexelMethod;
  maxPasses?: number;
  engine?: string;
  processes?: number;
  /** Leave params.toml as it is (report and store only). */
  dryRun?: boolean;
  log?: (line: string) => void;
  signal?: AbortSignal;
}

export const DEFAULT_MAX_PASSES = 100;

/** `spsa texel`: fits K, tunes the chosen parameters on the positions, writes params.toml, stores the run. */
export async function texelCommand(options: TexelCommandOptions): Promise<TexelTuneResult & { runId: number }> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const method = options.method ?? "adaptive";
  if (method !== "local" && method !== "adaptive")
    throw new InputError("--method", `must be local or adaptive, got ${String(method)}`);
  const maxPasses = options.maxPasses ?? DEFAULT_MAX_PASSES;
  if (!Number.isInteger(maxPasses) || maxPasses < 1)
    throw new InputError("--max-passes", `must be a whole number of at least 1, got ${maxPasses}`);
  const { config, params, paramsFile } = loadRunInputs(options);
  const tuned = selectParams(params, options.only);
  const { file: constantsFile, source } = readConstants(config.build);
  const targets = optionTargets(params, source, constantsFile);
  const positions = parsePositions(readInputFile(options.positions, "positions file"), options.positions);
  const engine = texelEngine(options.engine, () => config.build);

  const pool = await BatchEnginePool.start(
    engine,
    positions.map((p) => p.fen),
    options.processes ?? availableParallelism(),
  );
  let result: TexelTuneResult;
  try {
    const known = new Set((await pool.optionNames()).map((n) => n.toLowerCase()));
    for (const target of targets) {
      if (!known.has(target.option.toLowerCase()))
        throw new InputError(
          `${paramsFile}: [${target.param}]`,
          `${engine} has no UCI option ${target.option}; set option = "NAME"`,
        );
    }
    log(`${positions.length} positions, ${pool.size} engines, ${tuned.length} parameters (${method})`);
    // A live bar between improvements: a pass over many terms can go a minute without one.
    const status = new StatusLine();
    try {
      result = await texelTune({
        pool,
        positions,
        params,
        targets,
        tuned,
        method,
        maxPasses,
        signal: options.signal,
        onProgress: (p) => {
          status.clear();
          log(formatImprovement(p));
        },
        onEvaluation: (p) => status.update(formatSearchPosition(p)),
      });
    } finally {
      status.clear();
    }
  } finally {
    await pool.close();
  }
  log(
    `K ${result.k.toFixed(4)}, error ${result.errorBefore.toFixed(6)} → ` +
      `${result.errorAfter.toFixed(6)} in ${result.passes} passes, ${result.evaluations} ` +
      `evaluations, ${result.seconds.toFixed(1)} s (${Math.round(result.positionsPerSecond)} positions/s)`,
  );
  for (const param of tuned) {
    if (result.values[param.name] !== param.value)
      log(`  ${param.name}: ${param.value} → ${result.values[param.name]}`);
  }
  if (!options.dryRun) {
    const changed = Object.fromEntries(tuned.map((p) => [p.name, result.values[p.name]!]));
    writeFileAtomic(paramsFile, updateParamValues(readInputFile(paramsFile, "params file"), changed, paramsFile), {
      mode: 0o644,
    });
  }
  const database = await openDatabase({ configUrl: config.database.url });
  try {
    const runId = await insertTexelRun(database.sql, {
      paramsFile,
      positionsFile: options.positions,
      positions: positions.length,
      method,
      k: result.k,
      errorBefore: result.errorBefore,
      errorAfter: result.errorAfter,
      startParameters: result.start,
      finalParameters: result.values,
      evaluations: result.evaluations,
      passes: result.passes,
      positionsPerSecond: result.positionsPerSecond,
      seconds: result.seconds,
    });
    log(`stored as texel_run ${runId}`);
    return { ...result, runId };
  } finally {
    await database.close();
  }
}

/** `--only A,B`: those parameters (each must exist); default every parameter not frozen. */
function selectParams(params: readonly Param[], only: readonly string[] | undefined): Param[] {
  if (only === undefined) return params.filter((p) => !p.frozen);
  return only.map((name) => {
    const param = params.find((p) => p.name === name);
    if (param === undefined) throw new InputError("--only", `no parameter ${name} in the params file`);
    return param;
  });
}
