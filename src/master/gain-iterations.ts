import { join } from "node:path";
import type { Param } from "../params/params.js";
import { builtValue } from "../spsa/math.js";
import { buildEngine, treeName, type BuiltEngine } from "../engine-build/engine-builder.js";
import { GAIN_BLOCK_GAMES, type BuildGainPlan } from "../spsa/gain-block-plan.js";
import type { Perturbation, Values } from "../types/spsa.js";
import type { TuningConfig } from "../types/config.js";
import type { MasterContext } from "./run-setup.js";

/**
 * Build mode's gain iterations (docs/gain-so-far.md): placed among the run's iterations by
 * src/spsa/gain-block-plan.ts from its config, each of GAIN_BLOCK_GAMES playing θ as it stands
 * against θ₀ with one build of θ on both sides (the curvature pilot's form), moving θ no step.
 */

/** The master's line at its start: where the gain iterations go, or why there are none. */
export function describeGainPlan(config: TuningConfig, plan: BuildGainPlan): string | undefined {
  const { share } = config.spsa.gain;
  if (share === 0) return undefined;
  if (plan.gainIterations.length === 0)
    return (
      `gain iterations: none ([spsa] gain_share = ${share}: one of ${GAIN_BLOCK_GAMES} games needs ` +
      `${Math.round(GAIN_BLOCK_GAMES / share)} games after the pilot, and batch_size at least 4); ` +
      `spsa status shows no gain`
    );
  return (
    `gain iterations: ${plan.gainIterations.length} of ${GAIN_BLOCK_GAMES} games, θ against θ₀ ` +
    `(${plan.gainIterations.slice(0, 3).join(", ")}, …), of ${plan.iterations}; the tuner's schedule ` +
    `planned for its ${plan.tunerIterations}; they move θ no step, and spsa status shows what θ gained`
  );
}

/**
 * A gain iteration's perturbation: plus and minus both θ as built (as drawIteration builds a
 * frozen parameter), c_k = a_k = 0, no signs: no update is ever taken from it.
 */
export function gainPerturbation(params: readonly Param[]): Perturbation {
  const theta = Object.fromEntries(params.map((p) => [p.name, builtValue(p)]));
  return { ck: 0, ak: 0, signs: {}, delta: {}, plus: theta, minus: { ...theta } };
}

/** θ of gain iteration k, built once in build slot `slot`'s plus tree: its plus and its minus are that one binary. */
export async function buildGainEngine(
  { options, run, db }: MasterContext,
  drawn: { k: number; params: readonly Param[]; values: Values },
  slot: number,
  signal: AbortSignal,
): Promise<{ plus: BuiltEngine; minus: BuiltEngine }> {
  const { config } = options;
  const engine = await buildEngine({
    build: config.build,
    params: drawn.params,
    values: drawn.values,
    tree: treeName("plus", slot),
    label: `iteration ${drawn.k} θ`,
    destination: (binary) => join(config.build.outputDir, run.name, String(drawn.k), "theta", binary),
    signal,
    hold: options.lease.treeHold(db),
  });
  return { plus: engine, minus: engine };
}
