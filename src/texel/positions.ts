import { Chess, validateFen } from "chess.js";
import { InputError } from "../core/errors.js";
import { splitPgnGames } from "../play/book.js";
import type { Rng } from "../core/rng.js";

/** A position and its game's result for white: 1, 0.5 or 0. */
export interface LabelledPosition {
  fen: string;
  result: number;
}

const RESULTS: Record<string, number> = { "1-0": 1, "0-1": 0, "1/2-1/2": 0.5 };

export interface ExtractOptions {
  /** Plies at the start of each game whose positions are left out (the opening). */
  skipPlies: number;
}

/**
 * The positions after each ply of every finished game of a PGN text, labelled with the
 * game's result, leaving out the first `skipPlies` plies and positions with the side to
 * move in check or mated (a `+` or `#` on the move that led there). Unfinished games
 * (`*`) are skipped; a game chess.js cannot read is an InputError naming file and line.
 */
export function extractPositions(
  text: string,
  file: string,
  options: ExtractOptions,
): { positions: LabelledPosition[]; games: number } {
  const positions: LabelledPosition[] = [];
  let games = 0;
  for (const { text: game, line } of splitPgnGames(text)) {
    const chess = new Chess();
    try {
      chess.loadPgn(game);
    } catch (error) {
      throw new InputError(`${file}:${line}`, `bad PGN game: ${(error as Error).message}`);
    }
    const result = RESULTS[chess.getHeaders().Result ?? "*"];
    if (result === undefined) continue;
    games++;
    chess.history({ verbose: true }).forEach((move, ply) => {
      if (ply < options.skipPlies || /[+#]$/.test(move.san)) return;
      positions.push({ fen: move.after, result });
    });
  }
  return { positions, games };
}

/** The FEN without its move counters: two positions that differ only there are one. */
function positionKey(fen: string): string {
  return fen.split(" ", 4).join(" ");
}

/** Keeps the first of positions with the same placement, side, castling and en passant. */
export function deduplicate(positions: readonly LabelledPosition[]): LabelledPosition[] {
  const seen = new Set<string>();
  return positions.filter((p) => {
    const key = positionKey(p.fen);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Fisher–Yates with the project's seeded generator: the same seed, the same order. */
export function shuffle<T>(items: T[], rng: Rng): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(rng.next() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}

/** The seed's dataset format: `FEN [1.0]`, one position per line. */
export function formatPositions(positions: readonly LabelledPosition[]): string {
  return positions.map((p) => `${p.fen} [${p.result.toFixed(1)}]\n`).join("");
}

const LINE = /^(\S+ [wb] \S+ \S+(?: \d+ \d+)?)\s+\[(1\.0|0\.5|0\.0)\]$/;

/**
 * Reads `FEN [result]` lines (blank lines and `#` comments skipped); a bad line or a FEN
 * chess.js rejects is an InputError naming it, so the engine never sees a bad position.
 */
export function parsePositions(text: string, file: string): LabelledPosition[] {
  const positions: LabelledPosition[] = [];
  text.split("\n").forEach((raw, index) => {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) return;
    const match = LINE.exec(line);
    if (!match)
      throw new InputError(`${file}:${index + 1}`, `expected "FEN [1.0|0.5|0.0]", got "${line.slice(0, 80)}"`);
    const fen = match[1]!;
    const check = validateFen(fen);
    if (!check.ok) throw new InputError(`${file}:${index + 1}`, `bad FEN "${fen}": ${check.error}`);
    positions.push({ fen, result: Number(match[2]) });
  });
  if (positions.length === 0) throw new InputError(file, "has no positions");
  return positions;
}
