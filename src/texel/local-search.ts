import type { Param } from "../params/params.js";

export type TexelMethod = "local" | "adaptive";

export interface SearchProgress {
  pass: number;
  evaluations: number;
  error: number;
  param: string;
  value: number;
}

/** Where the search is after an evaluation: for a live progress line. */
export interface SearchPosition {
  pass: number;
  /** Parameters of this pass tried so far (the current one included), of `params`. */
  tried: number;
  params: number;
  evaluations: number;
  /** The lowest error so far. */
  error: number;
}

export interface SearchOptions {
  params: readonly Param[];
  start: Readonly<Record<string, number>>;
  startError: number;
  method: TexelMethod;
  maxPasses: number;
  /** The error of a full set of values (all positions scored by the engines). */
  error: (values: Readonly<Record<string, number>>) => Promise<number>;
  /** After every improvement. */
  onProgress?: (progress: SearchProgress) => void;
  /** After every evaluation. */
  onEvaluation?: (position: SearchPosition) => void;
  signal?: AbortSignal;
}

export interface SearchResult {
  values: Record<string, number>;
  error: number;
  evaluations: number;
  passes: number;
}

/** The smallest move of a parameter: 1 for an int (as the seed's ±1), a step for a float. */
function unit(param: Param): number {
  return param.type === "int" ? 1 : param.step;
}

/**
 * Coordinate search on the error. `local` is Texel's method as in the seed: each pass
 * tries every parameter +1 then −1 and keeps a change that lowers the error, until a pass
 * changes nothing. `adaptive` starts each parameter at its params.toml `step`, doubles a
 * step that paid (up to 16 units of `step`) and halves one that did not (down to the
 * seed's unit), so parameters far from their optimum get there in a few passes instead
 * of one unit per pass; it ends, as `local` does, when no ±1 move helps.
 */
export async function coordinateSearch(options: SearchOptions): Promise<SearchResult> {
  const { params, method } = options;
  const values: Record<string, number> = { ...options.start };
  let best = options.startError;
  let evaluations = 0;
  const steps = new Map(
    params.map((p) => [p.name, method === "local" ? unit(p) : Math.max(unit(p), roundStep(p, p.step))]),
  );
  let passes = 0;
  while (passes < options.maxPasses && !options.signal?.aborted) {
    passes++;
    let improved = false;
    // Converged only when a pass at the unit step everywhere moved nothing (steps change during the pass).
    const atUnit = params.every((p) => steps.get(p.name) === unit(p));
    for (const [index, param] of params.entries()) {
      if (options.signal?.aborted) break;
      const step = steps.get(param.name)!;
      let moved = false;
      for (const direction of [1, -1]) {
        const candidate = Math.min(param.max, Math.max(param.min, values[param.name]! + direction * step));
        if (candidate === values[param.name]) continue;
        const error = await evaluateUnlessStopped(options, { ...values, [param.name]: candidate });
        if (error === undefined) return { values, error: best, evaluations, passes };
        evaluations++;
        const improves = error < best;
        if (improves) {
          best = error;
          values[param.name] = candidate;
          moved = true;
          options.onProgress?.({ pass: passes, evaluations, error, param: param.name, value: candidate });
        }
        options.onEvaluation?.({ pass: passes, tried: index + 1, params: params.length, evaluations, error: best });
        if (improves) break;
      }
      improved ||= moved;
      if (method === "adaptive")
        steps.set(
          param.name,
          moved
            ? Math.min(roundStep(param, step * 2), 16 * param.step)
            : Math.max(unit(param), roundStep(param, step / 2)),
        );
    }
    if (!improved && atUnit) break;
  }
  return { values, error: best, evaluations, passes };
}

/**
 * The error of `values`, or undefined when the run was stopped: Ctrl-C reaches the engine
 * processes too, so an evaluation in flight fails, and the best values so far still count.
 */
async function evaluateUnlessStopped(
  options: SearchOptions,
  values: Readonly<Record<string, number>>,
): Promise<number | undefined> {
  try {
    return await options.error(values);
  } catch (error) {
    if (options.signal?.aborted) return undefined;
    throw error;
  }
}

function roundStep(param: Param, step: number): number {
  return param.type === "int" ? Math.max(1, Math.round(step)) : step;
}
