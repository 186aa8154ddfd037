import { InputError } from "../core/errors.js";
import { inspectTargets, label, throwProblems, type ConstantTarget } from "../rust-constants/rewriter.js";
import { describeRange, typeRange, type RustNumberType, type TypeAlias } from "../rust-constants/rust-types.js";

/** A parameter as the check sees it: its target and the bounds plus and minus stay within. */
export interface CheckedParam extends ConstantTarget {
  min: number;
  max: number;
}

/**
 * Everything about the parameters that can be known before a run starts: each target's
 * literal is found (see inspectTargets), and every value plus and minus can take fits the
 * literal's Rust type. Throws one InputError listing every bad parameter.
 */
export function checkTargets(
  source: string,
  params: readonly CheckedParam[],
  fileName: string,
  crateAliases: readonly TypeAlias[],
): void {
  const { located, problems } = inspectTargets(source, params, fileName, crateAliases);
  for (const loc of located) {
    const param = params.find((p) => p.param === loc.target.param);
    const problem = param === undefined ? undefined : boundsProblem(param, loc.primitive);
    if (problem !== undefined)
      problems.push(new InputError(`${fileName}:${loc.line}`, `${label(loc.target)}: ${problem}`));
  }
  throwProblems(problems, fileName);
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
