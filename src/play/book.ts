import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { extname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";
import { Chess, validateFen } from "chess.js";
import { InputError } from "../core/errors.js";
import { createRng, type Rng } from "../core/rng.js";
import { Position } from "./position.js";

/** A start position for a game pair. */
export interface Opening {
  fen: string;
  /** From an EPD `id` opcode or PGN `Opening`/`Variation` tags. */
  name?: string;
}

export interface BookOptions {
  /** PGN books: play at most this many plies of each game (default: all of them). */
  plies?: number;
}

/**
 * The books shipped in books/, by name: `balanced` (the default, 50,000 balanced random
 * 8-ply openings, books/generate-balanced.mjs) and `openings` (276 named openings).
 */
export const SHIPPED_BOOKS = { balanced: "balanced.epd.gz", openings: "openings.epd" } as const;

/**
 * The SHA-256 of the shipped books' bytes. A file with these bytes is one whose every line the
 * test suite checked (test/play/book.test.ts), so loading it skips the FEN check of each line
 * and parses a line only when its opening is read (`CheckedEpdBook`). A regenerated book brings
 * its new digest here.
 */
export const SHIPPED_BOOK_DIGESTS: ReadonlySet<string> = new Set([
  "4df5bd05509e205d6452545cdf71074777ecc3b59837d169ee3314c668e46709",
  "96a5143c7407cd983398403d623e5b7ac35d012cd014251e687b95e0a97f682e",
]);

/** The default book: `balanced` (`books/balanced.epd.gz`). */
export function defaultBookPath(): string {
  return shippedBookPath("balanced");
}

function shippedBookPath(name: keyof typeof SHIPPED_BOOKS): string {
  return fileURLToPath(new URL(`../../books/${SHIPPED_BOOKS[name]}`, import.meta.url));
}

/** The path of the shipped book named `name`, or undefined if no shipped book has that name. */
export function shippedBook(name: string): string | undefined {
  return Object.hasOwn(SHIPPED_BOOKS, name) ? shippedBookPath(name as keyof typeof SHIPPED_BOOKS) : undefined;
}

/** Whether `file` is one of the shipped books (whose openings the test suite checks all playable). */
export function isShippedBook(file: string): boolean {
  return Object.keys(SHIPPED_BOOKS).some((name) => shippedBook(name) === resolve(file));
}

/** A `--book` value: a file, else a shipped book's name (`openings`, `balanced`); none: the default book. */
export function resolveBook(book: string | undefined): string {
  if (book === undefined) return defaultBookPath();
  return existsSync(book) ? book : (shippedBook(book) ?? book);
}

/**
 * A book's openings by index: an array, or a shipped book whose lines are parsed when first read
 * (`CheckedEpdBook`).
 */
export interface Book {
  readonly length: number;
  at(index: number): Opening | undefined;
}

/** Every opening of the book, in order (a shipped book's all parsed). */
export function bookOpenings(book: Book): Opening[] {
  return Array.from({ length: book.length }, (_, index) => book.at(index)!);
}

/**
 * Loads an EPD or PGN book (by extension; `.pgn` is PGN, anything else EPD; a further `.gz`
 * is gunzipped). Throws InputError naming the file and line of a bad position or game, or an
 * empty book; a position whose game is over is refused when used (`playable`).
 */
export function loadBook(file: string, options: BookOptions = {}): Book {
  const gzipped = extname(file).toLowerCase() === ".gz";
  let text: string;
  let shipped: boolean;
  try {
    const bytes = readFileSync(file);
    shipped = SHIPPED_BOOK_DIGESTS.has(createHash("sha256").update(bytes).digest("hex"));
    text = (gzipped ? gunzipSync(bytes) : bytes).toString("utf8");
  } catch (error) {
    throw new InputError(file, `cannot read the book: ${(error as Error).message}`);
  }
  const format = extname(gzipped ? file.slice(0, -3) : file).toLowerCase();
  const openings =
    format === ".pgn"
      ? parsePgnBook(text, file, options.plies)
      : shipped
        ? new CheckedEpdBook(text, file)
        : parseEpdBook(text, file);
  if (openings.length === 0) throw new InputError(file, "the book has no openings");
  return openings;
}

/**
 * EPD: four FEN fields, then either the two move counters or opcodes (`hmvc 0; fmvn 1;
 * id "name";`), or nothing. Blank lines and `#` comments are skipped. Each FEN is checked.
 */
export function parseEpdBook(text: string, file: string): Opening[] {
  const openings: Opening[] = [];
  text.split("\n").forEach((raw, index) => {
    if (isEpdPosition(raw)) openings.push(parseEpdLine(raw, `${file}:${index + 1}`, { check: true }));
  });
  return openings;
}

/** Not blank, not a `#` comment. */
function isEpdPosition(raw: string): boolean {
  const line = raw.trim();
  return line !== "" && !line.startsWith("#");
}

/**
 * The EPD openings of a shipped book, whose every line the test suite checked: each line is
 * parsed when first read. A worker plays a few hundred of `balanced`'s 50,000, and parsing them
 * all cost it 0.4 s of CPU at each start, more than the rest of its start.
 */
class CheckedEpdBook implements Book {
  private readonly lines: string[];
  /** Index in `lines` of each opening. */
  private readonly positions: Uint32Array;
  private readonly parsed: (Opening | undefined)[];

  constructor(
    text: string,
    private readonly file: string,
  ) {
    this.lines = text.split("\n");
    const positions: number[] = [];
    this.lines.forEach((raw, index) => {
      if (isEpdPosition(raw)) positions.push(index);
    });
    this.positions = Uint32Array.from(positions);
    this.parsed = new Array<Opening | undefined>(positions.length);
  }

  get length(): number {
    return this.positions.length;
  }

  /** As an array's `at`: a negative index counts from the end. */
  at(index: number): Opening | undefined {
    const i = index < 0 ? index + this.length : index;
    if (!Number.isInteger(i) || i < 0 || i >= this.length) return undefined;
    const line = this.positions[i]!;
    return (this.parsed[i] ??= parseEpdLine(this.lines[line]!, `${this.file}:${line + 1}`, { check: false }));
  }
}

/** One EPD line's opening, its FEN checked unless `check` is false (a shipped book's line). */
function parseEpdLine(raw: string, where: string, { check }: { check: boolean }): Opening {
  const line = raw.trim();
  const fields = line.split(/\s+/);
  if (fields.length < 4) throw new InputError(where, `bad EPD: expected at least 4 FEN fields in "${line}"`);
  const rest = fields.slice(4).join(" ");
  let halfMoves = "0";
  let fullMoves = "1";
  let name: string | undefined;
  const counters = /^(\d+)\s+(\d+)(?:\s|;|$)/.exec(rest);
  if (counters) {
    halfMoves = counters[1]!;
    fullMoves = counters[2]!;
  }
  for (const [opcode, value] of epdOperations(rest)) {
    if (opcode === "hmvc") halfMoves = value;
    else if (opcode === "fmvn") fullMoves = value;
    else if (opcode === "id") name = value;
  }
  const fen = `${fields.slice(0, 4).join(" ")} ${halfMoves} ${fullMoves}`;
  if (check) checkFen(fen, where);
  const opening = name === undefined ? { fen } : { fen, name };
  origins.set(opening, where);
  return opening;
}

/**
 * The `opcode operand;` operations of an EPD line's tail, operands unquoted. One pass over
 * the text: a `;` inside quotes does not end an operation, text after the last `;` is not
 * one. (A regex did this in time quadratic in the line: 80,000 words took minutes.)
 */
export function epdOperations(rest: string): [string, string][] {
  const operations: [string, string][] = [];
  let start = 0;
  let quoted = false;
  for (let i = 0; i < rest.length; i++) {
    const c = rest[i];
    if (c === '"') quoted = !quoted;
    else if (c === ";" && !quoted) {
      const operation = /^(\w+)\s+(.*)$/s.exec(rest.slice(start, i).trim());
      if (operation) operations.push([operation[1]!, operation[2]!.trim().replace(/^"|"$/g, "")]);
      start = i + 1;
    }
  }
  return operations;
}

function checkFen(fen: string, where: string): void {
  const check = validateFen(fen);
  if (!check.ok) throw new InputError(where, `bad FEN "${fen}": ${check.error}`);
}

/**
 * Where each EPD opening was read (`file:line`). Whether its game is already over is checked
 * when it is first used (`playable`), not at load: that takes a move generation per
 * position, 5–10 s for the 50,000 of the default book, on every `compete` and worker start.
 */
const origins = new WeakMap<Opening, string>();
const playableOpenings = new WeakSet<Opening>();

/** The opening, if its game is not already over; else InputError naming its file and line. */
export function playable(opening: Opening): Opening {
  if (playableOpenings.has(opening)) return opening;
  if (new Position(opening.fen).end())
    throw new InputError(origins.get(opening) ?? "book", `the game is already over in "${opening.fen}"`);
  playableOpenings.add(opening);
  return opening;
}

/** PGN: the position after the first `plies` plies (default all) of each game. */
export function parsePgnBook(text: string, file: string, plies?: number): Opening[] {
  return splitPgnGames(text).map(({ text: game, line }) => {
    const where = `${file}:${line}`;
    const chess = new Chess();
    try {
      chess.loadPgn(game);
    } catch (error) {
      throw new InputError(where, `bad PGN game: ${(error as Error).message}`);
    }
    const played = chess.history().length;
    if (plies !== undefined) for (let undo = played - plies; undo > 0; undo--) chess.undo();
    const fen = chess.fen();
    checkFen(fen, where);
    const headers = chess.getHeaders();
    const name = [headers.Opening, headers.Variation].filter((part) => part && part !== "?").join(", ") || headers.ECO;
    const opening = name ? { fen, name } : { fen };
    origins.set(opening, where);
    return opening;
  });
}

/**
 * Splits a PGN file into games, each with the line it starts on (1-based), comments in the
 * moves cut to `MAX_PGN_COMMENT` characters (nothing here reads them; chess.js's parser took
 * 460 MB for one 20 MB comment).
 */
export function splitPgnGames(text: string): { text: string; line: number }[] {
  const games: { text: string; line: number }[] = [];
  let tags: string[] = [];
  let moves: string[] = [];
  let startLine = 0;
  const flush = () => {
    if (startLine !== 0) games.push({ text: [...tags, boundComments(moves.join("\n"))].join("\n"), line: startLine });
    tags = [];
    moves = [];
    startLine = 0;
  };
  text.split("\n").forEach((line, index) => {
    const isTag = line.startsWith("[");
    const blank = line.trim() === "";
    if (isTag && moves.length > 0) flush();
    if (!blank && startLine === 0) startLine = index + 1;
    if (moves.length > 0 || (!blank && !isTag)) moves.push(line);
    else tags.push(line);
  });
  flush();
  return games;
}

/** Longest PGN comment kept; the rest of a longer one is dropped. */
export const MAX_PGN_COMMENT = 4096;

/** PGN move text with each `{…}` and `; …` comment cut to `MAX_PGN_COMMENT` characters, in one pass. */
export function boundComments(moves: string): string {
  const parts: string[] = [];
  // The next `{` and `;` at or after i (-1: none left), searched again only once passed.
  let brace = moves.indexOf("{");
  let semicolon = moves.indexOf(";");
  let i = 0;
  for (;;) {
    if (brace !== -1 && brace < i) brace = moves.indexOf("{", i);
    if (semicolon !== -1 && semicolon < i) semicolon = moves.indexOf(";", i);
    const open = brace === -1 ? semicolon : semicolon === -1 ? brace : Math.min(brace, semicolon);
    if (open === -1) break;
    const close = moves.indexOf(moves[open] === "{" ? "}" : "\n", open);
    const end = close === -1 ? moves.length : close;
    parts.push(moves.slice(i, Math.min(end, open + 1 + MAX_PGN_COMMENT)));
    i = end;
  }
  parts.push(moves.slice(i));
  return parts.join("");
}

/** Picks a random opening. */
export function pickOpening(book: Book, rng: Rng): Opening {
  return playable(book.at(Math.floor(rng.next() * book.length))!);
}

/**
 * The opening followed by `plies` uniformly random legal moves, for varied games (Texel
 * data: a deterministic engine replays the same game from the same position). A walk that
 * ends the game is drawn again; after 100 such walks the opening is used as it is.
 */
export function withRandomPlies(opening: Opening, plies: number, rng: Rng): Opening {
  for (let attempt = 0; attempt < 100; attempt++) {
    const chess = new Chess(opening.fen);
    for (let ply = 0; ply < plies && !chess.isGameOver(); ply++) {
      const moves = chess.moves();
      chess.move(moves[Math.floor(rng.next() * moves.length)]!);
    }
    const fen = chess.fen();
    if (!new Position(fen).end()) {
      const name = `${opening.name ?? "book"} + ${plies} random plies`;
      return { fen, name };
    }
  }
  return opening;
}

/**
 * The book's openings in a seeded order that repeats none until all are used: index i of the
 * sequence is opening `order(i)`. Each pass over the book (i / size) is its own shuffle of
 * `${key}:${pass}`, so anyone with the key and an index (a worker with its run's seed and a
 * batch's game offset) finds the same opening without asking anyone.
 */
export function openingOrder(size: number, key: string): (index: number) => number {
  let pass = -1;
  let permutation: Readonly<Uint32Array> = new Uint32Array(0);
  return (index) => {
    const wanted = Math.floor(index / size);
    if (wanted !== pass) {
      pass = wanted;
      permutation = passOrder(size, `${key}:${pass}`);
    }
    return permutation[index - pass * size]!;
  };
}

/**
 * The shuffles made last, by size and seed: a worker asks for its run's order at every batch, and
 * a shuffle of the default book's 50,000 openings costs it about 5 ms. A few runs at once fit.
 */
const recentOrders = new Map<string, Uint32Array>();
const RECENT_ORDERS = 4;

/** 0 … size−1 shuffled with the seed `seed` (the same every time: shared, never written to). */
function passOrder(size: number, seed: string): Readonly<Uint32Array> {
  const key = `${size}:${seed}`;
  let order = recentOrders.get(key);
  if (order === undefined) {
    order = shuffled(size, createRng(seed));
    if (recentOrders.size >= RECENT_ORDERS) recentOrders.delete(recentOrders.keys().next().value!);
  }
  recentOrders.delete(key);
  recentOrders.set(key, order);
  return order;
}

/**
 * The openings of a batch of `units` game units (a pair, or reference mode's two pairs on one
 * opening) of `unitGames` games each, whose first game is game `firstGame` of its run: unit u
 * plays opening `floor(firstGame / unitGames) + u` of the run's order (`openingOrder` keyed
 * by the run's seed), checked playable. Batches at different offsets of a run never share an
 * opening until the book is used up, whichever workers play them.
 */
export function runOpenings(
  book: Book,
  runSeed: string,
  firstGame: number,
  units: number,
  unitGames: number,
): Opening[] {
  const order = openingOrder(book.length, runSeed);
  const firstUnit = Math.floor(firstGame / unitGames);
  return Array.from({ length: units }, (_, u) => playable(book.at(order(firstUnit + u))!));
}

/** 0 … size−1 in a Fisher–Yates shuffle drawn from `rng`. */
function shuffled(size: number, rng: Rng): Uint32Array {
  const order = Uint32Array.from({ length: size }, (_, i) => i);
  for (let i = size - 1; i > 0; i--) {
    const j = Math.floor(rng.next() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return order;
}

/** Openings in book order from `start`, wrapping around: for `--book-order sequential`. */
export function sequentialOpenings(book: Book, start = 0): () => Opening {
  let next = start;
  return () => playable(book.at(next++ % book.length)!);
}
