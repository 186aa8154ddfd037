import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { initCommand } from "../../src/commands/init.js";
import { loadParams } from "../../src/params/params.js";
import { InputError } from "../../src/core/errors.js";
import { paramsFromUciOptions } from "../../src/params/uci-options.js";
import { buildMinnow } from "../support/minnow.js";
import { buildExtraOptionsEngine, EXTRA_OPTION } from "../support/extra-options-engine.js";
import { TEST_HOME } from "../support/database.js";
import { optionParamsOf } from "../../src/params/option-names.js";

const dir = mkdtempSync(join(tmpdir(), "spsa-init-engine-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const STOCKFISH = "/usr/games/stockfish";
const SETUP_OPTIONS_ENGINE = fileURLToPath(new URL("../fixtures/engines/setup-options.mjs", import.meta.url));

describe("spsa init --engine", () => {
  it("reads spin options, leaves setup options and other types out, and proposes ranges inside the option's", () => {
    const { entries, skipped } = paramsFromUciOptions(
      [
        "option name Hash type spin default 16 min 1 max 33554432",
        "option name Ponder type check default false",
        "option name Knight Value type spin default 320 min 200 max 500",
        "option name Zero type spin default 0 min -5 max 5",
        "option name Fixed type spin default 3 min 3 max 3",
        "option name Style type combo default Normal var Solid var Normal",
      ],
      "engine",
    );
    expect(entries.map((e) => [e.name, e.option, e.value, e.min, e.max, e.step])).toEqual([
      ["Knight_Value", "Knight Value", 320, 200, 500, 15],
      ["Zero", "Zero", 0, -5, 5, 1],
    ]);
    expect(skipped).toEqual([
      "Hash: sets up the engine, not its play (hash or cache size)",
      "Fixed: its range [3, 3] holds one value",
    ]);
  });

  it("writes a params.toml of minnow's options that UCI-option mode accepts", async () => {
    const out = join(dir, "minnow.toml");
    await initCommand({ engine: await buildMinnow(), out, log: () => {} });
    const params = loadParams(out);
    expect(params.length).toBeGreaterThan(50);
    expect(params.find((p) => p.name === "LMR_BASE_X100")).toMatchObject({
      option: "LMR_BASE_X100",
      value: 75,
      type: "int",
    });
    expect(params.some((p) => p.name === "Hash")).toBe(false);
    expect(Object.keys(optionParamsOf(params, out))).toHaveLength(params.length);
    expect(readFileSync(out, "utf8")).toContain("Skipped:\n#   Hash: sets up the engine, not its play");
  }, 120_000);

  it("--match and --only pick options of a real engine with thousands of them: the extra ones only, or a few by name", async () => {
    const engine = await buildExtraOptionsEngine(join(TEST_HOME, "extra-options-engines"), 3000);
    const matched = join(dir, "matched.toml");
    const lines: string[] = [];
    await initCommand({
      engine: engine.binary,
      out: matched,
      match: `^${EXTRA_OPTION}_\\d+$`,
      log: (line) => lines.push(line),
    });
    const params = loadParams(matched);
    expect(params.map((p) => p.name)).toEqual(Array.from({ length: 3000 }, (_, i) => `${EXTRA_OPTION}_${i}`));
    expect(lines).toEqual([expect.stringMatching(new RegExp(`: 3000 of \\d+ parameters from `))]);
    const named = join(dir, "named.toml");
    await initCommand({
      engine: engine.binary,
      out: named,
      only: ["KNIGHT_VALUE_MG", `${EXTRA_OPTION}_2999`],
      log: () => {},
    });
    expect(loadParams(named).map((p) => [p.name, p.option])).toEqual([
      ["KNIGHT_VALUE_MG", "KNIGHT_VALUE_MG"],
      [`${EXTRA_OPTION}_2999`, `${EXTRA_OPTION}_2999`],
    ]);
    await expect(
      initCommand({ engine: engine.binary, out: join(dir, "none.toml"), only: ["KNIGHT_VALUE"], log: () => {} }),
    ).rejects.toThrow(InputError);
  }, 300_000);

  it("proposes none of an engine's set-up options (threads, hash and cache sizes, search limits, …) and names each under Skipped with its kind", async () => {
    const out = join(dir, "setup-options.toml");
    await initCommand({ engine: SETUP_OPTIONS_ENGINE, out, log: () => {} });
    // Board terms and tunables named like limits stay: an open file, a pruning depth, a time factor.
    expect(loadParams(out).map((p) => p.option)).toEqual([
      "Futility Margin",
      "Rook Open File Bonus",
      "BETA_PRUNE_MAX_DEPTH",
      "TIME_HARD_FACTOR",
    ]);
    const text = readFileSync(out, "utf8");
    const skipped = text
      .slice(text.indexOf("# Skipped:"))
      .split("\n")
      .filter((line) => line.startsWith("#   "))
      .map((line) => line.slice(4));
    expect(skipped).toEqual([
      "Hash: sets up the engine, not its play (hash or cache size)",
      "Threads: sets up the engine, not its play (threads)",
      "Number of Threads: sets up the engine, not its play (threads)",
      "Bitbases Cache Size: sets up the engine, not its play (hash or cache size)",
      "EvalHash: sets up the engine, not its play (hash or cache size)",
      "Search Time: sets up the engine, not its play (search limit)",
      "Search Depth: sets up the engine, not its play (search limit)",
      "MultiPV: sets up the engine, not its play (multi-PV)",
      "Move Overhead: sets up the engine, not its play (time management)",
      "Skill Level: sets up the engine, not its play (playing strength limit)",
      "SyzygyProbeDepth: sets up the engine, not its play (endgame tablebases)",
      "Book Depth: sets up the engine, not its play (opening book)",
      "Log Level: sets up the engine, not its play (files and logs)",
    ]);
  });

  it.runIf(existsSync(STOCKFISH))(
    "reads Debian's stockfish, whose release build has no tunable spin option, and says so",
    async () => {
      const out = join(dir, "stockfish.toml");
      const failure = initCommand({ engine: STOCKFISH, out, log: () => {} });
      await expect(failure).rejects.toThrow(InputError);
      await expect(failure).rejects.toThrow(/no spin option to tune .*Hash: sets up the engine/);
      expect(existsSync(out)).toBe(false);
    },
  );

  it("wants exactly one of --constants and --engine", async () => {
    await expect(initCommand({ out: join(dir, "none.toml") })).rejects.toThrow(
      /either --constants FILE or --engine PATH/,
    );
  });
});
