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
  primitive: string | undefined;
}

const INT_SUFFIX = /_*([iu](?:8|16|32|64|128|size))$/;
const ANY_SUFFIX = /_*([iu](?:8|16|32|64|128|size)|f32|f64)$/;

/** Classifies the text of a number token (no sign): `12i32`, `1_000`, `2.5f64`, `1e3`, `0xff`. */
export function readNumberLiteral(text: string): NumberLiteral {
  // In hex, `f32` would be digits, so only integer suffixes count there.
  const prefixed = /^0[xob]/.test(text);
  const match = (prefixed ? INT_SUFFIX : ANY_SUFFIX).exec(text);
  const suffix = match?.[0] ?? "";
  const primitive = match?.[1];
  const body = text.slice(0, text.length - suffix.length);
  const float = primitive === "f32" || primitive === "f64" || (!prefixed && /[.eE]/.test(body));
  return { type: float ? "float" : "int", suffix, primitive };
}

/** Range of an integer primitive (`i32`, `u8`, `usize` …), as far as a double can say it. */
function intRange(name: string): [number, number] | undefined {
  const match = /^([iu])(8|16|32|64|128|size)$/.exec(name);
  if (!match) return undefined;
  const bits = match[2] === "size" ? 64 : Number(match[2]);
  return match[1] === "i" ? [-(2 ** (bits - 1)), 2 ** (bits - 1) - 1] : [0, 2 ** bits - 1];
}

export function isPrimitiveNumberType(name: string): boolean {
  return intRange(name) !== undefined || name === "f32" || name === "f64";
}

/**
 * The literal text for value, keeping the suffix: ints as integers (`-5`, `13i32`), floats
 * always with a point or an exponent (`1.0`, `0.75f64`, `1e-7`) so rustc does not read an
 * integer. Returns an error message instead when the value cannot be written.
 */
export function formatNumberLiteral(value: number, literal: NumberLiteral, primitive: string | undefined): string | { error: string } {
  if (!Number.isFinite(value)) return { error: `cannot write ${value}` };
  if (literal.type === "int") {
    if (!Number.isSafeInteger(value)) return { error: `${value} is not an integer, and the literal is an integer` };
    const range = primitive === undefined ? undefined : intRange(primitive);
    if (range && (value < range[0] || value > range[1])) return { error: `${value} does not fit in ${primitive}` };
    return `${value + 0}${literal.suffix}`;
  }
  const text = String(value + 0);
  return `${/[.e]/.test(text) ? text : `${text}.0`}${literal.suffix}`;
}
