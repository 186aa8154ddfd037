#!/usr/bin/env node
// Builds the default book, books/balanced.epd.gz: random 8-ply lines (like 8moves_v3), each
// move played by chess.js, deduplicated by position (board, side, castling, en passant), kept
// only if Stockfish's fixed-depth search scores them within ±MAX_CP for the side to move.
//
//   nice -n 10 node books/generate-balanced.mjs [--count 50000] [--seed balanced-v1]
//     [--plies 8] [--depth 8] [--max-cp 70] [--jobs 2] [--stockfish /usr/games/stockfish]
//     [--out books/balanced.epd.gz]
//
// Reproducible: candidates come from a seeded PRNG in a fixed order, every search starts
// from a cleared hash (`ucinewgame`) with one thread, and openings are accepted in candidate
// order however many engines run, so the same seed, depth and Stockfish build give the same
// file. CI never runs this; the output is committed. Needs `npm run build` (for the PRNG).
import { spawn } from "node:child_process";
import { writeFileSync, renameSync } from "node:fs";
import { createInterface } from "node:readline";
import { gzipSync } from "node:zlib";
import { Chess } from "chess.js";
import { sfc32 } from "../dist/random/rng.js";

const options = {
  count: 50000,
  seed: "balanced-v1",
  plies: 8,
  depth: 8,
  "max-cp": 70,
  jobs: 2,
  stockfish: "/usr/games/stockfish",
  out: new URL("balanced.epd.gz", import.meta.url).pathname,
};
const args = process.argv.slice(2);
for (let i = 0; i < args.length; i += 2) {
  const key = args[i].replace(/^--/, "");
  if (!(key in options) || args[i + 1] === undefined) {
    console.error(`generate-balanced: unknown option or missing value: ${args[i]}`);
    process.exit(2);
  }
  options[key] = typeof options[key] === "number" ? Number(args[i + 1]) : args[i + 1];
}

/** sfc32 seeded by FNV-1a hashes of the seed string: the same stream on every platform. */
function rng(seed) {
  let h = 2166136261;
  const words = [0, 0, 0, 0].map((_, w) => {
    for (const c of `${seed}#${w}`) h = Math.imul(h ^ c.charCodeAt(0), 16777619);
    return h >>> 0;
  });
  const generator = sfc32(words);
  return () => generator.next();
}

const random = rng(options.seed);
const seen = new Set();

/** The next new position after `plies` random legal moves, or null for a line that ended the game. */
function candidate() {
  const chess = new Chess();
  for (let ply = 0; ply < options.plies; ply++) {
    const moves = chess.moves();
    if (moves.length === 0) return null;
    chess.move(moves[Math.floor(random() * moves.length)]);
  }
  if (chess.isGameOver()) return null;
  const [board, side, castling, ep, half, full] = chess.fen().split(" ");
  const key = `${board} ${side} ${castling} ${ep}`;
  if (seen.has(key)) return null;
  seen.add(key);
  return { key, half, full, fen: chess.fen() };
}

/** One Stockfish process answering `score(fen)` with the centipawn score (null: a mate score). */
function engine() {
  const child = spawn(options.stockfish, [], { stdio: ["pipe", "pipe", "inherit"] });
  const lines = createInterface({ input: child.stdout });
  let waiting = null;
  let last = null;
  lines.on("line", (line) => {
    const score = / score (cp|mate) (-?\d+)/.exec(line);
    if (score) last = score[1] === "cp" ? Number(score[2]) : null;
    if (line.startsWith("bestmove") && waiting) {
      const resolve = waiting;
      waiting = null;
      resolve(last);
    } else if (line === "readyok" && waiting) {
      const resolve = waiting;
      waiting = null;
      resolve();
    }
  });
  const ask = (text) =>
    new Promise((resolve) => {
      waiting = resolve;
      child.stdin.write(text);
    });
  return {
    ready: () => ask("uci\nsetoption name Threads value 1\nsetoption name Hash value 1\nisready\n"),
    score: (fen) => {
      last = null;
      return ask(`ucinewgame\nposition fen ${fen}\ngo depth ${options.depth}\n`);
    },
    quit: () => child.stdin.end("quit\n"),
  };
}

const started = Date.now();
const engines = Array.from({ length: options.jobs }, engine);
await Promise.all(engines.map((e) => e.ready()));
const accepted = [];
let tried = 0;
let scored = 0;
// Candidates are scored in chunks, in parallel, and accepted in candidate order.
const CHUNK = 64 * options.jobs;
while (accepted.length < options.count) {
  const chunk = [];
  while (chunk.length < CHUNK) {
    tried++;
    const next = candidate();
    if (next) chunk.push(next);
  }
  const scores = new Array(chunk.length);
  await Promise.all(
    engines.map(async (e, j) => {
      for (let i = j; i < chunk.length; i += engines.length) scores[i] = await e.score(chunk[i].fen);
    }),
  );
  scored += chunk.length;
  chunk.forEach((c, i) => {
    const cp = scores[i];
    if (accepted.length < options.count && cp !== null && Math.abs(cp) <= options["max-cp"]) {
      accepted.push(`${c.key} hmvc ${c.half}; fmvn ${c.full}; ce ${cp};`);
    }
  });
  if (scored % (CHUNK * 20) === 0) {
    const seconds = (Date.now() - started) / 1000;
    console.error(`${accepted.length}/${options.count} kept of ${scored} scored (${tried} lines) after ${seconds.toFixed(0)} s`);
  }
}
engines.forEach((e) => e.quit());
const header = [
  `# ${options.count} balanced openings: random ${options.plies}-ply lines (seed "${options.seed}"), distinct positions,`,
  `# |Stockfish depth ${options.depth}| <= ${options["max-cp"]} cp (ce: its score for the side to move).`,
  `# Made by books/generate-balanced.mjs; ${scored} positions scored, ${tried} lines drawn.`,
];
const temp = `${options.out}.tmp`;
writeFileSync(temp, gzipSync(`${[...header, ...accepted].join("\n")}\n`, { level: 9 }));
renameSync(temp, options.out);
const seconds = (Date.now() - started) / 1000;
console.log(`${accepted.length} openings of ${scored} scored (${tried} lines drawn) written to ${options.out} in ${seconds.toFixed(0)} s`);
