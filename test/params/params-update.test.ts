import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "smol-toml";
import { describe, expect, it } from "vitest";
import { loadParams } from "../../src/params/params.js";
import { formatTomlNumber, updateParamValues } from "../../src/params/params-update.js";
import { InputError } from "../../src/core/errors.js";

const TEXT = `# Tunables of minnow.
# value is θ; the master rewrites it.

[LMR_BASE]   # a float
type = "float"
value = 0.75 # tuned 2024
min = 0.25
max = 1.5
step = 0.1

["KNIGHT_VALUE_MG"]
constant = "KNIGHT_VALUE"
index = 0
  value   =   320
min = 250   # keep above a bishop
max = 400
step = 8

[NO_VALUE_SEEN_YET]
min = 0
max = 10
value = -3
step = 1
`;

describe("updateParamValues", () => {
  it("rewrites only the value of each table and keeps every other byte", () => {
    const out = updateParamValues(
      TEXT,
      { LMR_BASE: 0.8123456789, KNIGHT_VALUE_MG: 321.5, NO_VALUE_SEEN_YET: 4 },
      "params.toml",
    );
    const expected = TEXT.replace("value = 0.75 # tuned", "value = 0.8123456789 # tuned")
      .replace("value   =   320\n", "value   =   321.5\n")
      .replace("value = -3\n", "value = 4\n");
    expect(out).toBe(expected);
    const doc = parse(out) as Record<string, Record<string, unknown>>;
    expect(doc.LMR_BASE?.value).toBe(0.8123456789);
    expect(doc.KNIGHT_VALUE_MG?.value).toBe(321.5);
    expect(doc.NO_VALUE_SEEN_YET?.value).toBe(4);
    expect(doc.KNIGHT_VALUE_MG?.min).toBe(250);
  });

  it("leaves tables without a new value alone and keeps CRLF line endings", () => {
    const crlf = TEXT.replace(/\n/g, "\r\n");
    const out = updateParamValues(crlf, { KNIGHT_VALUE_MG: 300 }, "params.toml");
    expect(out).toBe(crlf.replace("value   =   320\r\n", "value   =   300\r\n"));
    expect((parse(out) as Record<string, Record<string, unknown>>).LMR_BASE?.value).toBe(0.75);
  });

  it("does not touch a value key of another table or a nested key", () => {
    const text = `[A]\nvalue = 1\n[A.meta]\nvalue = 9\n[B]\nvalue = 2\n`;
    // [A.meta] is a different table: its value stays 9.
    expect(updateParamValues(text, { A: 5, B: 6 }, "p.toml")).toBe(
      `[A]\nvalue = 5\n[A.meta]\nvalue = 9\n[B]\nvalue = 6\n`,
    );
    expect(() => updateParamValues(`[A]\n[A.meta]\nvalue = 9\n`, { A: 5 }, "p.toml")).toThrow(/has no `value/);
    expect(() => updateParamValues(`[A]\n[[A]]\nvalue = 9\n`, { A: 5 }, "p.toml")).toThrow(/has no `value/);
  });

  it("throws when a table or its value key is missing", () => {
    expect(() => updateParamValues(TEXT, { NOPE: 1 }, "params.toml")).toThrow(
      new InputError("params.toml: [NOPE]", "table not found"),
    );
    expect(() => updateParamValues("[X]\nmin = 1\n", { X: 1 }, "params.toml")).toThrow(
      /params\.toml: \[X\]: has no `value = …` line/,
    );
  });
});

describe("formatTomlNumber", () => {
  it.each([
    [3, "3"],
    [-5, "-5"],
    [-0, "0"],
    [0.1 + 0.2, "0.30000000000000004"],
    [1e-7, "1e-7"],
    [-1e-9, "-1e-9"],
    [5e-324, "5e-324"],
    [11.4719066, "11.4719066"],
    [123456.123456789, "123456.123456789"],
    [1e21, "1e+21"],
    [-1.5e300, "-1.5e+300"],
    [2 ** 53, "9.007199254740992e+15"],
    [1e20, "1e+20"],
  ])("%s → %s, which TOML reads back as the same number", (value, text) => {
    expect(formatTomlNumber(value, "w")).toBe(text);
    expect((parse(`v = ${text}`) as { v: number }).v).toBe(value + 0);
  });

  it("refuses NaN and infinities", () => {
    expect(() => formatTomlNumber(Number.NaN, "params.toml: [X].value")).toThrow(InputError);
    expect(() => formatTomlNumber(Infinity, "w")).toThrow(InputError);
  });
});

describe("θ through params.toml", () => {
  it("comes back exactly after a write and a read, tiny, huge and negative", () => {
    const values: Record<string, number> = {
      TINY: 1e-7,
      SUBNORMAL: 5e-324,
      HUGE: 1e300,
      NEG_TINY: -1e-7,
      NEG_HUGE: -2.5e300,
      NEG_PLAIN: -0.30000000000000004,
      INT_FRACTION: 3.27,
    };
    const table = (name: string) =>
      `[${name}]\ntype = "${name === "INT_FRACTION" ? "int" : "float"}"\nvalue = 0\nmin = -1e308\nmax = 1e308\nstep = 1\n`;
    const dir = mkdtempSync(join(tmpdir(), "spsa-roundtrip-"));
    try {
      const file = join(dir, "params.toml");
      writeFileSync(file, Object.keys(values).map(table).join("\n"));
      writeFileSync(file, updateParamValues(readFileSync(file, "utf8"), values, file));
      const read = Object.fromEntries(loadParams(file).map((p) => [p.name, p.value]));
      expect(read).toEqual(values);
      for (const name of Object.keys(values)) expect(Object.is(read[name], values[name])).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the repository's params.toml", () => {
  const file = join(import.meta.dirname, "..", "..", "params.toml");

  it.skipIf(!existsSync(file))("takes new values for every parameter and changes nothing else", () => {
    const text = readFileSync(file, "utf8");
    const params = loadParams(file);
    const values = Object.fromEntries(params.map((p) => [p.name, p.value + 0.5]));
    const out = updateParamValues(text, values, file);
    const doc = parse(out) as Record<string, Record<string, unknown>>;
    for (const p of params) expect(doc[p.name]?.value).toBeCloseTo(p.value + 0.5, 9);
    const withoutValues = (t: string) => t.split("\n").filter((line) => !/^\s*value\s*=/.test(line));
    expect(withoutValues(out)).toEqual(withoutValues(text));
  });
});
