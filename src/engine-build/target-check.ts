import { throwProblems, type InputError } from "../core/errors.js";
import { inspectTargets, TargetProblem, type ConstantTarget } from "../rust-constants/rewriter.js";
import { describeRange, typeRange, type RustNumberType, type TypeAlias } from "../rust-constants/rust-types.js";

/**
 * A parameter as the check sees it: its target and the bounds plus and minus stay within (none
 * when params.toml's min or max has a problem of its own: then only the target is checked).
 */
export interface CheckedParam extends ConstantTarget {
  min?: number | undefined;
  max?: number | undefined;
}

/**
 * Everything about the parameters that can be known before a run starts: each target's
 * literal is found (see inspectTargets), and every value plus and minus can take fits the
 * literal's Rust type. Returns every problem, one per bad parameter.
 */
export function targetProblems(
  source: string,
  params: readonly CheckedParam[],
  fileName: string,
  crateAliases: readonly TypeAlias[],
): InputError[] {
  const { located, problems } = inspectTargets(source, params, fileName, crateAliases);
  for (const loc of located) {
    const param = params.find((p) => p.param === loc.target.param);
    const bounds =
      param?.min === undefined || param.max === undefined ? undefined : { ...param, min: param.min, max: param.max };
    const problem = bounds === undefined ? undefined : boundsProblem(bounds, loc.primitive);
    if (problem !== undefined) problems.push(new TargetProblem(`${fileName}:${loc.line}`, loc.target, problem));
  }
  return problems;
}

/** targetProblems, thrown: the only problem as it is, or every one as one InputProblems. */
export function checkTargets(
  source: string,
  params: readonly CheckedParam[],
  fileName: string,
  crateAliases: readonly TypeAlias[],
): void {
  throwProblems(targetProblems(source, params, fileName, crateAliases));
}

/**
 * Why [min, max] lets plus or minus take a value `primitive` cannot hold, or undefined.
 * Int parameters are rounded into ceil(min)..floor(max) (see perturb in src/spsa/math.ts),
 * so those are the integers checked.
 */
export function boundsProblem(
  param: { min: number; max: number; type: "int" | "float" },
  primitive: RustNumberType,
): string | undefined {
  const { min, max } = param;
  if (!Number.isFinite(min) || !Number.isFinite(max)) return `[min, max] = [${min}, ${max}] is not finite`;
  const [low, high] = param.type === "int" ? [Math.ceil(min), Math.floor(max)] : [min, max];
  if (param.type === "int" && (low < -Number.MAX_SAFE_INTEGER || high > Number.MAX_SAFE_INTEGER)) {
    return (
      `[min, max] = [${min}, ${max}] reaches integers outside the range a float64 holds ` +
      `exactly (±${Number.MAX_SAFE_INTEGER})`
    );
  }
  const [typeLow, typeHigh] = typeRange(primitive);
  const outside = [low < typeLow ? `min = ${min}` : "", high > typeHigh ? `max = ${max}` : ""].filter(
    (text) => text !== "",
  );
  if (outside.length === 0) return undefined;
  return (
    `${outside.join(" and ")} ${outside.length > 1 ? "are" : "is"} outside ${primitive} ` +
    `(${describeRange(primitive)})`
  );
}
