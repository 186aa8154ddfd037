#!/usr/bin/env node
// Builds openings.epd from openings.txt: plays each named line with chess.js (so every
// move is checked) and writes the resulting position as EPD with move counters and an id.
import { readFileSync, writeFileSync } from "node:fs";
import { URL } from "node:url";
import { Chess } from "chess.js";

const here = (name) => new URL(name, import.meta.url);
const lines = readFileSync(here("openings.txt"), "utf8").split("\n");
const seen = new Set();
const out = [];
lines.forEach((line, index) => {
  if (line.trim() === "" || line.startsWith("#")) return;
  const colon = line.indexOf(":");
  const name = line.slice(0, colon).trim();
  const chess = new Chess();
  for (const san of line.slice(colon + 1).trim().split(/\s+/)) {
    try {
      chess.move(san);
    } catch {
      throw new Error(`openings.txt:${index + 1}: illegal move ${san} in "${name}"`);
    }
  }
  if (chess.isGameOver()) throw new Error(`openings.txt:${index + 1}: the game is over after "${name}"`);
  const [board, side, castling, ep, half, full] = chess.fen().split(" ");
  const key = `${board} ${side} ${castling} ${ep}`;
  if (seen.has(key)) throw new Error(`openings.txt:${index + 1}: "${name}" repeats an earlier position`);
  seen.add(key);
  out.push(`${key} hmvc ${half}; fmvn ${full}; id "${name}";`);
});
writeFileSync(here("openings.epd"), `${out.join("\n")}\n`);
console.log(`${out.length} openings written to books/openings.epd`);
