import { InputError } from "../core/errors.js";
import { isFloatType, RUST_NUMBER_TYPES, type RustNumberType } from "../rust-constants/rust-types.js";
import { isTable, TableReader } from "../core/table-reader.js";
import { describeKey, readTomlFile, type TomlDocument } from "../core/toml-file.js";
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

/** Loads and validates params.toml: one table per parameter, the table name is the parameter name. */
export function loadParams(file: string): Param[] {
  return parseParams(readTomlFile(file));
}

export function parseParams(doc: TomlDocument): Param[] {
  const params: Param[] = [];
  const targets = new Map<string, string>();
  for (const [name, table] of Object.entries(doc.data)) {
    if (!isTable(table)) {
      throw new InputError(describeKey(doc, undefined, name), "expected a table [NAME] with value, min, max and step");
    }
    const param = readParam(new TableReader(doc, name, table, PARAM_KEYS), name);
    const target = `${param.constant}${param.index.map((i) => `[${i}]`).join("")}`;
    const previous = targets.get(target);
    if (previous !== undefined) {
      throw new InputError(describeKey(doc, name), `targets ${target}, which parameter ${previous} already targets`);
    }
    targets.set(target, name);
    params.push(param);
  }
  if (params.length === 0) throw new InputError(doc.file, "defines no parameters");
  return params;
}

function readParam(reader: TableReader, name: string): Param {
  const type = reader.oneOf("type", ["int", "float"] as const, "int");
  const rustType = reader.optionalOneOf("rust_type", RUST_NUMBER_TYPES);
  if (rustType !== undefined && isFloatType(rustType) !== (type === "float")) {
    reader.fail(
      "rust_type",
      `"${rustType}" is ${isFloatType(rustType) ? "a float" : "an integer"} type but the parameter's type is "${type}"`,
    );
  }
  const min = reader.number("min");
  const max = reader.number("max");
  if (min > max) reader.fail("min", `min (${min}) is greater than max (${max})`);
  // Plus and minus of an int parameter are integers in ceil(min)..floor(max).
  if (type === "int" && Math.ceil(min) > Math.floor(max))
    reader.fail("min", `[min, max] = [${min}, ${max}] holds no integer`);
  const value = reader.number("value");
  if (value < min || value > max) reader.fail("value", `${value} is outside [${min}, ${max}]`);
  const step = reader.number("step", { above: 0 });
  const constant = reader.string("constant", name);
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(constant)) reader.fail("constant", `"${constant}" is not a Rust identifier`);
  const option = reader.optionalString("option");
  if (option !== undefined && !/^\S(.*\S)?$/.test(option))
    reader.fail("option", `"${option}" is not a UCI option name`);
  const optionScale = reader.optionalNumber("option_scale", { above: 0 });
  if (optionScale !== undefined && option === undefined)
    reader.fail("option_scale", 'needs option = "NAME" (the option it scales)');
  return {
    name,
    value,
    min,
    max,
    step,
    type,
    constant,
    index: reader.indexPath("index"),
    rustType,
    frozen: reader.boolean("frozen", false),
    option,
    optionScale,
  };
}

/** θ of a parameter list, by name (a params.toml's, or the math's SpsaParam). */
export function valuesOf(params: readonly Pick<SpsaParam, "name" | "value">[]): Values {
  return Object.fromEntries(params.map((p) => [p.name, p.value]));
}
