/**
 * The curvature pilot, pure (docs/adaptive-gains.md, "The curvature pilot"). Plus-vs-minus games
 * measure the slope and never the curvature (the centred difference cancels it), yet the step
 * an engine can take depends on it: many sharp parameters make a large step unstable, flat ones
 * want a larger step than one default can give. So the first `pilot` iterations play θ+ and θ−
 * each against θ₀ (reference mode): what they lose to θ₀ is what the perturbation costs, for a
 * quadratic loss Σ h_i·d_i² per side (d_i the half-spread in steps), which measures the total
 * curvature T = Σ h_i. A run whose perturbation costs little steps up to PILOT_MAX_FACTOR times
 * faster at full signal; one whose cost is large, or beyond what the games can measure, keeps
 * the default. The floor (the step when the run measures only noise) rises by the factor to the
 * power `[spsa] adapt_lift`: on a surface flat enough for a longer step, wandering costs little
 * and the step at the floor is what most of a short run takes.
 */
import { eloNoiseVariance } from "./adaptive.js";
import { measuredElo } from "./math.js";
import type { AdaptiveGains, PilotIteration, PilotMeasure, SpsaMathConfig, Values } from "../types/spsa.js";

/**
 * The total curvature (Elo per step², all parameters) the default rate is safe for: the simulator
 * family's sharpest cell, 40 parameters at 1.25.
 */
export const PILOT_SAFE_CURVATURE = 50;
/** The most the pilot speeds a run up: beyond 4× a step wanders where there is little to gain. */
export const PILOT_MAX_FACTOR = 4;
/**
 * A side that loses more than this to θ₀ is near the clamped score, where its Elo understates the
 * cost: too sharp to measure.
 */
export const PILOT_SATURATION_ELO = 250;

/** The adaptive gains' keys a step scale after the pilot reads. */
export type PilotScaling = Pick<AdaptiveGains, "floor" | "lift">;

/**
 * A step scale after the pilot: the adaptive scale floor + (1 − floor)·ρ becomes
 * L + (factor − L)·ρ, the factor raising its full-signal end, and the floor lifted to
 * L = min(factor, floor·factor^lift) (docs/adaptive-gains.md, "The pilot lifts the floor").
 */
export function pilotScale(scale: number, scaling: PilotScaling, factor: number): number {
  const { floor } = scaling;
  const rho = floor >= 1 ? 1 : (scale - floor) / (1 - floor);
  const lifted = liftedFloor(scaling, factor);
  return lifted + (factor - lifted) * rho;
}

/** The least step scale after the pilot: min(factor, floor·factor^lift). */
export function liftedFloor({ floor, lift }: PilotScaling, factor: number): number {
  return Math.min(factor, floor * factor ** (lift ?? 0));
}

/** Every parameter's step scale after the pilot (pilotScale); unchanged with a factor of 1. */
export function pilotScales(scales: Values, scaling: PilotScaling, factor: number): Values {
  return factor === 1
    ? scales
    : Object.fromEntries(Object.entries(scales).map(([name, scale]) => [name, pilotScale(scale, scaling, factor)]));
}

/**
 * The gains of a draw after the pilot: c widened by the pilot's factor F to the power
 * `[spsa] adapt_widen` (docs/adaptive-gains.md, "The pilot widens the perturbation"). A run flat
 * enough for longer steps also perturbs wider, where a pair's Elo difference carries more slope
 * for the same noise; a run the pilot keeps at F = 1 keeps its c. Without a measured factor
 * (the pilot's own draws, a run without one) the gains are as configured.
 */
export function widenedGains(gains: SpsaMathConfig, factor: number | undefined): SpsaMathConfig {
  const width = (factor ?? 1) ** (gains.adaptive?.widen ?? 0);
  return width === 1 ? gains : { ...gains, c: gains.c * width };
}

/** Mean of d_i² over the parameters whose plus and minus differ, d_i = (plus_i − minus_i) / (2·step_i). */
export function spreadSquared(steps: Readonly<Record<string, number>>, plus: Values, minus: Values): number {
  const squares = Object.entries(steps)
    .map(([name, step]) => ((plus[name] ?? 0) - (minus[name] ?? 0)) / (2 * step))
    .filter((d) => d !== 0)
    .map((d) => d * d);
  return squares.length === 0 ? 0 : squares.reduce((sum, x) => sum + x, 0) / squares.length;
}

/**
 * "total curvature 3.12 ± 4.10 Elo per step²" (± two errors), or that it was too large for the games
 * to measure (a side lost over PILOT_SATURATION_ELO to θ₀).
 */
export function describeCurvature(pilot: PilotMeasure): string {
  if (pilot.saturated)
    return `total curvature too large to measure (θ+ or θ− lost over ${PILOT_SATURATION_ELO} Elo to θ₀)`;
  if (!Number.isFinite(pilot.curvature)) return "total curvature not measured (no pilot game pairs)";
  return `total curvature ${pilot.curvature.toFixed(2)} ± ${(2 * pilot.error).toFixed(2)} Elo per step²`;
}

/**
 * Why the pilot chose its factor, in words: "θ+ and θ− lost little to θ₀: flat enough for longer steps,
 * at most × 4", or that the steps keep their default length.
 */
export function pilotReason(pilot: PilotMeasure): string {
  if (pilot.factor > 1)
    return `θ+ and θ− lost little to θ₀: flat enough for longer steps, at most × ${PILOT_MAX_FACTOR}`;
  if (!pilot.saturated && Number.isFinite(pilot.curvature))
    return "θ+ and θ− lost too much to θ₀ for longer steps: the default length";
  return "the default length";
}

/**
 * T from the pilot iterations: each gives −(E₊ + E₋) / (2·d̄²) with the variance of its two
 * measured Elo, pooled by inverse variance. The factor uses T's upper 2-error bound, so a noisy
 * pilot errs toward the default step.
 */
export function pilotMeasure(pilots: readonly PilotIteration[]): PilotMeasure {
  let weighted = 0;
  let weights = 0;
  let saturated = false;
  for (const { outcome, spreadSquared: d2 } of pilots) {
    if (d2 <= 0) continue;
    const plus = measuredElo(outcome.plus).elo;
    const minus = measuredElo(outcome.minus).elo;
    if (Math.min(plus, minus) < -PILOT_SATURATION_ELO) saturated = true;
    const variance = (eloNoiseVariance(outcome.plus) + eloNoiseVariance(outcome.minus)) / (4 * d2 * d2);
    weighted += -(plus + minus) / (2 * d2) / variance;
    weights += 1 / variance;
  }
  if (weights === 0) return { curvature: Number.NaN, error: Number.NaN, saturated, factor: 1 };
  const curvature = weighted / weights;
  const error = Math.sqrt(1 / weights);
  const upper = curvature + 2 * error;
  const factor = saturated
    ? 1
    : upper <= 0
      ? PILOT_MAX_FACTOR
      : Math.min(PILOT_MAX_FACTOR, Math.max(1, PILOT_SAFE_CURVATURE / upper));
  return { curvature, error, saturated, factor };
}

/**
 * What the pilot's count reads of a run's config: the master's, or one stored with a run
 * (src/db/run-status.ts storedGainPlan).
 */
export interface PilotPlanConfig {
  spsa: { adaptive: { mode: string; pilot?: number }; reference?: string };
  games: { gamesPerIteration: number; batchSize: number };
}

/**
 * How many of the run's first iterations are pilots: none with adapt = "off", in reference mode
 * (its iterations play a reference already), or when an iteration's games cannot be split into
 * units of four (θ+ and θ− each a game pair against θ₀ on one opening).
 */
export function pilotIterations(config: PilotPlanConfig): number {
  return fitsUnitsOfFour(config) ? configuredPilots(config) : 0;
}

/** Why a configured pilot does not run, or undefined (said once when the master starts). */
export function pilotSkipped(config: PilotPlanConfig): string | undefined {
  if (configuredPilots(config) === 0 || fitsUnitsOfFour(config)) return undefined;
  return (
    "no curvature pilot: [games] games_per_iteration and batch_size must be multiples of 4 for " +
    "it (θ+ and θ− each play a game pair against θ₀ on every opening); steps keep the default rate"
  );
}

/** The pilot iterations asked for, where the run's gains have a pilot at all. */
function configuredPilots(config: PilotPlanConfig): number {
  const { adaptive, reference } = config.spsa;
  return adaptive.mode === "off" || reference !== undefined ? 0 : (adaptive.pilot ?? 0);
}

function fitsUnitsOfFour(config: PilotPlanConfig): boolean {
  return config.games.gamesPerIteration % 4 === 0 && config.games.batchSize % 4 === 0;
}
