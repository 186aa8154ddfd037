import {
  DEFAULT_ADAPTIVE,
  DEFAULT_ALPHA,
  DEFAULT_C_END,
  DEFAULT_GAMMA,
  DEFAULT_R_END,
  spsaMathConfig,
} from "../config/config.js";
import { DEFAULT_ELO_CAP, DEFAULT_MAX_STEP } from "../spsa/math.js";
import type { SpsaConfig } from "../types/config.js";
import type { SpsaMathConfig } from "../types/spsa.js";

/** A simulated run's `[spsa]` section, its length aside (a tuner sets it from its budget). */
export type SimulatedSpsa = Omit<SpsaConfig, "gain" | "maxIterations">;

/** The shipped `[spsa]` defaults (config.toml's keys unset), with `changes` made. */
export function simulatedSpsa(changes: Partial<SimulatedSpsa> = {}): SimulatedSpsa {
  return {
    cEnd: DEFAULT_C_END,
    rEnd: DEFAULT_R_END,
    a: undefined,
    c: undefined,
    A: undefined,
    alpha: DEFAULT_ALPHA,
    gamma: DEFAULT_GAMMA,
    eloCap: DEFAULT_ELO_CAP,
    maxStep: DEFAULT_MAX_STEP,
    schedule: "standard",
    momentum: 0,
    averageTail: 0,
    maxStaleness: 0,
    adaptive: DEFAULT_ADAPTIVE,
    ...changes,
  };
}

/** A simulated tuner's `gainsFor`: the math's gains for a run of `maxIterations`, from the defaults with `changes`. */
export function simulatedGains(
  changes: Partial<SimulatedSpsa>,
  gamesPerIteration: number,
): (maxIterations: number) => SpsaMathConfig {
  const spsa = simulatedSpsa(changes);
  return (maxIterations) => spsaMathConfig({ ...spsa, maxIterations }, gamesPerIteration);
}
