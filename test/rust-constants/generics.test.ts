import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseRustItems } from "../../src/rust-constants/parser.js";
import { locateTargets, rewriteConstants, type ConstantTarget } from "../../src/rust-constants/rewriter.js";
import { compileRustLibrary, hasRustc } from "../support/rustc.js";

const FILE = "generics.rs";
const SOURCE = readFileSync(join(import.meta.dirname, "..", "fixtures", "constants", FILE), "utf8");
/** All the file's aliases, as the crate scan would find them (the `mod types` one included). */
const CRATE_ALIASES = parseRustItems(SOURCE, FILE).aliases;

const target = (constant: string, index: number[] = [], type: "int" | "float" = "int"): ConstantTarget => ({
  param: `P_${constant}`,
  constant,
  index,
  type,
});
const lineOf = (text: string): number => SOURCE.split("\n").findIndex((line) => line.includes(text)) + 1;

describe("const where it is not an item", () => {
  it("finds exactly the file-level constants and statics", () => {
    expect(parseRustItems(SOURCE, FILE).constants.map((c) => c.name)).toEqual([
      "AFTER",
      "AFTER_STRUCT",
      "AFTER_WHERE",
      "AFTER_IMPL",
      "AFTER_TRAIT",
      "SCALED",
      "BLOCK",
      "CALLBACK",
      "FLOAT_RATIO",
      "FN_TYPED",
      "attributed",
      "ENABLED",
      "LETTER",
      "AFTER_CONST_FN",
      "USES_NESTED",
    ]);
  });

  it("finds the aliases at the top level and in `mod` blocks", () => {
    expect(CRATE_ALIASES.map((a) => [a.name, a.where, a.topLevel])).toEqual([
      ["Score", `${FILE}:${lineOf("type Score")}`, true],
      ["ScorePair", `${FILE}:${lineOf("type ScorePair")}`, true],
      ["Depth", `${FILE}:${lineOf("type Depth")}`, true],
      ["Ratio", `${FILE}:${lineOf("type Ratio")}`, true],
      ["Table", `${FILE}:${lineOf("type Table")}`, true],
      ["Nested", `${FILE}:${lineOf("type Nested")}`, false],
    ]);
  });

  it.each(["N", "M", "K", "ASSOCIATED", "TRAIT_CONST", "IN_CLOSURE"])(
    "refuses %s (a generic parameter or a constant inside a block) as not found",
    (name) => {
      expect(() => locateTargets(SOURCE, [target(name)], FILE)).toThrow(
        `${FILE}: parameter P_${name} (constant ${name}): constant ${name} not found`,
      );
    },
  );

  it.each([
    ["AFTER", [], "int", "42", "i32", "pub const AFTER:"],
    ["AFTER_STRUCT", [], "int", "-7", "i32", "AFTER_STRUCT"],
    ["AFTER_WHERE", [], "int", "9", "u8", "AFTER_WHERE"],
    ["AFTER_IMPL", [1], "int", "-20", "i32", "AFTER_IMPL"],
    ["AFTER_TRAIT", [1, 0], "int", "3", "i32", "AFTER_TRAIT"],
    ["FLOAT_RATIO", [], "float", "0.5", "f32", "FLOAT_RATIO"],
    ["attributed", [], "int", "300", "u16", "pub const attributed"],
    ["AFTER_CONST_FN", [], "int", "4", "u8", "AFTER_CONST_FN"],
    ["USES_NESTED", [], "int", "12", "i16", "USES_NESTED"],
  ] as const)(
    "locates %s%j: `%s`, of type %s through the aliases",
    (constant, index, type, text, primitive, marker) => {
      const [loc] = locateTargets(SOURCE, [target(constant, [...index], type)], FILE, CRATE_ALIASES);
      expect(loc && SOURCE.slice(loc.start, loc.end)).toBe(text);
      expect(loc?.primitive).toBe(primitive);
      expect(loc?.line).toBe(lineOf(marker));
    },
  );

  it.each([
    ["ENABLED", "ENABLED is a bool (`false`), not a number; only number literals can be tuned"],
    ["LETTER", "LETTER is a char (`'x'`), not a number; only number literals can be tuned"],
    [
      "SCALED",
      "SCALED is not a literal: it is built by a function call (`scale::<3>(5)`); only plain number literals can be tuned",
    ],
    [
      "BLOCK",
      "BLOCK is not a literal: it is an expression (`const { 6 * 7 }`); only plain number literals can be tuned",
    ],
  ])("refuses %s with its reason", (constant, reason) => {
    expect(() => locateTargets(SOURCE, [target(constant)], FILE)).toThrow(
      `${FILE}:${lineOf(`const ${constant}:`)}: parameter P_${constant} (constant ${constant}): ${reason}`,
    );
  });

  it("reports an alias defined only in another module when the crate's aliases are not given", () => {
    expect(() => locateTargets(SOURCE, [target("USES_NESTED")], FILE)).toThrow(
      `${FILE}:${lineOf("USES_NESTED")}: parameter P_USES_NESTED (constant USES_NESTED): cannot tell the Rust type of USES_NESTED: ` +
        'its declared type `Nested` is not a number type and no `type Nested = …;` was found in the crate; state it in params.toml, e.g. rust_type = "i32"',
    );
    const [loc] = locateTargets(SOURCE, [{ ...target("USES_NESTED"), rustType: "i16" }], FILE);
    expect(loc?.primitive).toBe("i16");
  });

  it("refuses a rust_type that contradicts the declared type", () => {
    expect(() => locateTargets(SOURCE, [{ ...target("AFTER_STRUCT"), rustType: "i64" }], FILE)).toThrow(
      `${FILE}:${lineOf("AFTER_STRUCT")}: parameter P_AFTER_STRUCT (constant AFTER_STRUCT): rust_type is "i64" but AFTER_STRUCT is i32 by its declared type`,
    );
  });

  describe("rewriting AFTER", () => {
    const rewritten = rewriteConstants(
      SOURCE,
      [
        { target: target("AFTER"), value: -41 },
        { target: target("AFTER_TRAIT", [1, 0]), value: 8 },
      ],
      FILE,
    );

    it("changes AFTER and AFTER_TRAIT[1][0] and every other byte is kept", () => {
      const expected = SOURCE.replace("pub const AFTER: i32 = 42;", "pub const AFTER: i32 = -41;").replace(
        "[(1, 2), (3, 4)]",
        "[(1, 2), (8, 4)]",
      );
      expect(expected).not.toBe(SOURCE);
      expect(rewritten).toBe(expected);
    });

    it.skipIf(!hasRustc)("still compiles", () => {
      compileRustLibrary(rewritten);
    });
  });
});
