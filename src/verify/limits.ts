
import { InputError } from "../core/errors.js";
import { parseTimeControl } from "../play/time-control.js";
import type { TimeControlConfig } from "../types/config.js";
import type { PlayLimits } from "../types/play.js";

/** The limits flags of `spsa verify`, as given (times per move in seconds, as in config.toml and `compete`). */
export interface LimitFlags {
  tc?: string;
  timelow?: number;
  timehigh?: number;
  nodes?: number;
  depth?: number;
}

/**
 * What both engines of a verification search with: the limits the flags ask for, or the run's own (config.toml's [time_control]) when none
 * is given. At most one kind of limit: a clock, a time per move, nodes or depth.
 */
export function verifyLimits(flags: LimitFlags, run: Pick<TimeControlConfig, "timelowMs" | "timehighMs" | "moveLimit">): PlayLimits {
  const given = [
    flags.tc !== undefined && "--tc",
    (flags.timelow !== undefined || flags.timehigh !== undefined) && "--timelow/--timehigh",
    flags.nodes !== undefined && "--nodes",
    flags.depth !== undefined && "--depth",
  ].filter((flag): flag is string => flag !== false);
  if (given.length > 1) throw new InputError(given.join(", "), "give one kind of limit: --tc, --timelow/--timehigh, --nodes or --depth");
  if (flags.tc !== undefined) return { tc: parseTimeControl(flags.tc) };
  if (flags.nodes !== undefined) return { nodes: positiveInteger("--nodes", flags.nodes) };
  if (flags.depth !== undefined) return { depth: positiveInteger("--depth", flags.depth) };
  if (flags.timelow !== undefined || flags.timehigh !== undefined) {
    // One of the two alone is a fixed time per move.
    const timelowMs = milliseconds("--timelow", flags.timelow ?? flags.timehigh ?? 0);
    const timehighMs = milliseconds("--timehigh", flags.timehigh ?? flags.timelow ?? 0);
    if (timelowMs > timehighMs) throw new InputError("--timelow", `${timelowMs / 1000} s is above --timehigh ${timehighMs / 1000} s`);
    return { timelowMs, timehighMs };
  }
  return run.moveLimit ?? { timelowMs: run.timelowMs, timehighMs: run.timehighMs };
}

function positiveInteger(flag: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) throw new InputError(flag, `must be a whole number of at least 1, got ${value}`);
  return value;
}

function milliseconds(flag: string, seconds: number): number {
  const ms = Math.round(seconds * 1000);
  if (!Number.isFinite(seconds) || ms < 1) throw new InputError(flag, `must be a time per move in seconds of at least 0.001, got ${seconds}`);
  return ms;
}
