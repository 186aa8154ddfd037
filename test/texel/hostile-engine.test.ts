import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { EngineError } from "../../src/core/errors.js";
import { processExists } from "../../src/core/process-exists.js";
import { BatchEngine } from "../../src/texel/batch-engine.js";
import { ROOT, spsa } from "../support/cli.js";

const fake = (name: string) => join(ROOT, "test", "fixtures", "engines", name);
const scratch = mkdtempSync(join(tmpdir(), "texel-hostile-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Texel's batch engines misbehaving as real processes: each ends in an engine error, in bounded time and memory. */
describe("texel batch engine reader against hostile engines", () => {
  it("an endless line: texel-data --quiet exits 5 with one line, and writes nothing", async () => {
    const pgn = join(scratch, "game.pgn");
    writeFileSync(pgn, '[Result "1-0"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 1-0\n');
    const out = join(scratch, "positions.txt");
    const result = await spsa([
      "texel-data",
      pgn,
      "--out",
      out,
      "--quiet",
      "--skip-plies",
      "0",
      "--engine",
      fake("endless-line.sh"),
      "-p",
      "1",
    ]);
    expect(result.exitCode, result.all).toBe(5);
    expect(result.stderr.trim().split("\n"), result.all).toEqual([
      `error: ${fake("endless-line.sh")}: printed a line longer than 1 MiB during the evalbatch probe`,
    ]);
    expect(existsSync(out)).toBe(false);
  });

  it("a silent engine: an engine error after the read timeout, and the engine is killed", async () => {
    const pidFile = join(scratch, "silent.pid");
    process.env.FAKE_ENGINE_PID_FILE = pidFile;
    const started = BatchEngine.start(fake("silent.sh"), 300);
    await expect(started).rejects.toThrow(EngineError);
    await expect(started).rejects.toThrow(
      `${fake("silent.sh")}: answered nothing for 0.3 s during the evalbatch probe`,
    );
    delete process.env.FAKE_ENGINE_PID_FILE;
    const pid = Number(readFileSync(pidFile, "utf8"));
    await expect.poll(() => processExists(pid)).toBe(false);
  });

  it("lines without end: an engine error, not a loop that never stops", async () => {
    const started = BatchEngine.start(fake("endless-lines.sh"));
    await expect(started).rejects.toThrow(
      `${fake("endless-lines.sh")}: answered the evalbatch probe with more than 64 lines ("0")`,
    );
  });
});
