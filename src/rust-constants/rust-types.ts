/**
 * Rust's number types as far as tuning needs them: the range of each primitive, and the
 * primitive behind a declared type (`Score`, `(Score, Score)`, `[ScorePair; 8]`), found by
 * following the crate's `type` aliases.
 */

/** A declared type: references are dropped (`&[u8]` is read as `[u8]`), paths keep their last segment. */
export type TypeNode =
  | { kind: "name"; name: string }
  | { kind: "tuple"; items: TypeNode[] }
  /** `[T; N]` or a slice `[T]`. */
  | { kind: "array"; element: TypeNode }
  /** Generics, function pointers, trait objects …: nothing this tool can resolve. */
  | { kind: "unknown"; text: string };

/** `type NAME = TYPE;` somewhere in the crate. */
export interface TypeAlias {
  name: string;
  type: TypeNode;
  /** `file:line`, for messages. */
  where: string;
  /** At the top level of its file (not inside a `mod { }` block). */
  topLevel: boolean;
}

export const RUST_NUMBER_TYPES = [
  "i8",
  "i16",
  "i32",
  "i64",
  "i128",
  "isize",
  "u8",
  "u16",
  "u32",
  "u64",
  "u128",
  "usize",
  "f32",
  "f64",
] as const;

export type RustNumberType = (typeof RUST_NUMBER_TYPES)[number];

/** The largest finite f32, as a double. */
export const F32_MAX = 3.4028234663852886e38;

export function isRustNumberType(name: string): name is RustNumberType {
  return (RUST_NUMBER_TYPES as readonly string[]).includes(name);
}

export function isFloatType(name: RustNumberType): boolean {
  return name === "f32" || name === "f64";
}

/** [lowest, highest] of a number type as doubles (u64's 2^64 − 1 rounds up to 2^64). */
export function typeRange(name: RustNumberType): [number, number] {
  if (name === "f32") return [-F32_MAX, F32_MAX];
  if (name === "f64") return [-Number.MAX_VALUE, Number.MAX_VALUE];
  const bitsText = name.slice(1);
  // isize and usize: the 64-bit targets engines are built for.
  const bits = bitsText === "size" ? 64 : Number(bitsText);
  return name.startsWith("i") ? [-(2 ** (bits - 1)), 2 ** (bits - 1) - 1] : [0, 2 ** bits - 1];
}

/** `0 to 255`, `±3.4028234663852886e38`: a type's range for messages. */
export function describeRange(name: RustNumberType): string {
  const [low, high] = typeRange(name);
  if (isFloatType(name)) return `±${high}`;
  // Above 2^53 a double prints rounded digits; powers of two are exact.
  const bits = name.endsWith("size") ? 64 : Number(name.slice(1));
  if (bits < 64) return `${low} to ${high}`;
  return name.startsWith("i") ? `-2^${bits - 1} to 2^${bits - 1} - 1` : `0 to 2^${bits} - 1`;
}

/** Aliases in scope: the constants file's own top-level ones win, as they do for rustc. */
export interface AliasScope {
  local: readonly TypeAlias[];
  crate: readonly TypeAlias[];
}

export type Resolution = { primitive: RustNumberType } | { problem: string };

/**
 * The primitive type of the element at `index` inside a value declared as `type`,
 * following aliases (to any depth, per tuple or array element).
 */
export function resolvePrimitive(type: TypeNode, index: readonly number[], scope: AliasScope): Resolution {
  return resolve(type, index, scope, []);
}

function resolve(type: TypeNode, index: readonly number[], scope: AliasScope, seen: readonly string[]): Resolution {
  const [first, ...rest] = index;
  switch (type.kind) {
    case "unknown":
      return { problem: `its declared type \`${type.text}\` is not a number type this tool can read` };
    case "tuple": {
      const item = first === undefined ? undefined : type.items[first];
      if (item === undefined)
        return {
          problem:
            `its declared type is a tuple of ${type.items.length} elements, which has no ` + `element [${first ?? ""}]`,
        };
      return resolve(item, rest, scope, seen);
    }
    case "array":
      if (first === undefined) return { problem: "its declared type is an array, not a number" };
      return resolve(type.element, rest, scope, seen);
    case "name":
      if (isRustNumberType(type.name)) {
        return first === undefined
          ? { primitive: type.name }
          : { problem: `its declared type ${type.name} has no element [${first}]` };
      }
      return resolveAlias(type.name, index, scope, seen);
  }
}

function resolveAlias(name: string, index: readonly number[], scope: AliasScope, seen: readonly string[]): Resolution {
  if (seen.includes(name)) return { problem: `type alias ${[...seen, name].join(" -> ")} is a cycle` };
  const local = scope.local.filter((a) => a.name === name);
  const candidates = local.length > 0 ? local : scope.crate.filter((a) => a.name === name);
  if (candidates.length === 0)
    return {
      problem: `its declared type \`${name}\` is not a number type and no \`type ${name} = …;\` was found in the crate`,
    };
  const resolved: { alias: TypeAlias; primitive: RustNumberType }[] = [];
  for (const alias of candidates) {
    const result = resolve(alias.type, index, scope, [...seen, name]);
    if ("problem" in result) return result;
    resolved.push({ alias, primitive: result.primitive });
  }
  const primitive = resolved[0]?.primitive;
  if (primitive !== undefined && resolved.every((r) => r.primitive === primitive)) return { primitive };
  // Several modules define the alias differently: which one the constants file sees depends on its `use`s.
  const definitions = resolved.map((r) => `${r.primitive} at ${r.alias.where}`);
  return { problem: `type \`${name}\` is defined differently in the crate (${definitions.join(", ")})` };
}
