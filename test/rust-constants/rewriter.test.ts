import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { locateTargets, rewriteConstants, type ConstantTarget } from "../../src/rust-constants/rewriter.js";
import { loadParams } from "../../src/params/params.js";
import { InputError, InputProblems } from "../../src/core/errors.js";
import { compileRustLibrary, hasRustc } from "../support/rustc.js";

const ROOT = join(import.meta.dirname, "..", "..");
const FILE = "hard.rs";
const SOURCE = readFileSync(join(ROOT, "test", "fixtures", "constants", FILE), "utf8");

const target = (constant: string, index: number[] = [], type: "int" | "float" = "int"): ConstantTarget => ({
  param: `P_${constant}`,
  constant,
  index,
  type,
});
/** 1-based line of the first line containing `text`. */
const lineOf = (text: string): number => SOURCE.split("\n").findIndex((line) => line.includes(text)) + 1;

function errorOf(fn: () => unknown): InputError {
  try {
    fn();
  } catch (error) {
    if (error instanceof InputError) return error;
    throw error;
  }
  throw new Error("expected an InputError");
}

describe("locateTargets on the hand-written file", () => {
  it.each([
    ["LMR_MIN_DEPTH", [], "int", "3", "pub const LMR_MIN_DEPTH"],
    ["PRIVATE_MARGIN", [], "int", "-45", "PRIVATE_MARGIN"],
    ["CRATE_LIMIT", [], "int", "1_000", "CRATE_LIMIT"],
    ["STATIC_BONUS", [], "int", "17", "STATIC_BONUS"],
    ["MUTABLE_HINT", [], "int", "9", "MUTABLE_HINT"],
    ["TYPED", [], "int", "12i32", "pub const TYPED"],
    ["UNDERSCORE_SUFFIX", [], "int", "-3_i16", "UNDERSCORE_SUFFIX"],
    ["HEX_MASK", [], "int", "0xff", "HEX_MASK"],
    ["LMR_BASE", [], "float", "0.75", "LMR_BASE"],
    ["LMR_DIVISOR", [], "float", "2.5f64", "LMR_DIVISOR"],
    ["BIG_FLOAT", [], "float", "1e3", "BIG_FLOAT"],
    ["WHOLE_FLOAT", [], "float", "3f32", "WHOLE_FLOAT"],
    ["PAWN_VALUE", [1], "int", "-94", "PAWN_VALUE"],
    ["MARGINS", [0], "int", "0", "0,   // depth 0"],
    ["MARGINS", [2], "int", "180", "/* depth 1 */ 180"],
    ["MARGINS", [4], "int", "-5", "-5, 400"],
    ["MARGINS", [7], "int", "700", "700, //"],
    ["PASSED", [1, 1], "int", "-12", "/* eg */ -12"],
    ["PASSED", [2, 0], "int", "20", "/* eg */ -12"],
    ["NESTED", [1, 1], "int", "-5", "NESTED"],
    ["REFS", [2], "int", "9", "REFS"],
    ["MIXED", [0], "int", "1", "MIXED"],
  ] as const)("%s%j is the literal %s", (constant, index, type, text, lineMarker) => {
    const [loc] = locateTargets(SOURCE, [target(constant, [...index], type)], FILE);
    expect(loc && SOURCE.slice(loc.start, loc.end)).toBe(text);
    expect(loc?.line).toBe(lineOf(lineMarker));
  });
});

describe("rewriteConstants", () => {
  const edits: [ConstantTarget, number, string, string][] = [
    [target("CRATE_LIMIT"), 1200, "i64 = 1_000;", "i64 = 1200;"],
    [target("PRIVATE_MARGIN"), -44, "= -45; // trailing", "= -44; // trailing"],
    [target("TYPED"), -13, "= 12i32;", "= -13i32;"],
    [target("UNDERSCORE_SUFFIX"), 5, "= -3_i16;", "= 5_i16;"],
    [target("HEX_MASK"), 127, "= 0xff;", "= 127;"],
    [target("LMR_BASE", [], "float"), 0.8, "= 0.75;", "= 0.8;"],
    [target("LMR_DIVISOR", [], "float"), 3, "= 2.5f64;", "= 3.0f64;"],
    [target("BIG_FLOAT", [], "float"), 1500, "= 1e3;", "= 1500.0;"],
    [target("WHOLE_FLOAT", [], "float"), 2.25, "= 3f32;", "= 2.25f32;"],
    [target("PAWN_VALUE", [1]), 7, "(82, -94)", "(82, 7)"],
    [target("MARGINS", [2]), 181, "/* depth 1 */ 180,", "/* depth 1 */ 181,"],
    [target("MARGINS", [4]), 5, "    -5, 400", "    5, 400"],
    [target("PASSED", [1, 1]), -11, "(5, /* eg */ -12)", "(5, /* eg */ -11)"],
    [target("NESTED", [1, 1]), 0, "[-4, -5, 6]", "[-4, 0, 6]"],
    [target("REFS", [0]), 255, "&[7, 8, 9]", "&[255, 8, 9]"],
  ];
  const rewritten = rewriteConstants(
    SOURCE,
    edits.map(([t, value]) => ({ target: t, value })),
    FILE,
  );

  it("changes only the targeted literals, byte for byte", () => {
    let expected = SOURCE;
    for (const [, , before, after] of edits) {
      expect(expected.split(before)).toHaveLength(2); // each snippet is unique, so the replace is exact
      expected = expected.replace(before, after);
    }
    expect(rewritten).toBe(expected);
  });

  it("finds the new values where the old ones were", () => {
    const again = locateTargets(
      rewritten,
      edits.map(([t]) => t),
      FILE,
    );
    expect(again.map((loc) => rewritten.slice(loc.start, loc.end))).toEqual([
      "1200",
      "-44",
      "-13i32",
      "5_i16",
      "127",
      "0.8",
      "3.0f64",
      "1500.0",
      "2.25f32",
      "7",
      "181",
      "5",
      "-11",
      "0",
      "255",
    ]);
  });

  it("returns the source unchanged with no assignments", () => {
    expect(rewriteConstants(SOURCE, [], FILE)).toBe(SOURCE);
  });

  it.skipIf(!hasRustc)("produces a file rustc still compiles", () => {
    compileRustLibrary(rewritten);
  });

  it("rejects a value the literal cannot hold", () => {
    const cases: [ConstantTarget, number, RegExp][] = [
      [target("TYPED"), 3.5, /P_TYPED \(constant TYPED\): 3\.5 is not an integer/],
      [target("LMR_MIN_DEPTH"), -1, /-1 does not fit in u8/],
      [target("LMR_MIN_DEPTH"), 256, /256 does not fit in u8/],
      [target("REFS", [1]), 300, /300 does not fit in u8/],
      [target("TYPED"), 2 ** 31, /does not fit in i32/],
      [target("CRATE_LIMIT"), 2 ** 53, /9007199254740992 is outside the range a float64 holds exactly/],
      [target("LMR_BASE", [], "float"), Number.NaN, /cannot write NaN/],
    ];
    for (const [t, value, message] of cases) {
      const error = errorOf(() => rewriteConstants(SOURCE, [{ target: t, value }], FILE));
      expect(error.message).toMatch(message);
      expect(error.where).toBe(`${FILE}:${lineOf(`const ${t.constant}`) || lineOf(t.constant)}`);
    }
  });

  it("accepts the extremes of the type (u8 0 and 255, i32 through the Score alias)", () => {
    expect(rewriteConstants(SOURCE, [{ target: target("LMR_MIN_DEPTH"), value: 255 }], FILE)).toContain(
      "LMR_MIN_DEPTH: u8 = 255;",
    );
    expect(rewriteConstants(SOURCE, [{ target: target("LMR_MIN_DEPTH"), value: 0 }], FILE)).toContain(
      "LMR_MIN_DEPTH: u8 = 0;",
    );
    expect(rewriteConstants(SOURCE, [{ target: target("STATIC_BONUS"), value: -(2 ** 31) }], FILE)).toContain(
      "STATIC_BONUS: Score = -2147483648;",
    );
    expect(() => rewriteConstants(SOURCE, [{ target: target("STATIC_BONUS"), value: 2 ** 31 }], FILE)).toThrow(
      /2147483648 does not fit in i32/,
    );
  });

  it("rejects two assignments to the same literal", () => {
    const t = target("TYPED");
    expect(() =>
      rewriteConstants(
        SOURCE,
        [
          { target: t, value: 1 },
          { target: { ...t, param: "OTHER" }, value: 2 },
        ],
        FILE,
      ),
    ).toThrow(/another parameter already targets/);
  });
});

describe("locateTargets errors", () => {
  it("names a missing constant and suggests the nearest name", () => {
    const error = errorOf(() => locateTargets(SOURCE, [target("LMR_MIN_DEPHT")], FILE));
    expect(error.where).toBe(FILE);
    expect(error.message).toBe(
      "hard.rs: parameter P_LMR_MIN_DEPHT (constant LMR_MIN_DEPHT): constant LMR_MIN_DEPHT not found (did you mean `LMR_MIN_DEPTH`?)",
    );
    expect(error.exitCode).toBe(2);
  });

  it.each(["FAKE", "ALSO_FAKE", "IN_STRING", "RAW_FAKE", "INNER", "INNER_ONLY", "scaled"])(
    "does not take %s (in a comment, a string or a block) for a constant",
    (name) => {
      expect(() => locateTargets(SOURCE, [target(name)], FILE)).toThrow(/not found/);
    },
  );

  it("refuses a constant defined twice, naming both lines", () => {
    const source = "pub const X: i32 = 1;\n// other\npub const X: i32 = 2;\n";
    const error = errorOf(() => locateTargets(source, [target("X")], "twice.rs"));
    expect(error.where).toBe("twice.rs:1");
    expect(error.message).toMatch(/constant X is defined 2 times \(lines 1, 3\)/);
  });

  it.each([
    ["FROM_FN", [], /FROM_FN is not a literal: it is built by a function call \(`scaled\(25\)`\)/],
    ["DERIVED", [], /DERIVED is not a literal: it is derived from another constant \(`TYPED`\)/],
    ["DERIVED_PATH", [], /derived from another constant \(`self::TYPED`\)/],
    ["EXPRESSION", [], /an expression \(`10 \+ 5`\)/],
    ["CAST", [], /a cast \(`5 as Score`\)/],
    [
      "LABEL",
      [],
      /LABEL is a string \(`"pub const IN_STRING: i32 = 5; \/\/ not a comment"`\), not a number; only number literals can be tuned/,
    ],
    ["LETTER", [], /LETTER is a char \(`'"'`\), not a number/],
    ["MIXED", [1], /MIXED\[1\] is not a literal: it is derived from another constant \(`TYPED`\)/],
    ["MIXED", [2], /MIXED\[2\] is not a literal: it is built by a function call \(`scaled\(2\)`\)/],
    ["REPEATED", [1], /REPEATED is not a literal array or tuple: it is a repeat expression \(`\[0; 4\]`\)/],
  ] as const)("refuses the non-literal %s%j", (constant, index, message) => {
    const error = errorOf(() => locateTargets(SOURCE, [target(constant, [...index])], FILE));
    expect(error.message).toMatch(message);
    expect(error.where).toBe(`${FILE}:${lineOf(`const ${constant}:`)}`);
  });

  it.each([
    ["MARGINS", [8], /index 8 is out of range: MARGINS is an array of 8 elements/],
    ["PAWN_VALUE", [2], /index 2 is out of range: PAWN_VALUE is a tuple of 2 elements/],
    ["PASSED", [1, 2], /index 2 is out of range: PASSED\[1\] is a tuple of 2 elements/],
    ["LMR_MIN_DEPTH", [0], /LMR_MIN_DEPTH is a single number, so it has no element \[0\]/],
    ["PAWN_VALUE", [0, 0], /PAWN_VALUE\[0\] is a single number/],
    ["MARGINS", [], /MARGINS is an array of 8 elements; set `index` to pick one/],
    ["PASSED", [3], /PASSED\[3\] is a tuple of 2 elements; set `index`/],
  ] as const)("refuses the index path %s%j", (constant, index, message) => {
    expect(() => locateTargets(SOURCE, [target(constant, [...index])], FILE)).toThrow(message);
  });

  it.each([
    ["LMR_BASE", "int", /LMR_BASE is a float literal \(`0\.75`\) but the parameter's type is "int"/],
    ["WHOLE_FLOAT", "int", /a float literal \(`3f32`\)/],
    ["TYPED", "float", /TYPED is an int literal \(`12i32`\) but the parameter's type is "float"/],
    ["PRIVATE_MARGIN", "float", /an int literal \(`-45`\)/],
  ] as const)("refuses a type mismatch on %s as %s", (constant, type, message) => {
    const error = errorOf(() => locateTargets(SOURCE, [target(constant, [], type)], FILE));
    expect(error.message).toMatch(message);
    expect(error.where).toBe(`${FILE}:${lineOf(`const ${constant}:`)}`);
  });

  it("reports a single bad target as it is, even when others are fine", () => {
    const error = errorOf(() => locateTargets(SOURCE, [target("TYPED"), target("NOPE")], FILE));
    expect(error).not.toBeInstanceOf(InputProblems);
    expect(error.message).toBe("hard.rs: parameter P_NOPE (constant NOPE): constant NOPE not found");
  });

  it("reports every bad target at once, one line each", () => {
    const targets = [target("NOPE"), target("TYPED"), target("DERIVED"), target("LMR_BASE"), target("MARGINS", [9])];
    const error = errorOf(() => locateTargets(SOURCE, targets, FILE));
    expect(error).toBeInstanceOf(InputProblems);
    expect(error.exitCode).toBe(2);
    expect(error.message.split("\n")).toEqual([
      "hard.rs: parameter P_NOPE (constant NOPE): constant NOPE not found",
      `hard.rs:${lineOf("const DERIVED:")}: parameter P_DERIVED (constant DERIVED): DERIVED is not a literal: it is derived from another constant (\`TYPED\`); only plain number literals can be tuned`,
      `hard.rs:${lineOf("const LMR_BASE:")}: parameter P_LMR_BASE (constant LMR_BASE): LMR_BASE is a float literal (\`0.75\`) but the parameter's type is "int"`,
      `hard.rs:${lineOf("const MARGINS:")}: parameter P_MARGINS (constant MARGINS[9]): index 9 is out of range: MARGINS is an array of 8 elements`,
    ]);
  });

  it("suggests a constant that extends the name by whole words", () => {
    const source = "pub const KNIGHT_VALUE_PAIR: (i32, i32) = (320, 300);\npub const KNIGHT_MOBILITY: i32 = 4;\n";
    expect(() => locateTargets(source, [target("KNIGHT_VALUE")], "eval.rs")).toThrow(
      "eval.rs: parameter P_KNIGHT_VALUE (constant KNIGHT_VALUE): constant KNIGHT_VALUE not found (did you mean `KNIGHT_VALUE_PAIR`?)",
    );
  });

  it.each([
    ["pub const X: i32 = 1;\n/* never closed", "bad.rs:2", /unterminated block comment/],
    ["pub const X: [i32; 2] = [1, 2);\n", "bad.rs:1", /unbalanced `\)`/],
    ["pub const X: [i32; 2] = [1, 2\n", "bad.rs:1", /unclosed `\[`/],
    ['pub const S: &str = "open\n', "bad.rs:1", /unterminated string/],
    ["pub const X: i32 = 1\n", "bad.rs:1", /cannot read the definition of X/],
  ])("refuses a file it cannot read: %j", (source, where, message) => {
    const error = errorOf(() => locateTargets(source, [target("X")], "bad.rs"));
    expect(error.where).toBe(where);
    expect(error.message).toMatch(message);
  });
});

describe("the sample engine", () => {
  const constantsFile = join(ROOT, "engines", "minnow", "src", "engine_constants.rs");
  const paramsFile = join(ROOT, "params.toml");

  it.skipIf(!existsSync(constantsFile) || !existsSync(paramsFile))(
    "locates every target of params.toml and rewrites them all",
    () => {
      const source = readFileSync(constantsFile, "utf8");
      const params = loadParams(paramsFile);
      const targets = params.map((p) => ({ param: p.name, constant: p.constant, index: p.index, type: p.type }));
      const located = locateTargets(source, targets, constantsFile);
      expect(located).toHaveLength(params.length);
      const values = params.map((p) => (p.type === "int" ? Math.round(p.value) + 1 : p.value + 0.25));
      const rewritten = rewriteConstants(
        source,
        targets.map((t, i) => ({ target: t, value: values[i] ?? 0 })),
        constantsFile,
      );
      const again = locateTargets(rewritten, targets, constantsFile);
      again.forEach((loc, i) =>
        expect(Number(rewritten.slice(loc.start, loc.end).replace(/[_a-z]+\d*$/, ""))).toBeCloseTo(values[i] ?? 0, 9),
      );
    },
  );
});
