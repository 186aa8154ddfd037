import type { BuiltEngine } from "../engine-build/engine-builder.js";
import { readReferenceIterations } from "../db/iterations.js";
import {
  describeCurvature,
  pilotIterations,
  pilotMeasure,
  pilotReason,
  liftedFloor,
  pilotScales,
  spreadSquared,
  type PilotScaling,
} from "../spsa/pilot.js";
import { buildStartEngine } from "./reference.js";
import { isReferenceResult, type PilotIteration, type PilotMeasure, type Values } from "../types/spsa.js";
import type { MasterContext } from "./run-setup.js";

/**
 * The curvature pilot in the build mode (src/spsa/pilot.ts, docs/adaptive-gains.md): the
 * run's first `[spsa] adapt_pilot` iterations play θ+ and θ− each against θ₀ (as reference
 * mode does), and every later iteration's step scales reach up to the factor their results
 * give instead of 1 (pilotScale), recorded in its settings.
 */

/**
 * θ₀ as the pilot iterations' opponent, built from the run's starting values (each pilot iteration
 * stores it for the workers as it opens).
 */
export async function pilotEngine(master: MasterContext): Promise<BuiltEngine> {
  const { options, run, log } = master;
  const engine = await buildStartEngine(master);
  log(
    `run "${run.name}": curvature pilot: θ+ and θ− of its first ${pilotIterations(options.config)} ` +
      `iteration(s) each play θ₀ (sha256 ${engine.sha256.slice(0, 12)})`,
  );
  return engine;
}

/**
 * An iteration after the pilot: its step scales raised by the pilot's factor, and the measure to
 * record. Unchanged when no pilot iteration completed (a run started before the pilot existed).
 */
export async function pilotScaled(
  { options, run, db }: MasterContext,
  stepScale: Values | undefined,
): Promise<{ stepScale: Values | undefined; pilot: PilotMeasure | undefined }> {
  const pilots = pilotIterations(options.config);
  if (stepScale === undefined || pilots === 0) return { stepScale, pilot: undefined };
  const played = await db.retrying((sql) => readReferenceIterations(sql, run.id, pilots));
  const iterations = played.flatMap(({ outcome, plus, minus, settings }): PilotIteration[] => {
    if (!isReferenceResult(outcome)) return [];
    const steps = Object.fromEntries(Object.entries(settings.parameters).map(([name, p]) => [name, p.step]));
    return [{ outcome, spreadSquared: spreadSquared(steps, plus, minus) }];
  });
  if (iterations.length === 0) return { stepScale, pilot: undefined };
  const pilot = pilotMeasure(iterations);
  return { stepScale: pilotScales(stepScale, options.config.spsa.adaptive, pilot.factor), pilot };
}

/**
 * The pilot's result in words, for the master's log; with the floor it lifts (adapt_lift), that
 * too: "the least scale 0.82 instead of 0.1667".
 */
export function describePilot(pilot: PilotMeasure, scaling: PilotScaling): string {
  const least = liftedFloor(scaling, pilot.factor);
  // A floor of 1 (no adaptation) is no floor to lift: every step is the factor's.
  const lifted = scaling.floor < 1 && least > scaling.floor;
  return (
    `curvature pilot: ${describeCurvature(pilot)}; steps × ${pilot.factor.toFixed(2)} from here on` +
    `${lifted ? `, the least scale ${least.toFixed(2)} instead of ${scaling.floor}` : ""} (${pilotReason(pilot)})`
  );
}
