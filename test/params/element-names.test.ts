import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { formerElementName, withStoredNames } from "../../src/params/element-names.js";
import { paramsFromConstants } from "../../src/params/from-constants.js";
import { optionTargets } from "../../src/params/option-names.js";
import { parseParams, type Param } from "../../src/params/params.js";
import { formatParamsToml } from "../../src/params/params-writer.js";
import { updateParamValues } from "../../src/params/params-update.js";
import { constantsWithTheta } from "../../src/export/run-export.js";
import { parseToml } from "../../src/core/toml-file.js";
import type { BuildConfig } from "../../src/types/config.js";

const MINNOW_CONSTANTS = "engines/minnow/src/engine_constants.rs";
const MINNOW_BUILD = { engineDir: "engines/minnow", constantsFile: "src/engine_constants.rs" } as BuildConfig;

const SHAPES = `
pub const PAIR: (i32, i32) = (320, 300);
pub const TRIPLE: (i32, i32, i32) = (1, 2, 3);
pub const LIST: [i32; 2] = [10, 20];
pub const RANKS: [(i32, i32); 2] = [(0, 1), (5, 80)];
pub const GRID: [[i32; 2]; 2] = [[1, 2], [3, 4]];
pub const NESTED: ((i32, i32), (i32, i32)) = ((1, 2), (3, 4));
`;

function paramsOf(text: string): Param[] {
  return parseParams({ file: "params.toml", text, data: parseToml("params.toml", text) });
}

describe("spsa init --constants: element names", () => {
  it("names a two-member tuple's members _MG and _EG, and every other element by its index", () => {
    const { entries } = paramsFromConstants(SHAPES, "shapes.rs");
    expect(entries.map((e) => [e.name, e.constant, e.index])).toEqual([
      ["PAIR_MG", "PAIR", [0]],
      ["PAIR_EG", "PAIR", [1]],
      ["TRIPLE_0", "TRIPLE", [0]],
      ["TRIPLE_1", "TRIPLE", [1]],
      ["TRIPLE_2", "TRIPLE", [2]],
      ["LIST_0", "LIST", [0]],
      ["LIST_1", "LIST", [1]],
      ["RANKS_0_MG", "RANKS", [0, 0]],
      ["RANKS_0_EG", "RANKS", [0, 1]],
      ["RANKS_1_MG", "RANKS", [1, 0]],
      ["RANKS_1_EG", "RANKS", [1, 1]],
      ["GRID_0_0", "GRID", [0, 0]],
      ["GRID_0_1", "GRID", [0, 1]],
      ["GRID_1_0", "GRID", [1, 0]],
      ["GRID_1_1", "GRID", [1, 1]],
      ["NESTED_MG_MG", "NESTED", [0, 0]],
      ["NESTED_MG_EG", "NESTED", [0, 1]],
      ["NESTED_EG_MG", "NESTED", [1, 0]],
      ["NESTED_EG_EG", "NESTED", [1, 1]],
    ]);
  });

  it("names every parameter of minnow as its UCI option (a float's option adds _X100)", () => {
    const source = readFileSync(MINNOW_CONSTANTS, "utf8");
    const { entries } = paramsFromConstants(source, MINNOW_CONSTANTS);
    const params = paramsOf(formatParamsToml([], entries));
    expect(params.find((p) => p.name === "KNIGHT_VALUE_MG")).toMatchObject({ constant: "KNIGHT_VALUE", index: [0] });
    expect(params.find((p) => p.name === "PASSED_PAWN_BONUS_5_EG")).toMatchObject({ index: [5, 1] });
    const options = optionTargets(params, source, MINNOW_CONSTANTS);
    expect(options.map((o) => o.option)).toEqual(params.map((p) => (p.type === "float" ? `${p.name}_X100` : p.name)));
  });
});

describe("the former element names (KNIGHT_VALUE_0) still resolve", () => {
  const KNIGHT = 'constant = "KNIGHT_VALUE"\nindex = 0\n';
  const OLD = `[KNIGHT_VALUE_0]\n${KNIGHT}value = 333\nmin = 160\nmax = 640\nstep = 24\n`;
  const NEW =
    `# written by spsa init\n\n[KNIGHT_VALUE_MG]\n${KNIGHT}value = 320\nmin = 160\nmax = 640\nstep = 24\n\n` +
    "[LMR_MIN_DEPTH]\nvalue = 3\nmin = 1\nmax = 8\nstep = 1\n";

  it("formerElementName: the constant and its indexes as numbers; none for a scalar", () => {
    expect(formerElementName({ constant: "KNIGHT_VALUE", index: [0] })).toBe("KNIGHT_VALUE_0");
    expect(formerElementName({ constant: "PASSED_PAWN_BONUS", index: [5, 1] })).toBe("PASSED_PAWN_BONUS_5_1");
    expect(formerElementName({ constant: "LMR_MIN_DEPTH", index: [] })).toBeUndefined();
  });

  it("an older params.toml's [KNIGHT_VALUE_0] rewrites KNIGHT_VALUE's first member", () => {
    const { text } = constantsWithTheta(MINNOW_BUILD, paramsOf(OLD), { KNIGHT_VALUE_0: 333 });
    expect(text).toContain("pub const KNIGHT_VALUE: (Score, Score) = (333, 300);");
  });

  it("a run that holds KNIGHT_VALUE_0 reads it for [KNIGHT_VALUE_MG]: the parameter takes the run's name", () => {
    const stored = { KNIGHT_VALUE_0: 333, LMR_MIN_DEPTH: 4 };
    const { params, renamed } = withStoredNames(paramsOf(NEW), stored);
    expect(params.map((p) => p.name)).toEqual(["KNIGHT_VALUE_0", "LMR_MIN_DEPTH"]);
    expect(renamed).toEqual([{ table: "KNIGHT_VALUE_MG", stored: "KNIGHT_VALUE_0" }]);
    expect(params[0]).toMatchObject({ constant: "KNIGHT_VALUE", index: [0] });
    // The run's θ rewrites the same element, and goes to the table's value line.
    const { text } = constantsWithTheta(MINNOW_BUILD, params, stored);
    expect(text).toContain("pub const KNIGHT_VALUE: (Score, Score) = (333, 300);");
    const updated = updateParamValues(NEW, stored, "params.toml");
    expect(updated).toBe(NEW.replace("value = 320", "value = 333").replace("value = 3\n", "value = 4\n"));
  });

  it("keeps a parameter's own name when the run holds it, or when another parameter has the former name", () => {
    const params = paramsOf(NEW);
    expect(withStoredNames(params, { KNIGHT_VALUE_MG: 1, KNIGHT_VALUE_0: 2 }).params.map((p) => p.name)).toEqual([
      "KNIGHT_VALUE_MG",
      "LMR_MIN_DEPTH",
    ]);
    expect(withStoredNames(params, {}).renamed).toEqual([]);
    const both = paramsOf(
      `${NEW}\n[KNIGHT_VALUE_0]\nconstant = "KNIGHT_VALUE"\nindex = 1\nvalue = 1\nmin = 0\nmax = 2\nstep = 1\n`,
    );
    expect(withStoredNames(both, { KNIGHT_VALUE_0: 2 }).renamed).toEqual([]);
  });

  it("updateParamValues: a name that is neither a table nor an element's former name is still refused", () => {
    expect(() => updateParamValues(NEW, { KNIGHT_VALUE_1: 300 }, "params.toml")).toThrow(
      "params.toml: [KNIGHT_VALUE_1]: table not found",
    );
  });
});
