import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EngineProcess } from "../../src/play/engine-process.js";
import { goLine, setoptionLine, UciLineError } from "../../src/play/uci-lines.js";
import { ROOT } from "../support/cli.js";

const LOGGING_ENGINE = join(ROOT, "test/fixtures/engines/logging.mjs");

describe("UCI lines from rows, configs and engines", () => {
  it("writes an option's line, and refuses a name or value that would say more than that", () => {
    expect(setoptionLine("Hash Size", 16)).toBe("setoption name Hash Size value 16");
    expect(setoptionLine("LMR_BASE_X100", 75)).toBe("setoption name LMR_BASE_X100 value 75");
    for (const name of ["X\ndebug on", "X\rquit", "", "  ", "a value 3", "x\u0000", "n".repeat(257)])
      expect(() => setoptionLine(name, 1)).toThrow(UciLineError);
    for (const value of [Number.NaN, Number.POSITIVE_INFINITY, "1\nquit", "x".repeat(1025)])
      expect(() => setoptionLine("X", value)).toThrow(UciLineError);
  });

  it("writes a limit's go line only for a bounded whole number", () => {
    expect(goLine({ nodes: 2000 })).toBe("go nodes 2000");
    expect(goLine({ depth: 8 })).toBe("go depth 8");
    expect(goLine({ movetimeMs: 50 })).toBe("go movetime 50");
    for (const nodes of [Number.NaN, -1, 1.5, 1e13, "2000\nquit" as unknown as number])
      expect(() => goLine({ nodes })).toThrow(UciLineError);
    expect(() => goLine({ depth: 1001 })).toThrow(UciLineError);
    expect(() => goLine({ movetimeMs: Number.POSITIVE_INFINITY })).toThrow(UciLineError);
  });

  it("sends a real engine no extra line when an option name holds a newline (a planted row of a UCI-option run)", async () => {
    const log = join(mkdtempSync(join(tmpdir(), "uci-lines-")), "input");
    const planted = { "KNIGHT_VALUE_MG\nsetoption name Debug Log File value /tmp/pwned\ndebug on": 320 };
    await expect(
      EngineProcess.start({ name: "hostile-row", path: LOGGING_ENGINE, args: [log], options: planted }),
    ).rejects.toThrow(UciLineError);
    const received = readFileSync(log, "utf8");
    expect(received).toContain("uci");
    expect(received).not.toContain("Debug Log File");
    expect(received).not.toContain("debug on");
    expect(received).not.toContain("KNIGHT_VALUE_MG");
  });
});
