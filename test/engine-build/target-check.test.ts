import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readCrateAliases } from "../../src/rust-constants/crate-aliases.js";
import { boundsProblem, checkTargets, type CheckedParam } from "../../src/engine-build/target-check.js";
import { InputError, InputProblems } from "../../src/core/errors.js";

describe("boundsProblem", () => {
  const int = (min: number, max: number) => ({ min, max, type: "int" as const });
  const float = (min: number, max: number) => ({ min, max, type: "float" as const });

  it.each([
    ["u8 with max 300", int(0, 300), "u8", "max = 300 is outside u8 (0 to 255)"],
    ["u8 with min -5", int(-5, 10), "u8", "min = -5 is outside u8 (0 to 255)"],
    ["u8 with both ends out", int(-5, 300), "u8", "min = -5 and max = 300 are outside u8 (0 to 255)"],
    ["i8 below -128 after rounding", int(-129.5, 0), "i8", "min = -129.5 is outside i8 (-128 to 127)"],
    ["i32 above 2^31 - 1", int(0, 2 ** 31), "i32", "max = 2147483648 is outside i32 (-2147483648 to 2147483647)"],
    [
      "i64 from 2^53",
      int(0, 2 ** 53),
      "i64",
      "[min, max] = [0, 9007199254740992] reaches integers outside the range a float64 holds exactly (±9007199254740991)",
    ],
    ["f32 overflow", float(0, 1e39), "f32", "max = 1e+39 is outside f32 (±3.4028234663852886e+38)"],
    ["f32 negative overflow", float(-1e39, 0), "f32", "min = -1e+39 is outside f32 (±3.4028234663852886e+38)"],
    ["an infinite bound", float(0, Infinity), "f64", "[min, max] = [0, Infinity] is not finite"],
  ] as const)("refuses %s", (_label, bounds, type, problem) => {
    expect(boundsProblem(bounds, type)).toBe(problem);
  });

  it.each([
    ["u8 0 to 255", int(0, 255), "u8"],
    ["u8 whose ends round inside: ceil(-0.5) = 0, floor(255.9) = 255", int(-0.5, 255.9), "u8"],
    ["i64 up to 2^53 - 1", int(-(2 ** 53 - 1), 2 ** 53 - 1), "i64"],
    ["f32 at its largest", float(-3.4028234663852886e38, 3.4028234663852886e38), "f32"],
    ["f64 at 1e300", float(-1e300, 1e300), "f64"],
  ] as const)("accepts %s", (_label, bounds, type) => {
    expect(boundsProblem(bounds, type)).toBeUndefined();
  });
});

describe("checkTargets", () => {
  const SOURCE = [
    "pub type Score = i32;",
    "pub const DEPTH: u8 = 3;",
    "pub const PAIR: (Score, Score) = (10, 20);",
    "pub const RATIO: f32 = 0.5;",
    "pub const USE_NMP: bool = false;",
    "pub const KNIGHT_VALUE_PAIR: (Score, Score) = (320, 300);",
    "pub const FOREIGN: Eval = 7;",
    "",
  ].join("\n");
  const param = (name: string, min: number, max: number, extra: Partial<CheckedParam> = {}): CheckedParam => ({
    param: name,
    constant: name,
    index: [],
    type: "int",
    min,
    max,
    ...extra,
  });

  it("passes good parameters", () => {
    expect(() =>
      checkTargets(
        SOURCE,
        [
          param("DEPTH", 0, 255),
          param("PAIR", -100, 100, { index: [1] }),
          param("RATIO", 0, 1e38, { type: "float" }),
          param("FOREIGN", 0, 9, { rustType: "i64" }),
        ],
        "c.rs",
        [],
      ),
    ).not.toThrow();
  });

  it("reports every bad parameter in one error, one line each, with file, line, parameter and constant", () => {
    const params = [
      param("DEPTH", -5, 300),
      param("PAIR", 0, 2 ** 31, { index: [0] }),
      param("RATIO", 0, 1e39, { type: "float" }),
      param("USE_NMP", 0, 1),
      param("KNIGHT_VALUE", 0, 1000),
      param("FOREIGN", 0, 9),
      param("DEPTH_OK", 1, 8, { constant: "DEPTH" }),
    ];
    let error: unknown;
    try {
      checkTargets(SOURCE, params, "c.rs", []);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(InputProblems);
    expect((error as InputError).exitCode).toBe(2);
    expect((error as InputError).message.split("\n")).toEqual([
      "c.rs:5: parameter USE_NMP (constant USE_NMP): USE_NMP is a bool (`false`), not a number; only number literals can be tuned",
      "c.rs: parameter KNIGHT_VALUE (constant KNIGHT_VALUE): constant KNIGHT_VALUE not found (did you mean `KNIGHT_VALUE_PAIR`?)",
      'c.rs:7: parameter FOREIGN (constant FOREIGN): cannot tell the Rust type of FOREIGN: its declared type `Eval` is not a number type and no `type Eval = …;` was found in the crate; state it in params.toml, e.g. rust_type = "i32"',
      "c.rs:2: parameter DEPTH (constant DEPTH): min = -5 and max = 300 are outside u8 (0 to 255)",
      "c.rs:3: parameter PAIR (constant PAIR[0]): max = 2147483648 is outside i32 (-2147483648 to 2147483647)",
      "c.rs:4: parameter RATIO (constant RATIO): max = 1e+39 is outside f32 (±3.4028234663852886e+38)",
    ]);
  });

  it("follows an alias found elsewhere in the crate", () => {
    const aliases = [
      { name: "Eval", type: { kind: "name" as const, name: "i16" }, where: "types.rs:1", topLevel: true },
    ];
    expect(() => checkTargets(SOURCE, [param("FOREIGN", 0, 40000)], "c.rs", aliases)).toThrow(
      "c.rs:7: parameter FOREIGN (constant FOREIGN): max = 40000 is outside i16 (-32768 to 32767)",
    );
  });
});

describe("readCrateAliases", () => {
  const dir = mkdtempSync(join(tmpdir(), "spsa-aliases-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const files: Record<string, string> = {
    "src/types.rs": "pub type Score = i32;\npub type ScorePair = (Score, Score);\n",
    "src/eval/mod.rs": "mod inner {\n    pub(crate) type Phase = u8;\n}\nimpl Foo { type Output = u64; }\n",
    "src/broken.rs": "pub type Lost = i8;\n/* never closed\n",
    "src/notes.txt": "pub type NotRust = i8;\n",
  };
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }

  it("finds module-level aliases in every .rs file below src/, skipping files it cannot read", () => {
    expect(readCrateAliases(join(dir, "src")).map((a) => [a.name, a.where.slice(dir.length + 1), a.topLevel])).toEqual([
      ["Phase", "src/eval/mod.rs:2", false],
      ["Score", "src/types.rs:1", true],
      ["ScorePair", "src/types.rs:2", true],
    ]);
  });

  it("finds nothing in a missing folder", () => {
    expect(readCrateAliases(join(dir, "nowhere"))).toEqual([]);
  });
});
