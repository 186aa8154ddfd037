import { loadConfig, spsaMathConfig } from "../config/config.js";
import { loadParams, type Param } from "../params/params.js";
import { withStoredNames } from "../params/element-names.js";
import { openDatabase } from "../postgres/connection.js";
import { readPlayedIterations } from "../db/iterations.js";
import { fitLossModel, type FittedModel } from "../simulate/fit-model.js";
import { fitReport, simulateFlags } from "../simulate/fit-report.js";
import { requireRun } from "../status/run-lookup.js";
import { readTomlFile } from "../core/toml-file.js";
import { writeFileAtomic } from "../core/write-atomic.js";
import { InputError } from "../core/errors.js";
import { DEFAULT_ELO_CAP } from "../spsa/math.js";
import { simulateSeeds, type Summary } from "../simulate/aggregate.js";
import { svgChart, terminalChart } from "../simulate/chart.js";
import { distanceTable, eloLeftTable } from "../simulate/report.js";
import { describeReference, referencePlay, type Reference } from "../simulate/reference-mode.js";
import { fishtestTuner, masterTuner, seedTuner, type Tuner } from "../simulate/tuners.js";
import { parseModelFile, userProblem, type ModelOptions } from "../simulate/user-model.js";
import { databaseOptionsFrom, DEFAULT_CONFIG_FILE } from "./database-options.js";
import { DEFAULT_PARAMS_FILE } from "./master.js";
import type { SpsaConfig } from "../types/config.js";

export interface SimulateCommandOptions {
  config?: string;
  params?: string;
  /** Game budget; default max_iterations × games_per_iteration. */
  games?: number;
  seeds?: number;
  drawRate?: number;
  lossElo?: number;
  lossSteps?: number;
  offset?: number;
  /** TOML file with per-parameter optimum, loss_elo, loss_steps. */
  model?: string;
  /** Fit the loss model (loss_elo, offset, draw rate) to this run's recorded iterations instead. */
  fromRun?: string;
  /** Also run the fishtest and seed-design anchors. */
  anchors?: boolean;
  svg?: string;
  /** Also your config in reference mode: "start" (θ₀) or the reference's Elo over θ₀. */
  reference?: string;
  out?: (text: string) => void;
}

export interface SimulateResult {
  games: number;
  iterations: number;
  summaries: Summary[];
  /** With fromRun: the fitted model. */
  fit?: FittedModel;
}

/**
 * `spsa simulate`: the master's own math (src/spsa/math.ts, its rounding, clipping and
 * iteration schedule) tuning a synthetic engine built from params.toml, over several seeds.
 */
export async function simulateCommand(options: SimulateCommandOptions = {}): Promise<SimulateResult> {
  const out = options.out ?? ((text: string) => process.stdout.write(`${text}\n`));
  const config = loadConfig(options.config ?? DEFAULT_CONFIG_FILE);
  const paramsFile = options.params ?? DEFAULT_PARAMS_FILE;
  const params = loadParams(paramsFile);
  const perIteration = config.games.gamesPerIteration;
  const games = options.games ?? config.spsa.maxIterations * perIteration;
  const iterations = Math.floor(games / perIteration);
  if (iterations < 1)
    throw new InputError("--games", `must be at least games_per_iteration (${perIteration}), got ${games}`);
  const seeds = options.seeds ?? 8;
  if (!Number.isInteger(seeds) || seeds < 1)
    throw new InputError("--seeds", `must be a positive integer, got ${seeds}`);
  let fit: FittedModel | undefined;
  if (options.fromRun !== undefined) {
    fit = await fitRun(options.config, options.fromRun, params);
    const extra = `${paramsFile === DEFAULT_PARAMS_FILE ? "" : ` --params ${paramsFile}`}${options.config === undefined ? "" : ` --config ${options.config}`}`;
    out(fitReport(options.fromRun, fit, extra));
    if (!fit.bounded) return { games: 0, iterations: 0, summaries: [], fit };
    out("");
  }
  const fitted = fit && simulateFlags(fit, fit.offsetAtEnd);
  const model: ModelOptions = {
    lossElo: positive("--loss-elo", fitted?.lossElo ?? options.lossElo ?? 5),
    lossSteps: positive("--loss-steps", fitted?.lossSteps ?? options.lossSteps ?? 4),
    offsetSteps: fitted?.offset ?? options.offset,
    drawRate: fitted?.drawRate ?? options.drawRate ?? 0.4,
    overrides: options.model ? parseModelFile(readTomlFile(options.model), params) : {},
  };
  if (!(model.drawRate >= 0 && model.drawRate < 1))
    throw new InputError("--draw-rate", `must be in [0, 1), got ${model.drawRate}`);

  const gainsFor = (maxIterations: number) => spsaMathConfig({ ...config.spsa, maxIterations }, perIteration);
  const yours = `your config (${describeGains(config.spsa)}, ${perIteration} games/iteration)`;
  const tuners: Tuner[] = [masterTuner(yours, gainsFor, perIteration, config.spsa.averageTail)];
  const reference = options.reference === undefined ? undefined : parseReference(options.reference);
  if (reference) {
    const play = referencePlay(reference, gainsFor(iterations).eloCap ?? DEFAULT_ELO_CAP);
    tuners.push(
      masterTuner(
        `your config in reference mode (${describeReference(reference)})`,
        gainsFor,
        perIteration,
        config.spsa.averageTail,
        undefined,
        play,
      ),
    );
  }
  if (options.anchors ?? true)
    tuners.push(fishtestTuner({ cEnd: 1, rEnd: 0.002, batchGames: config.games.batchSize }), seedTuner());
  const summaries = tuners.map((tuner) =>
    simulateSeeds(tuner, (seed) => userProblem(params, model, seed), iterations * perIteration, seeds),
  );

  const optimum =
    model.offsetSteps === undefined
      ? "an optimum drawn uniformly in its bounds"
      : `an optimum ${model.offsetSteps} steps from its value`;
  out(
    `${params.length} parameters of ${paramsFile}, ${iterations * perIteration} games ` +
      `(${iterations} iterations × ${perIteration}), ${seeds} seeds, ` +
      `draw rate ${model.drawRate}; each parameter loses ${model.lossElo} Elo at ${model.lossSteps} ` +
      `steps from ${optimum}` +
      (Object.keys(model.overrides).length > 0
        ? ` (${Object.keys(model.overrides).length} set by ${options.model})`
        : ""),
  );
  out("");
  out(eloLeftTable(summaries));
  out("");
  out(terminalChart(summaries));
  const [first] = summaries;
  if (first) {
    out("");
    out(distanceTable(first));
  }
  if (options.svg) {
    writeFileAtomic(
      options.svg,
      svgChart(summaries, `Elo left, ${params.length} parameters of ${paramsFile}, ${seeds} seeds`),
      { mode: 0o644 },
    );
    out(`\nchart written to ${options.svg}`);
  }
  return { games: iterations * perIteration, iterations, summaries, ...(fit && { fit }) };
}

/** The loss model fitted to a run's completed iterations; its parameters' steps and types from the parameters file. */
async function fitRun(configFile: string | undefined, runName: string, tables: readonly Param[]): Promise<FittedModel> {
  const database = await openDatabase(databaseOptionsFrom(configFile));
  try {
    const run = await requireRun(database.sql, runName);
    const played = await readPlayedIterations(database.sql, run.id);
    const { params } = withStoredNames(tables, played.start);
    const missing = Object.keys(played.start).filter((name) => !params.some((p) => p.name === name));
    if (missing.length > 0)
      throw new InputError(
        "--params",
        `has no parameter ${missing.join(", ")} of run "${runName}": give the parameters file the run was started with`,
      );
    if (played.iterations.length < 2)
      throw new InputError(
        "--from-run",
        `run "${runName}" has ${played.iterations.length} completed iteration(s); a fit needs at least 2`,
      );
    return fitLossModel({
      params: params.filter((p) => p.name in played.start),
      start: played.start,
      end: played.current,
      iterations: played.iterations,
    });
  } finally {
    await database.close();
  }
}

/** "start", or the reference's Elo over θ₀ (a number; negative for a weaker engine). */
function parseReference(text: string): Reference {
  if (text === "start") return { kind: "start" };
  const elo = Number(text);
  if (text.trim() === "" || !Number.isFinite(elo))
    throw new InputError("--reference", `must be "start" or an Elo over θ₀ (e.g. 100 or -100), got "${text}"`);
  return { kind: "fixed", elo };
}

function positive(flag: string, value: number): number {
  if (!(value > 0)) throw new InputError(flag, `must be positive, got ${value}`);
  return value;
}

function describeGains(spsa: SpsaConfig): string {
  const gainsText = spsa.a !== undefined ? `a ${spsa.a}, c ${spsa.c}` : `c_end ${spsa.cEnd}, r_end ${spsa.rEnd}`;
  const variants = [
    spsa.schedule === "standard" ? "" : `schedule ${spsa.schedule}`,
    spsa.momentum === 0 ? "" : `momentum ${spsa.momentum}`,
    spsa.averageTail === 0 ? "" : `average_tail ${spsa.averageTail}`,
    spsa.adaptive.mode === "off"
      ? ""
      : `adapt ${spsa.adaptive.mode} (window ${spsa.adaptive.window}, floor ${spsa.adaptive.floor})`,
  ];
  return [gainsText, ...variants.filter(Boolean)].join(", ");
}
