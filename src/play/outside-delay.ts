import type { OutsideDelayPolicy } from "../types/play.js";

/** Replays per pair before a game lost to an outside delay is scored anyway. */
export const DEFAULT_MAX_REPLAYS = 4;

export const OUTSIDE_DELAY_POLICIES = ["replay", "loss"] as const;

/** The policy of config.toml's `[time_control] outside_delay` or compete's `--outside-delay`. */
export function outsideDelayPolicy(
  policy: (typeof OUTSIDE_DELAY_POLICIES)[number],
  maxReplays: number,
): OutsideDelayPolicy {
  return policy === "replay" ? { policy, maxReplays } : { policy };
}
