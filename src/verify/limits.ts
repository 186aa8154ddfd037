import { givenLimits, type LimitFlags } from "../play/limits.js";
import type { TimeControlConfig } from "../types/config.js";
import type { PlayLimits } from "../types/play.js";

export type { LimitFlags } from "../play/limits.js";

const FLAGS = { tc: "--tc", timelow: "--timelow", timehigh: "--timehigh", nodes: "--nodes", depth: "--depth" } as const;

/**
 * What both engines of a verification search with: the limits the flags ask for (times per
 * move in seconds, as in config.toml and `compete`), or the run's own (config.toml's
 * [time_control]) when none is given. At most one kind of limit.
 */
export function verifyLimits(
  flags: LimitFlags,
  run: Pick<TimeControlConfig, "timelowMs" | "timehighMs" | "moveLimit">,
): PlayLimits {
  return givenLimits(flags, FLAGS) ?? run.moveLimit ?? { timelowMs: run.timelowMs, timehighMs: run.timehighMs };
}
