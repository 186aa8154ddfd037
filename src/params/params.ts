import { InputError, throwProblems } from "../core/errors.js";
import { isFloatType, RUST_NUMBER_TYPES, type RustNumberType } from "../rust-constants/rust-types.js";
import { isTable, TableReader } from "../core/table-reader.js";
import { describeKey, inFileOrder, readTomlFile, type TomlDocument } from "../core/toml-file.js";
import type { SpsaParam, Values } from "../types/spsa.js";

/** One tunable: the math's view (θ, bounds, step, type) plus the constant it targets. */
export interface Param extends SpsaParam {
  /** The Rust constant holding the value. */
  constant: string;
  /** Element path inside an array or tuple constant; empty for a scalar. */
  index: number[];
  /** The literal's Rust type as stated in params.toml, for a type alias the tuner cannot follow. */
  rustType: RustNumberType | undefined;
  /**
   * The engine's UCI option for this parameter (`option` key), when the default name does not fit:
   * for `spsa texel`.
   */
  option: string | undefined;
  /**
   * `option_scale`: the option holds value × scale, rounded (a float parameter as an
   * integer spin, minnow's `_X100`). Undefined: 1, and a float is sent as a decimal string.
   */
  optionScale?: number;
}

const PARAM_KEYS = [
  "value",
  "min",
  "max",
  "step",
  "type",
  "constant",
  "index",
  "rust_type",
  "frozen",
  "option",
  "option_scale",
] as const;

/**
 * A parameter's target as params.toml states it: read from a table even when another of its keys
 * has a problem, so the constants file can still be checked for it (min and max only when both
 * are valid).
 */
export interface ParamTarget {
  param: string;
  constant: string;
  index: number[];
  type: "int" | "float";
  rustType: RustNumberType | undefined;
  min?: number | undefined;
  max?: number | undefined;
}

/** params.toml as read: its valid parameters, every problem found, and the target of every table that names one. */
export interface ParamsReading {
  doc: TomlDocument;
  /** The tables without a problem, in the file's order. */
  params: Param[];
  /** Every table whose constant, index and type could be read, in the file's order. */
  targets: ParamTarget[];
  /** Each problem naming the file, table, key and line, in the file's order. */
  problems: InputError[];
}

/** Loads and validates params.toml: one table per parameter, the table name is the parameter name. */
export function loadParams(file: string): Param[] {
  return parseParams(readTomlFile(file));
}

/** The parameters of params.toml; every problem of the file at once (InputProblems) when it has any. */
export function parseParams(doc: TomlDocument): Param[] {
  const { params, problems } = readParams(doc);
  throwProblems(inFileOrder(problems, doc.file));
  return params;
}

/**
 * Reads every table of params.toml and collects its problems instead of stopping at the first:
 * one run of a command names them all (a missing constant is found later, by the caller that
 * reads the constants file: `targets`).
 */
export function readParams(doc: TomlDocument): ParamsReading {
  const params: Param[] = [];
  const targets: ParamTarget[] = [];
  const problems: InputError[] = [];
  const taken = new Map<string, string>();
  for (const [name, table] of Object.entries(doc.data)) {
    if (!isTable(table)) {
      problems.push(
        new InputError(describeKey(doc, undefined, name), "expected a table [NAME] with value, min, max and step"),
      );
      continue;
    }
    const read = readParam(doc, name, table);
    problems.push(...read.problems);
    if (read.target === undefined) continue;
    const target = `${read.target.constant}${read.target.index.map((i) => `[${i}]`).join("")}`;
    const previous = taken.get(target);
    if (previous !== undefined) {
      problems.push(
        new InputError(describeKey(doc, name), `targets ${target}, which parameter ${previous} already targets`),
      );
      continue;
    }
    taken.set(target, name);
    targets.push(read.target);
    if (read.param !== undefined && read.problems.length === 0) params.push(read.param);
  }
  if (Object.keys(doc.data).length === 0) problems.push(new InputError(doc.file, "defines no parameters"));
  return { doc, params, targets, problems };
}

/** One table: the parameter when it has no problem, its target when that much could be read, and its problems. */
function readParam(
  doc: TomlDocument,
  name: string,
  table: Record<string, unknown>,
): { param?: Param; target?: ParamTarget; problems: InputError[] } {
  const problems: InputError[] = [];
  const reader = new TableReader(doc, name, table, PARAM_KEYS, problems);
  // Each key on its own: a problem of one is recorded and the others are still read.
  const read = <T>(get: () => T): T | undefined => {
    try {
      return get();
    } catch (error) {
      if (!(error instanceof InputError)) throw error;
      problems.push(error);
      return undefined;
    }
  };
  const problem = (key: string, detail: string) => problems.push(new InputError(reader.where(key), detail));
  const type = read(() => reader.oneOf("type", ["int", "float"] as const, "int"));
  let rustType = read(() => reader.optionalOneOf("rust_type", RUST_NUMBER_TYPES));
  if (type !== undefined && rustType !== undefined && isFloatType(rustType) !== (type === "float")) {
    problem(
      "rust_type",
      `"${rustType}" is ${isFloatType(rustType) ? "a float" : "an integer"} type but the parameter's type is "${type}"`,
    );
    rustType = undefined;
  }
  let min = read(() => reader.number("min"));
  let max = read(() => reader.number("max"));
  if (min !== undefined && max !== undefined && min > max) {
    problem("min", `min (${min}) is greater than max (${max})`);
    min = max = undefined;
  }
  // Plus and minus of an int parameter are integers in ceil(min)..floor(max).
  if (type === "int" && min !== undefined && max !== undefined && Math.ceil(min) > Math.floor(max)) {
    problem("min", `[min, max] = [${min}, ${max}] holds no integer`);
    min = max = undefined;
  }
  const value = read(() => reader.number("value"));
  if (value !== undefined && min !== undefined && max !== undefined && (value < min || value > max))
    problem("value", `${value} is outside [${min}, ${max}]`);
  const step = read(() => reader.number("step", { above: 0 }));
  let constant = read(() => reader.string("constant", name));
  if (constant !== undefined && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(constant)) {
    problem("constant", `"${constant}" is not a Rust identifier`);
    constant = undefined;
  }
  const index = read(() => reader.indexPath("index"));
  const frozen = read(() => reader.boolean("frozen", false));
  const option = read(() => reader.optionalString("option"));
  if (option !== undefined && !/^\S(.*\S)?$/.test(option)) problem("option", `"${option}" is not a UCI option name`);
  const optionScale = read(() => reader.optionalNumber("option_scale", { above: 0 }));
  if (optionScale !== undefined && option === undefined && !reader.has("option"))
    problem("option_scale", 'needs option = "NAME" (the option it scales)');
  const target =
    constant === undefined || index === undefined || type === undefined
      ? undefined
      : { param: name, constant, index, type, rustType, min, max };
  if (
    problems.length > 0 ||
    target === undefined ||
    value === undefined ||
    min === undefined ||
    max === undefined ||
    step === undefined ||
    frozen === undefined
  )
    return { target, problems };
  return {
    param: {
      name,
      value,
      min,
      max,
      step,
      type: target.type,
      constant: target.constant,
      index: target.index,
      rustType,
      frozen,
      option,
      optionScale,
    },
    target,
    problems,
  };
}

/** θ of a parameter list, by name (a params.toml's, or the math's SpsaParam). */
export function valuesOf(params: readonly Pick<SpsaParam, "name" | "value">[]): Values {
  return Object.fromEntries(params.map((p) => [p.name, p.value]));
}
