import { isFloatType, typeRange, type RustNumberType } from "./rust-types.js";

/**
 * Rust number literals: what a literal in the constants file is (int or float, its suffix)
 * and how a new value is written back so rustc reads the same type.
 */
export type LiteralType = "int" | "float";

export interface NumberLiteral {
  type: LiteralType;
  /** The suffix as written, with any underscores before it: "i32", "_i16", "f64" or "". */
  suffix: string;
  /** The primitive named by the suffix, e.g. "i32", or undefined without a suffix. */
  primitive: RustNumberType | undefined;
}

const INT_SUFFIX = /_*([iu](?:8|16|32|64|128|size))$/;
const ANY_SUFFIX = /_*([iu](?:8|16|32|64|128|size)|f32|f64)$/;

/** Classifies the text of a number token (no sign): `12i32`, `1_000`, `2.5f64`, `1e3`, `0xff`. */
export function readNumberLiteral(text: string): NumberLiteral {
  // In hex, `f32` would be digits, so only integer suffixes count there.
  const prefixed = /^0[xob]/.test(text);
  const match = (prefixed ? INT_SUFFIX : ANY_SUFFIX).exec(text);
  const suffix = match?.[0] ?? "";
  const primitive = match?.[1] as RustNumberType | undefined;
  const body = text.slice(0, text.length - suffix.length);
  const float = (primitive !== undefined && isFloatType(primitive)) || (!prefixed && /[.eE]/.test(body));
  return { type: float ? "float" : "int", suffix, primitive };
}

/**
 * The literal text for value, keeping the suffix: ints as integers (`-5`, `13i32`), floats
 * always with a point or an exponent (`1.0`, `0.75f64`, `1e-7`) so rustc does not read an
 * integer. Returns an error message instead when the value cannot be written.
 */
export function formatNumberLiteral(
  value: number,
  literal: NumberLiteral,
  primitive: RustNumberType,
): string | { error: string } {
  if (!Number.isFinite(value)) return { error: `cannot write ${value}` };
  if (literal.type === "int" && !Number.isInteger(value))
    return { error: `${value} is not an integer, and the literal is an integer` };
  if (literal.type === "int" && !Number.isSafeInteger(value)) {
    return {
      error:
        `${value} is outside the range a float64 holds exactly (±${Number.MAX_SAFE_INTEGER}), ` +
        `so it cannot be written as an exact integer`,
    };
  }
  const [low, high] = typeRange(primitive);
  if (value < low || value > high) return { error: `${value} does not fit in ${primitive}` };
  if (literal.type === "int") return `${value + 0}${literal.suffix}`;
  const text = String(value + 0);
  return `${/[.e]/.test(text) ? text : `${text}.0`}${literal.suffix}`;
}
