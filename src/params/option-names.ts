import type { OptionDraw, OptionParams, Values } from "../types/spsa.js";
import type { Param } from "./params.js";
import { parseRustItems } from "../rust-constants/parser.js";
import { InputError } from "../core/errors.js";
import { elementSuffix } from "./element-names.js";

/** How one params.toml parameter reaches the engine without a rebuild: a UCI spin option. */
export interface OptionTarget {
  param: string;
  option: string;
  /** The option holds value × scale (minnow's floats are spins of value × 100). */
  scale: number;
}

/**
 * The UCI option of each parameter: its `option` key, or the name minnow derives from the
 * constant (engines/minnow/README.md, "Option names"): the element's name (elementSuffix: `NAME`,
 * `NAME_<i>` for an array element, `NAME_MG` / `NAME_EG` for a pair's two members), and `_X100`
 * (value × 100) for a float. The constants file tells an array from a tuple; a parameter it
 * cannot place needs `option`.
 */
export function optionTargets(
  params: readonly Param[],
  constantsSource: string,
  constantsFile: string,
): OptionTarget[] {
  const constants = new Map(parseRustItems(constantsSource, constantsFile).constants.map((c) => [c.name, c.value]));
  return params.map((param) => {
    if (param.option !== undefined) return { param: param.name, option: param.option, scale: param.optionScale ?? 1 };
    let node = constants.get(param.constant);
    let option = param.constant;
    for (const i of param.index) {
      if (node === undefined || (node.kind !== "array" && node.kind !== "tuple")) break;
      option += elementSuffix(node, i);
      node = node.items[i];
    }
    if (node?.kind !== "literal")
      throw new InputError(
        `params: [${param.name}]`,
        `cannot derive a UCI option name from ${param.constant}; set option = "NAME"`,
      );
    return param.type === "float"
      ? { param: param.name, option: `${option}_X100`, scale: 100 }
      : { param: param.name, option, scale: 1 };
  });
}

/** Each parameter's option value for θ: scaled and, for an int parameter, rounded as a build would. */
export function optionValues(
  params: readonly Pick<Param, "name" | "type" | "value">[],
  targets: readonly OptionTarget[],
  values: Readonly<Record<string, number>>,
): Map<string, number> {
  const out = new Map<string, number>();
  params.forEach((param, i) => {
    const target = targets[i]!;
    out.set(target.option, optionValue(values[param.name] ?? param.value, param.type, target.scale));
  });
  return out;
}

/** The value an option holds for a parameter's value: × scale, rounded for an int or a scaled float (a spin). */
function optionValue(value: number, type: Param["type"], scale: number): number {
  const scaled = value * scale;
  return type === "int" || scale !== 1 ? Math.round(scaled) : scaled;
}

/**
 * The `setoption` values of an engine playing `values` (ints rounded as built, as optionValues
 * does), in one pass: a batch may set thousands.
 */
export function engineOptions(parameters: OptionParams, values: Values): Record<string, number> {
  const options: Record<string, number> = {};
  for (const name in parameters) {
    const s = parameters[name]!;
    options[s.option] = optionValue(values[name] ?? 0, s.type, s.optionScale ?? 1);
  }
  return options;
}

/** What the run records of params.toml in this mode; every parameter must name its option. */
export function optionParamsOf(
  params: readonly Pick<Param, "name" | "min" | "max" | "step" | "type" | "frozen" | "option" | "optionScale">[],
  paramsFile: string,
): OptionParams {
  const missing = params.filter((p) => p.option === undefined).map((p) => p.name);
  if (missing.length > 0) {
    throw new InputError(
      paramsFile,
      `[engine] mode = "options" sets every parameter through its UCI option, and ` +
        `${missing.map((n) => `[${n}]`).join(", ")} ` +
        `${missing.length > 1 ? "have" : "has"} no option key: add option = "NAME" (and ` +
        `option_scale for a float held as a scaled integer)`,
    );
  }
  return Object.fromEntries(
    params.map((p) => [
      p.name,
      {
        min: p.min,
        max: p.max,
        step: p.step,
        type: p.type,
        frozen: p.frozen ?? false,
        option: p.option ?? p.name,
        optionScale: p.optionScale,
      },
    ]),
  );
}

/** The plus and minus engines' `setoption` values of a batch's draw. */
export function drawOptions(draw: OptionDraw): {
  plus: Record<string, number>;
  minus: Record<string, number>;
  reference?: Record<string, number>;
} {
  const reference = draw.reference && { reference: engineOptions(draw.parameters, draw.reference) };
  return {
    plus: engineOptions(draw.parameters, draw.plus),
    minus: engineOptions(draw.parameters, draw.minus),
    ...reference,
  };
}
