import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { InputProblems } from "../../src/core/errors.js";
import { parseToml } from "../../src/core/toml-file.js";
import { loadParams, readParams } from "../../src/params/params.js";

const dir = mkdtempSync(join(tmpdir(), "spsa-params-"));
let counter = 0;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(text: string): string {
  const file = join(dir, `params-${counter++}.toml`);
  writeFileSync(file, text);
  return file;
}

describe("params.toml", () => {
  it("reads scalar, element and float targets with their defaults", () => {
    const params = loadParams(
      write(`
[LMR_MIN_DEPTH]
value = 3
min = 1
max = 8
step = 1
frozen = false

[KNIGHT_VALUE_MG]
constant = "KNIGHT_VALUE"
index = 0
value = 320.5
min = 250
max = 400
step = 10

[MARGIN_2_1]
constant = "MARGINS"
index = [2, 1]
type = "float"
rust_type = "f32"
value = 0.75
min = 0
max = 2
step = 0.1
`),
    );
    expect(params).toEqual([
      {
        name: "LMR_MIN_DEPTH",
        constant: "LMR_MIN_DEPTH",
        index: [],
        type: "int",
        value: 3,
        min: 1,
        max: 8,
        step: 1,
        rustType: undefined,
        frozen: false,
      },
      {
        name: "KNIGHT_VALUE_MG",
        constant: "KNIGHT_VALUE",
        index: [0],
        type: "int",
        value: 320.5,
        min: 250,
        max: 400,
        step: 10,
        rustType: undefined,
        frozen: false,
      },
      {
        name: "MARGIN_2_1",
        constant: "MARGINS",
        index: [2, 1],
        type: "float",
        value: 0.75,
        min: 0,
        max: 2,
        step: 0.1,
        rustType: "f32",
        frozen: false,
      },
    ]);
  });

  it("loads the repository's params.toml", () => {
    const params = loadParams("params.toml");
    expect(params.length).toBeGreaterThanOrEqual(10);
    for (const p of params) expect(p.value).toBeGreaterThanOrEqual(p.min);
  });

  it("reads frozen = true", () => {
    expect(loadParams(write("[P]\nvalue = 5\nmin = 0\nmax = 10\nstep = 1\nfrozen = true\n"))[0]?.frozen).toBe(true);
  });

  it("names every problem of the file at once, each with its table, key and line, in the file's order", () => {
    const file = write(
      [
        "[A]\nvalue = 5\nmin = 10\nmax = 0\nstep = 1\n",
        "[B]\nvalue = 50\nmin = 0\nmax = 10\nstep = 1\n",
        "[C]\nvalue = 5\nmin = 0\nmax = 10\nstep = 1\n",
        '[D]\nstep = 0\nvalue = 5\nmin = 0\nmax = 10\nstpe = 2\ntype = "integer"\n',
      ].join(""),
    );
    let error: unknown;
    try {
      loadParams(file);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(InputProblems);
    expect((error as InputProblems).exitCode).toBe(2);
    expect((error as InputProblems).problems.map((p) => p.message)).toEqual([
      `${file}: [A].min (line 3): min (10) is greater than max (0)`,
      `${file}: [B].value (line 7): 50 is outside [0, 10]`,
      `${file}: [D].step (line 17): must be > 0, got 0`,
      `${file}: [D].stpe (line 21): unknown key (did you mean \`step\`?)`,
      `${file}: [D].type (line 22): must be one of "int", "float", got "integer"`,
    ]);
  });

  it("keeps the targets of tables with problems, for the constants file's check", () => {
    const text = '[A]\nconstant = "X"\nindex = 1\nvalue = 5\nmin = 0\nmax = 10\nstep = 0\n[B]\nvalue = 1\n';
    const reading = readParams({ file: "p.toml", text, data: parseToml("p.toml", text) });
    expect(reading.params).toEqual([]);
    expect(reading.targets).toEqual([
      { param: "A", constant: "X", index: [1], type: "int", rustType: undefined, min: 0, max: 10 },
      { param: "B", constant: "B", index: [], type: "int", rustType: undefined, min: undefined, max: undefined },
    ]);
    expect(reading.problems.map((p) => p.message)).toEqual([
      "p.toml: [A].step (line 7): must be > 0, got 0",
      "p.toml: [B].min (line 8): is required",
      "p.toml: [B].max (line 8): is required",
      "p.toml: [B].step (line 8): is required",
    ]);
  });

  const base = "value = 5\nmin = 0\nmax = 10\nstep = 1\n";
  it.each([
    [
      "min above max",
      "[P]\nvalue = 5\nmin = 10\nmax = 0\nstep = 1\n",
      /\[P\]\.min \(line 3\): min \(10\) is greater than max \(0\)/,
    ],
    [
      "value outside bounds",
      "[P]\nvalue = 11\nmin = 0\nmax = 10\nstep = 1\n",
      /\[P\]\.value \(line 2\): 11 is outside \[0, 10\]/,
    ],
    ["a zero step", "[P]\nvalue = 5\nmin = 0\nmax = 10\nstep = 0\n", /\[P\]\.step \(line 5\): must be > 0/],
    ["a negative step", "[P]\nvalue = 5\nmin = 0\nmax = 10\nstep = -2\n", /\[P\]\.step .*must be > 0/],
    ["a missing key", "[P]\nvalue = 5\nmin = 0\nstep = 1\n", /\[P\]\.max \(line 1\): is required/],
    [
      "a wrong type",
      '[P]\nvalue = "five"\nmin = 0\nmax = 10\nstep = 1\n',
      /\[P\]\.value \(line 2\): must be a number, got "five"/,
    ],
    [
      "an unknown key, with a suggestion",
      `[P]\n${base}stpe = 2\n`,
      /\[P\]\.stpe \(line 6\): unknown key \(did you mean `step`\?\)/,
    ],
    ["an unknown type", `[P]\n${base}type = "integer"\n`, /\[P\]\.type .*must be one of "int", "float", got "integer"/],
    ["a negative index", `[P]\n${base}index = -1\n`, /\[P\]\.index .*non-negative integer/],
    ["a bad constant name", `[P]\n${base}constant = "A-B"\n`, /\[P\]\.constant .*not a Rust identifier/],
    ["a top-level value", "P = 3\n", /P \(line 1\): expected a table/],
    [
      "duplicate targets",
      `[A]\n${base}constant = "X"\nindex = 1\n[B]\n${base}constant = "X"\nindex = [1]\n`,
      /\[B\] \(line 8\): targets X\[1\], which parameter A already targets/,
    ],
    ["no parameters", "# nothing\n", /defines no parameters/],
    [
      "a frozen flag that is not a boolean",
      `[P]\n${base}frozen = 1\n`,
      /\[P\]\.frozen \(line 6\): must be true or false, got 1/,
    ],
    [
      "an unknown rust_type",
      `[P]\n${base}rust_type = "int32"\n`,
      /\[P\]\.rust_type \(line 6\): must be one of "i8", .*"f64", got "int32" \(did you mean `i32`\?\)/,
    ],
    [
      "a float rust_type for an int",
      `[P]\n${base}rust_type = "f64"\n`,
      /\[P\]\.rust_type \(line 6\): "f64" is a float type but the parameter's type is "int"/,
    ],
    [
      "an int rust_type for a float",
      `[P]\ntype = "float"\n${base}rust_type = "u8"\n`,
      /\[P\]\.rust_type \(line 7\): "u8" is an integer type but the parameter's type is "float"/,
    ],
    [
      "an int range without an integer",
      "[P]\nvalue = 2.5\nmin = 2.2\nmax = 2.8\nstep = 1\n",
      /\[P\]\.min \(line 3\): \[min, max\] = \[2\.2, 2\.8\] holds no integer/,
    ],
  ])("rejects %s", (_label, text, message) => {
    expect(() => loadParams(write(text))).toThrow(message);
  });
});
