#!/usr/bin/env node
// Hostile inputs (not a test; issue 24): time and memory of the readers on inputs made to
// hurt. Needs `npm run build` first. Prints one line per case:
//   1. an EPD book line of 80,000 words and no `;` (the opcode parser), ms;
//   2. a PGN file whose one game has a 20 MB comment, read by `spsa texel-data` as a
//      process, its peak RSS (from /proc/PID/status VmHWM, read by GNU time's format);
//   node bench/hostile-inputs.mjs [--words 80000] [--comment-mb 20]
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { performance } from "node:perf_hooks";
import { parseEpdBook } from "../dist/play/book.js";

const { values } = parseArgs({ options: { words: { type: "string", default: "80000" }, "comment-mb": { type: "string", default: "20" } } });
const root = new URL("..", import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), "spsa-hostile-"));
try {
  const words = Number(values.words);
  const line = `rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - ${Array.from({ length: words }, () => "word").join(" ")}\n`;
  const start = performance.now();
  parseEpdBook(line, "long.epd");
  console.log(`EPD line of ${words} words without ';': ${(performance.now() - start).toFixed(1)} ms`);

  const pgn = join(dir, "comment.pgn");
  const comment = "x".repeat(Number(values["comment-mb"]) * 1024 * 1024);
  writeFileSync(pgn, `[Result "1-0"]\n\n1. e4 {${comment}} e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 1-0\n`);
  const out = join(dir, "out.txt");
  // GNU time's %M: the process's peak resident set, KiB.
  const run = spawnSync("/usr/bin/time", ["-f", "%M", "node", join(root, "bin/spsa.js"), "texel-data", pgn, "--out", out, "--skip-plies", "0"], { encoding: "utf8" });
  const peakKiB = Number(run.stderr.trim().split("\n").at(-1));
  console.log(`texel-data on a PGN with a ${values["comment-mb"]} MB comment: peak RSS ${(peakKiB / 1024).toFixed(0)} MB`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
