#!/usr/bin/env node
// Hostile inputs (not a test; issue 24): time and memory of the readers on inputs made to
// hurt. Needs `npm run build` first. Prints one line per case:
//   1. an EPD book line of 80,000 words and no `;` (the opcode parser), ms;
//   2. a PGN file whose one game has a 20 MB comment, read by `spsa texel-data` as a
//      process, its peak RSS (from /proc/PID/status VmHWM, read by GNU time's format);
//   3. `spsa texel-data --quiet` with an engine whose output is one endless line: the
//      process's peak RSS (VmHWM, polled) and how it ended; killed after --limit-s seconds
//      or past --limit-mb MB, so that a reader without a line cap cannot take the machine.
// --spsa runs another checkout's CLI (e.g. main's, for the numbers before a change).
//   node bench/hostile-inputs.mjs [--words 80000] [--comment-mb 20] [--limit-s 20] [--limit-mb 2048] [--spsa bin/spsa.js]
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { performance } from "node:perf_hooks";
import { clearInterval, setInterval } from "node:timers";
import { parseEpdBook } from "../dist/play/book.js";

const { values } = parseArgs({
  options: {
    words: { type: "string", default: "80000" },
    "comment-mb": { type: "string", default: "20" },
    "limit-s": { type: "string", default: "20" },
    "limit-mb": { type: "string", default: "2048" },
    spsa: { type: "string", default: new URL("../bin/spsa.js", import.meta.url).pathname },
  },
});
const root = new URL("..", import.meta.url).pathname;
const peakKiBOf = (pid) => Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);
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
  const run = spawnSync(
    "/usr/bin/time",
    ["-f", "%M", "node", values.spsa, "texel-data", pgn, "--out", out, "--skip-plies", "0"],
    { encoding: "utf8" },
  );
  const commentPeakKiB = Number(run.stderr.trim().split("\n").at(-1));
  console.log(
    `texel-data on a PGN with a ${values["comment-mb"]} MB comment: peak RSS ${(commentPeakKiB / 1024).toFixed(0)} MB`,
  );

  const game = join(dir, "game.pgn");
  writeFileSync(game, '[Result "1-0"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 1-0\n');
  const engine = join(root, "test/fixtures/engines/endless-line.sh");
  const child = spawn(
    "node",
    [values.spsa, "texel-data", game, "--out", out, "--quiet", "--engine", engine, "-p", "1"],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  let stderr = "";
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const started = performance.now();
  let peakKiB = 0;
  let killed = "";
  const poll = setInterval(() => {
    try {
      peakKiB = Math.max(peakKiB, peakKiBOf(child.pid));
    } catch {
      return; // exited between the check and the read
    }
    const seconds = (performance.now() - started) / 1000;
    if (killed === "" && (seconds > Number(values["limit-s"]) || peakKiB / 1024 > Number(values["limit-mb"]))) {
      killed = ` (killed by the bench after ${seconds.toFixed(1)} s at ${(peakKiB / 1024).toFixed(0)} MB)`;
      child.kill("SIGKILL");
    }
  }, 20);
  const code = await new Promise((resolve) => child.on("exit", (exitCode, signal) => resolve(exitCode ?? signal)));
  clearInterval(poll);
  const ended =
    killed ||
    ` (exit ${code} after ${((performance.now() - started) / 1000).toFixed(1)} s: ${stderr.trim().split("\n").at(-1)})`;
  console.log(`texel-data --quiet with an endless-line engine: peak RSS ${(peakKiB / 1024).toFixed(0)} MB${ended}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
