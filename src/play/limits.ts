import { InputError } from "../core/errors.js";
import { parseTimeControl } from "./time-control.js";
import type { PlayLimits } from "../types/play.js";

/** A limit as given: a clock, a time per move in seconds (one of the two alone is a fixed time), nodes or depth. */
export interface LimitFlags {
  tc?: string;
  timelow?: number;
  timehigh?: number;
  nodes?: number;
  depth?: number;
}

/** What each limit is called where it was given (`--nodes`, or a config key). */
export type LimitNames = Record<keyof LimitFlags, string>;

/** Reports a bad limit: the names of what was given, and why. */
export type LimitFailure = (names: string[], detail: string) => never;

const throwInputError: LimitFailure = (names, detail) => {
  throw new InputError(names.join(", "), detail);
};

/**
 * The one kind of limit given, checked, or undefined when none is: `spsa verify`'s flags and
 * `[ship]`'s keys are read alike, each naming its own flags or keys in its messages.
 */
export function givenLimits(
  given: LimitFlags,
  names: LimitNames,
  fail: LimitFailure = throwInputError,
): PlayLimits | undefined {
  const kinds = [
    given.tc !== undefined && [names.tc],
    (given.timelow !== undefined || given.timehigh !== undefined) && [names.timelow, names.timehigh],
    given.nodes !== undefined && [names.nodes],
    given.depth !== undefined && [names.depth],
  ].filter((kind): kind is string[] => kind !== false);
  if (kinds.length > 1) {
    fail(
      kinds.map((kind) => kind.join("/")),
      `give one kind of limit: ${names.tc}, ${names.timelow}/${names.timehigh}, ${names.nodes} or ${names.depth}`,
    );
  }
  if (given.tc !== undefined) {
    try {
      return { tc: parseTimeControl(given.tc, names.tc) };
    } catch (error) {
      if (error instanceof InputError) fail([names.tc], error.detail);
      throw error;
    }
  }
  if (given.nodes !== undefined) return { nodes: positiveInteger(names.nodes, given.nodes, fail) };
  if (given.depth !== undefined) return { depth: positiveInteger(names.depth, given.depth, fail) };
  if (given.timelow !== undefined || given.timehigh !== undefined) {
    // One of the two alone is a fixed time per move.
    const timelowMs = milliseconds(names.timelow, given.timelow ?? given.timehigh ?? 0, fail);
    const timehighMs = milliseconds(names.timehigh, given.timehigh ?? given.timelow ?? 0, fail);
    if (timelowMs > timehighMs)
      fail([names.timelow], `${timelowMs / 1000} s is above ${names.timehigh} ${timehighMs / 1000} s`);
    return { timelowMs, timehighMs };
  }
  return undefined;
}

function positiveInteger(name: string, value: number, fail: LimitFailure): number {
  if (!Number.isInteger(value) || value < 1) fail([name], `must be a whole number of at least 1, got ${value}`);
  return value;
}

function milliseconds(name: string, seconds: number, fail: LimitFailure): number {
  const ms = Math.round(seconds * 1000);
  if (!Number.isFinite(seconds) || ms < 1)
    fail([name], `must be a time per move in seconds of at least 0.001, got ${seconds}`);
  return ms;
}
