import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadRunInputs } from "../../src/commands/master.js";
import { loadParams } from "../../src/params/params.js";
import { spsa } from "../support/cli.js";

const MINNOW_CONSTANTS = "engines/minnow/src/engine_constants.rs";

describe("spsa init", () => {
  const dir = mkdtempSync(join(tmpdir(), "spsa-init-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("writes every number literal of the sample engine's constants file, and spsa master's check accepts the result", async () => {
    const out = join(dir, "params.toml");
    const result = await spsa(["init", "--constants", MINNOW_CONSTANTS, "--out", out]);
    expect(result.exitCode, result.all).toBe(0);
    expect(result.stderr.trim()).toBe(`${out}: 83 parameters from ${MINNOW_CONSTANTS}, 1 skipped (listed at the end)`);
    // The check `spsa master` runs before it opens the database: targets, types, ranges against the Rust types.
    const { params } = loadRunInputs({ config: "config.toml", params: out });
    expect(params).toHaveLength(83);
    expect(params.find((p) => p.name === "LMR_BASE")).toMatchObject({
      type: "float",
      value: 0.75,
      min: 0.375,
      max: 1.5,
      step: 0.05625,
      index: [],
    });
    expect(params.find((p) => p.name === "KNIGHT_VALUE_MG")).toMatchObject({
      constant: "KNIGHT_VALUE",
      index: [0],
      type: "int",
      value: 320,
      min: 160,
      max: 640,
    });
    expect(params.find((p) => p.name === "PASSED_PAWN_BONUS_5_EG")).toMatchObject({
      constant: "PASSED_PAWN_BONUS",
      index: [5, 1],
      value: 80,
    });
    // A negative value keeps its sign; a zero gets ±20.
    expect(params.find((p) => p.name === "KING_OPEN_FILE_PENALTY")).toMatchObject({ value: -25, min: -50, max: -12 });
    expect(params.find((p) => p.name === "PASSED_PAWN_BONUS_0_MG")).toMatchObject({ value: 0, min: -20, max: 20 });
    const text = readFileSync(out, "utf8");
    const lineOf = (marker: string) =>
      readFileSync(MINNOW_CONSTANTS, "utf8")
        .split("\n")
        .findIndex((line) => line.includes(marker)) + 1;
    expect(text).toContain(
      `# engine_constants.rs:${lineOf("pub const LMR_BASE:")}: LMR_BASE = 0.75 (f64)\n[LMR_BASE]\n`,
    );
    expect(text).toContain("min = 0.375  # proposed: half to twice the value; edit\n");
    expect(text).toContain(
      `#   ALPHA_PRUNE_MAX_DEPTH (line ${lineOf("pub const ALPHA_PRUNE_MAX_DEPTH:")}): derived from ALPHA_PRUNE_MARGINS: a cast (\`ALPHA_PRUNE_MARGINS.len() as u8\`)\n`,
    );
  });

  it("reads hex, suffixed and negative literals, and skips what is not a literal, saying why", async () => {
    const out = join(dir, "hard.toml");
    const result = await spsa(["init", "--constants", "test/fixtures/constants/hard.rs", "--out", out]);
    expect(result.exitCode, result.all).toBe(0);
    const params = loadParams(out);
    expect(params.find((p) => p.name === "HEX_MASK")).toMatchObject({ value: 255, min: 127, max: 510, step: 19 });
    expect(params.find((p) => p.name === "UNDERSCORE_SUFFIX")).toMatchObject({ value: -3, min: -6, max: -1, step: 1 });
    const text = readFileSync(out, "utf8");
    expect(text).toContain("#   FROM_FN (line 46): built by a function call (`scaled(25)`)\n");
    expect(text).toContain("#   DERIVED (line 47): derived from another constant (`TYPED`)\n");
    expect(text).toContain("#   REPEATED (line 51): a repeat expression (`[0; 4]`)\n");
  });

  it("--only and --match write the picked parameters only, in the file's order: named ones (a constant: all its elements) and those matching", async () => {
    const out = join(dir, "picked.toml");
    const result = await spsa([
      "init",
      "--constants",
      MINNOW_CONSTANTS,
      "--out",
      out,
      "--only",
      "LMR_MIN_DEPTH, KING_ATTACK_WEIGHTS",
      "--match",
      "^ROOK_VALUE_[ME]G$",
    ]);
    expect(result.exitCode, result.all).toBe(0);
    expect(result.stderr.trim()).toBe(
      `${out}: 7 of 83 parameters from ${MINNOW_CONSTANTS}, 1 skipped (listed at the end)`,
    );
    expect(loadParams(out).map((p) => p.name)).toEqual([
      "LMR_MIN_DEPTH",
      "ROOK_VALUE_MG",
      "ROOK_VALUE_EG",
      "KING_ATTACK_WEIGHTS_0",
      "KING_ATTACK_WEIGHTS_1",
      "KING_ATTACK_WEIGHTS_2",
      "KING_ATTACK_WEIGHTS_3",
    ]);
    // What is picked loads as spsa master loads it, with the proposals of the full file.
    expect(
      loadRunInputs({ config: "config.toml", params: out }).params.find((p) => p.name === "ROOK_VALUE_EG"),
    ).toMatchObject({ constant: "ROOK_VALUE", index: [1] });
  });

  it("--only and --match: an unknown name, a bad expression or a pick of nothing is bad input naming the flag, and writes no file", async () => {
    const out = join(dir, "not-written.toml");
    const cases: [string[], string][] = [
      [
        ["--only", "KNIGT_VALUE"],
        `error: --only: ${MINNOW_CONSTANTS} has no parameter or constant KNIGT_VALUE (did you mean \`KNIGHT_VALUE\`?)`,
      ],
      [
        ["--match", "("],
        'error: --match: "(" is not a regular expression: Invalid regular expression: /(/: Unterminated group',
      ],
      [["--match", "NOPE"], `error: --match: "NOPE" matches none of the 83 parameters of ${MINNOW_CONSTANTS}`],
    ];
    for (const [flags, message] of cases) {
      const result = await spsa(["init", "--constants", MINNOW_CONSTANTS, "--out", out, ...flags]);
      expect(result.exitCode, result.all).toBe(2);
      expect(result.stderr.trim()).toBe(message);
      expect(existsSync(out)).toBe(false);
    }
  });

  it("refuses to replace a file, and names an unreadable constants file", async () => {
    const out = join(dir, "params.toml");
    const again = await spsa(["init", "--constants", MINNOW_CONSTANTS, "--out", out]);
    expect(again.exitCode).toBe(2);
    expect(again.stderr.trim()).toBe(
      `error: ${out}: already exists; choose another --out or pass --force to replace it`,
    );
    const missing = await spsa(["init", "--constants", join(dir, "nope.rs"), "--out", join(dir, "x.toml")]);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr.trim()).toBe(`error: ${join(dir, "nope.rs")}: cannot read the constants file`);
  });
});
