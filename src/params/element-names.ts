import type { ValueNode } from "../rust-constants/parser.js";

/**
 * The name of a constant's element, one rule for `spsa init --constants` (the parameter's name)
 * and the UCI options minnow makes of its constants (option-names.ts; engines/minnow/README.md,
 * "Option names"): the constant's name, then per level `_MG` or `_EG` for the first or second
 * member of a two-member tuple (the (mg, eg) pair of the chess convention) and `_<i>` for an
 * array's element or a member of any other tuple. `KNIGHT_VALUE.0` is `KNIGHT_VALUE_MG`,
 * `PASSED_PAWN_BONUS[5].1` is `PASSED_PAWN_BONUS_5_EG`.
 */
export function elementSuffix(container: ValueNode, index: number): string {
  if (container.kind !== "tuple" || container.items.length !== 2) return `_${index}`;
  return index === 0 ? "_MG" : "_EG";
}

/**
 * The name `spsa init --constants` gave an element before it named (mg, eg) pairs: the
 * constant's name and every index as a number (`KNIGHT_VALUE_0`, `PASSED_PAWN_BONUS_5_1`).
 * Runs started from such a file hold their θ under it. Undefined for a scalar.
 */
export function formerElementName(target: { constant: string; index: readonly number[] }): string | undefined {
  return target.index.length === 0 ? undefined : [target.constant, ...target.index].join("_");
}

/**
 * params.toml's parameters under the names a stored run holds their θ by: a parameter the run
 * has no θ for under its own name, but has under its element's former name (`KNIGHT_VALUE_0` for
 * `[KNIGHT_VALUE_MG]`, constant KNIGHT_VALUE, index 0), takes that name, which no other
 * parameter of the file has; so the run keeps one name for it in its θ, its rows and its history.
 * params.toml's `value` line is found under either name (updateParamValues). `renamed`: the
 * table name and the run's name of each parameter that took one.
 */
export function withStoredNames<P extends { name: string; constant: string; index: readonly number[] }>(
  params: readonly P[],
  stored: Readonly<Record<string, unknown>>,
): { params: P[]; renamed: { table: string; stored: string }[] } {
  const names = new Set(params.map((p) => p.name));
  const renamed: { table: string; stored: string }[] = [];
  const out = params.map((p) => {
    const former = formerElementName(p);
    if (p.name in stored || former === undefined || !(former in stored) || names.has(former)) return p;
    renamed.push({ table: p.name, stored: former });
    return { ...p, name: former };
  });
  return { params: out, renamed };
}
