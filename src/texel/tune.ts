import type { Param } from "../params/params.js";
import type { BatchEnginePool } from "./batch-engine-pool.js";
import { fitK, meanSquaredError } from "./error.js";
import { coordinateSearch, type SearchPosition, type SearchProgress, type TexelMethod } from "./local-search.js";
import { optionValues, type OptionTarget } from "../params/option-names.js";
import type { LabelledPosition } from "./positions.js";

export interface TexelTuneOptions {
  pool: BatchEnginePool;
  positions: readonly LabelledPosition[];
  /** Every parameter of params.toml (the engine gets all their values) and which are tuned. */
  params: readonly Param[];
  targets: readonly OptionTarget[];
  tuned: readonly Param[];
  method: TexelMethod;
  maxPasses: number;
  onProgress?: (progress: SearchProgress & { positionsPerSecond: number }) => void;
  onEvaluation?: (position: SearchPosition & { positionsPerSecond: number }) => void;
  signal?: AbortSignal;
}

export interface TexelTuneResult {
  k: number;
  errorBefore: number;
  errorAfter: number;
  start: Record<string, number>;
  values: Record<string, number>;
  evaluations: number;
  passes: number;
  positionsPerSecond: number;
  seconds: number;
}

/**
 * Texel tuning: K is fitted once on the start values (as the seed does, so the error
 * measures the evaluation, not the scale), then the chosen parameters move by coordinate
 * search on the error of the static evaluations of all positions (quiet positions, see
 * `spsa texel-data --quiet`, make static evaluation and search agree).
 */
export async function texelTune(options: TexelTuneOptions): Promise<TexelTuneResult> {
  const started = performance.now();
  const results = Float64Array.from(options.positions, (p) => p.result);
  const start = Object.fromEntries(options.params.map((p) => [p.name, p.value]));
  let scored = 0;
  const scores = async (values: Readonly<Record<string, number>>) => {
    const out = await options.pool.evaluate(optionValues(options.params, options.targets, values), "static");
    scored += out.length;
    return out;
  };
  const { k, error: errorBefore } = fitK(await scores(start), results);
  const rate = () => scored / ((performance.now() - started) / 1000);
  const search = await coordinateSearch({
    params: options.tuned,
    start,
    startError: errorBefore,
    method: options.method,
    maxPasses: options.maxPasses,
    error: async (values) => meanSquaredError(await scores(values), results, k),
    onProgress: (progress) => options.onProgress?.({ ...progress, positionsPerSecond: rate() }),
    onEvaluation: (position) => options.onEvaluation?.({ ...position, positionsPerSecond: rate() }),
    signal: options.signal,
  });
  return {
    k,
    errorBefore,
    errorAfter: search.error,
    start,
    values: search.values,
    evaluations: search.evaluations + 1,
    passes: search.passes,
    positionsPerSecond: rate(),
    seconds: (performance.now() - started) / 1000,
  };
}
