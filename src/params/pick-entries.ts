import { InputError } from "../core/errors.js";
import { didYouMean } from "../core/suggest.js";
import type { ParamEntry } from "./params-writer.js";

/** `spsa init --only NAME,…` and `--match REGEX`: which proposed parameters to write. */
export interface EntryPick {
  /** Parameter names, or constant names (every element of the constant). */
  only?: readonly string[];
  /** A regular expression a parameter's name must contain a match of (as JavaScript reads it). */
  match?: string;
}

/**
 * The proposed entries a user picked, in the file's order: those --only names (a parameter, or
 * a constant for all its elements) and those whose name --match matches; all without either.
 * A name that is neither, a bad expression, or a pick of nothing is bad input naming its flag.
 */
export function pickEntries(entries: readonly ParamEntry[], pick: EntryPick, source: string): ParamEntry[] {
  if (pick.only === undefined && pick.match === undefined) return [...entries];
  const constantOf = (e: ParamEntry) => e.constant ?? e.name;
  const only = new Set(pick.only ?? []);
  for (const name of only) {
    if (!entries.some((e) => e.name === name || constantOf(e) === name)) {
      const known = [...new Set(entries.flatMap((e) => [constantOf(e), e.name]))];
      throw new InputError("--only", `${source} has no parameter or constant ${name}${didYouMean(name, known)}`);
    }
  }
  let pattern: RegExp | undefined;
  try {
    pattern = pick.match === undefined ? undefined : new RegExp(pick.match);
  } catch (error) {
    throw new InputError("--match", `"${pick.match}" is not a regular expression: ${(error as Error).message}`);
  }
  const picked = entries.filter((e) => only.has(e.name) || only.has(constantOf(e)) || (pattern?.test(e.name) ?? false));
  if (picked.length === 0)
    throw new InputError("--match", `"${pick.match}" matches none of the ${entries.length} parameters of ${source}`);
  return picked;
}
