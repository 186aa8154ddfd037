import type { TimeControlConfig } from "../config/config.js";
import { InputError } from "../errors.js";
import { parseTimeControl, type PlayLimits } from "../play/time-control.js";

/** The limits flags of `spsa verify`, as given (times per move in milliseconds). */
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
    const timelowMs = positiveInteger("--timelow", flags.timelow ?? flags.timehigh ?? 0);
    const timehighMs = positiveInteger("--timehigh", flags.timehigh ?? timelowMs);
    if (timelowMs > timehighMs) throw new InputError("--timelow", `${timelowMs} ms is above --timehigh ${timehighMs} ms`);
    return { timelowMs, timehighMs };
  }
  return run.moveLimit ?? { timelowMs: run.timelowMs, timehighMs: run.timehighMs };
}

function positiveInteger(flag: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) {
    const hint = flag.startsWith("--time") && value > 0 && value < 1 ? ` (milliseconds: ${value} s is ${Math.round(value * 1000)})` : "";
    throw new InputError(flag, `must be a whole number of at least 1, got ${value}${hint}`);
  }
  return value;
}
