import { stepsFromOptimum } from "./engine-model.js";
import type { Trace, Tuner } from "./tuners.js";
import type { Problem } from "./problem.js";

export interface Summary {
  tuner: string;
  /** Game counts at which Elo left is reported. */
  checkpoints: number[];
  /** Mean and standard deviation over seeds of Elo left at each checkpoint. */
  mean: number[];
  sd: number[];
  /** Mean over seeds of |θ − optimum| in steps, per parameter, at the start and at the end. */
  startSteps: Record<string, number>;
  endSteps: Record<string, number>;
}

/** Runs a tuner on one problem per seed and summarises Elo left at evenly spaced checkpoints. */
export function simulateSeeds(
  tuner: Tuner,
  problemFor: (seed: number) => Problem,
  budget: number,
  seeds: number,
  points = 20,
): Summary {
  const checkpoints = Array.from({ length: points + 1 }, (_, i) => Math.round((budget * i) / points));
  const samples: number[][] = checkpoints.map(() => []);
  const startSteps: Record<string, number> = {};
  const endSteps: Record<string, number> = {};
  for (let s = 0; s < seeds; s++) {
    const problem = problemFor(s);
    const trace = tuner.run(problem, budget, `seed${s}`);
    checkpoints.forEach((games, i) => samples[i]?.push(eloLeftAt(trace, games)));
    addTo(
      startSteps,
      stepsFromOptimum(problem.model, Object.fromEntries(problem.params.map((p) => [p.name, p.value]))),
      seeds,
    );
    addTo(endSteps, stepsFromOptimum(problem.model, trace.final), seeds);
  }
  return {
    tuner: tuner.name,
    checkpoints,
    mean: samples.map(mean),
    sd: samples.map(standardDeviation),
    startSteps,
    endSteps,
  };
}

/** Elo left after the last update made with at most `games` games. */
export function eloLeftAt(trace: Trace, games: number): number {
  let value = trace.eloLeft[0] ?? Number.NaN;
  for (let i = 0; i < trace.games.length && (trace.games[i] ?? Infinity) <= games; i++)
    value = trace.eloLeft[i] ?? value;
  return value;
}

function addTo(total: Record<string, number>, values: Record<string, number>, count: number): void {
  for (const [name, v] of Object.entries(values)) total[name] = (total[name] ?? 0) + v / count;
}

export function mean(xs: readonly number[]): number {
  return xs.reduce((s, x) => s + x, 0) / xs.length;
}

function standardDeviation(xs: readonly number[]): number {
  if (xs.length < 2) return 0;
  const m = mean(xs);
  return Math.sqrt(xs.reduce((s, x) => s + (x - m) ** 2, 0) / (xs.length - 1));
}
