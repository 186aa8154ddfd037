/**
 * Speed normalisation of a worker (`[time_control] reference_nps`), as fishtest and
 * chess-compete's time multiplier do it: a worker whose engine searches at half the
 * reference speed gets twice the time per move, so every worker's games are played at
 * about the same number of nodes per move.
 */

/**
 * The factor is kept within this range: a measurement far outside it says more about the machine's
 * load or the engine than about its speed.
 */
export const MIN_TIME_FACTOR = 0.25;
export const MAX_TIME_FACTOR = 4;

export interface TimeFactor {
  factor: number;
  /** The unclamped reference / measured was outside [MIN_TIME_FACTOR, MAX_TIME_FACTOR]. */
  clamped: boolean;
}

export function timeFactor(referenceNps: number, measuredNps: number): TimeFactor {
  if (!(referenceNps > 0) || !(measuredNps > 0))
    throw new Error(`speeds must be positive, got reference ${referenceNps} and measured ${measuredNps}`);
  const raw = referenceNps / measuredNps;
  const factor = Math.min(MAX_TIME_FACTOR, Math.max(MIN_TIME_FACTOR, raw));
  return { factor, clamped: factor !== raw };
}

/** A time per move scaled by the factor, in whole milliseconds and at least 1. */
export function scaledMovetime(movetimeMs: number, factor: number): number {
  return Math.max(1, Math.round(movetimeMs * factor));
}
