import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync, gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { START_FEN } from "../../src/play/position.js";
import {
  bookOpenings,
  defaultBookPath,
  isShippedBook,
  loadBook,
  openingOrder,
  pickOpening,
  playable,
  resolveBook,
  runOpenings,
  SHIPPED_BOOK_DIGESTS,
  sequentialOpenings,
  withRandomPlies,
} from "../../src/play/book.js";
import { seededRng } from "../../src/core/rng.js";
import { boundComments, epdOperations, MAX_PGN_COMMENT, parseEpdBook, shippedBook } from "../../src/play/book.js";
import { Position } from "../../src/play/position.js";
import { InputError } from "../../src/core/errors.js";

const books = (name: string) => fileURLToPath(new URL(`../fixtures/books/${name}`, import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), "book-test-"));
const write = (name: string, text: string) => {
  const file = join(scratch, name);
  writeFileSync(file, text);
  return file;
};
/** The book's openings as an array (a shipped book's all parsed). */
const openingsOf = (...args: Parameters<typeof loadBook>) => bookOpenings(loadBook(...args));

describe("opening books", () => {
  it("reads EPD with opcodes (chess-compete)", () => {
    const book = openingsOf(books("chess-compete-openings-50.epd"));
    expect(book).toHaveLength(50);
    expect(book[0]).toEqual({
      fen: "rnbqkb1r/pp2pppp/3p1n2/8/3NP3/2N5/PPP2PPP/R1BQKB1R b KQkq - 1 5",
      name: "Sicilian Open",
    });
  });

  it("reads EPD operations in one pass: a quoted ';' stays in its operand, text after the last ';' is none", () => {
    expect(epdOperations('hmvc 3; id "a; b";  fmvn  7 ; c0 "x"; trailing words')).toEqual([
      ["hmvc", "3"],
      ["id", "a; b"],
      ["fmvn", "7"],
      ["c0", "x"],
    ]);
    // 80,000 words and no ';' (minutes with the old regex, see bench/hostile-inputs.mjs): no operation, the counters default.
    const line = `${START_FEN.split(" ").slice(0, 4).join(" ")} ${"word ".repeat(80_000)}\n`;
    expect(parseEpdBook(line, "long.epd")).toEqual([{ fen: START_FEN }]);
  });

  it("cuts PGN comments to MAX_PGN_COMMENT characters, braces and ';' alike, and the game still reads", () => {
    const long = "x".repeat(MAX_PGN_COMMENT + 10);
    const cut = "x".repeat(MAX_PGN_COMMENT);
    expect(boundComments(`1. e4 {${long}} e5 {short} 2. Nf3 ; ${long}\nNc6 {; not a line comment}`)).toBe(
      `1. e4 {${cut}} e5 {short} 2. Nf3 ; ${cut.slice(1)}\nNc6 {; not a line comment}`,
    );
    const file = write("long-comment.pgn", `[Event "{x"]\n[Result "*"]\n\n1. e4 {${long}} e5 2. Nf3 *\n`);
    expect(openingsOf(file)[0]!.fen).toBe("rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2");
  });

  it("reads EPD with move counters (fastchess) and with neither (noob 3 moves)", () => {
    const fastchess = openingsOf(books("fastchess-openings.epd"));
    expect(fastchess[0]).toEqual({ fen: "r1bqkb1r/pp3pp1/2nppn2/7p/3NP1PP/2N5/PPP2P2/R1BQKBR1 w Qkq - 0 9" });
    const noob = openingsOf(books("noob-3moves-100.epd"));
    expect(noob).toHaveLength(100);
    expect(noob[0]!.fen).toBe("rnbqkbnr/ppp2ppp/4p3/3p4/8/2N3PB/PPPPPP1P/R1BQK1NR w KQkq - 0 1");
  });

  it("reads PGN books: the position after the game, or after N plies", () => {
    const full = openingsOf(books("fastchess-openings.pgn"));
    expect(full.length).toBeGreaterThan(1);
    expect(full[0]).toEqual({ fen: "r1bqkb1r/ppp2pp1/5n1p/3P4/2P1p3/5N2/PPP2PPP/RNBQK2R w KQkq - 0 9", name: "C58" });
    const short = openingsOf(books("fastchess-openings.pgn"), { plies: 2 });
    expect(short[0]!.fen).toBe("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2");
  });

  it("reads a real match PGN with comments as a book", () => {
    const book = openingsOf(books("rusty-rival-match.pgn"), { plies: 16 });
    expect(book.length).toBeGreaterThan(50);
    expect(book[0]!.name).toBe("Caro-Kann, Advance Variation");
  });

  it("names the file and line of a bad FEN", () => {
    const file = write("bad.epd", `${START_FEN}\n\nrnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq -\n`);
    expect(() => openingsOf(file)).toThrow(InputError);
    expect(() => openingsOf(file)).toThrow(`${file}:3: bad FEN`);
    const short = write("short.epd", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w\n");
    expect(() => openingsOf(short)).toThrow(`${short}:1: bad EPD`);
  });

  it("names the file and line of a bad PGN game", () => {
    const file = write("bad.pgn", '[Event "a"]\n\n1. e4 e5 *\n\n[Event "b"]\n\n1. e4 e5 2. Ke3 *\n');
    expect(() => openingsOf(file)).toThrow(`${file}:5: bad PGN game`);
  });

  it("refuses an empty book, a missing file, and a position where the game is over", () => {
    expect(() => openingsOf(write("empty.epd", "\n# nothing\n"))).toThrow("the book has no openings");
    expect(() => openingsOf(join(scratch, "missing.epd"))).toThrow("cannot read the book");
    const mate = write("mate.epd", "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq -\n");
    // Found when the opening is used (a move generation per position: seconds for a large book at load).
    const [over] = openingsOf(mate);
    expect(() => playable(over!)).toThrow(`${mate}:1: the game is already over`);
    const [start] = parseEpdBook(`${START_FEN}\n`, "start.epd");
    expect(playable(start!)).toBe(start);
  });

  it("ships a default book of at least 50,000 distinct positions, and the named openings as `openings`", () => {
    const book = openingsOf(defaultBookPath());
    expect(defaultBookPath()).toMatch(/books\/balanced\.epd\.gz$/);
    expect(book.length).toBeGreaterThanOrEqual(50_000);
    // Distinct as positions: board, side to move, castling and en passant (not the move counters).
    expect(new Set(book.map((opening) => opening.fen.split(" ").slice(0, 4).join(" "))).size).toBe(book.length);
    // The shipped books' games are not over (workers trust them; a match checks what it plays).
    expect(book.every((opening) => playable(opening) === opening)).toBe(true);
    expect(isShippedBook(defaultBookPath()) && !isShippedBook(books("noob-3moves-100.epd"))).toBe(true);
    // Loaded without a check of each FEN (their bytes are the shipped digests), they are what a full check reads.
    for (const file of [defaultBookPath(), resolveBook("openings")]) {
      const bytes = readFileSync(file);
      expect(SHIPPED_BOOK_DIGESTS.has(createHash("sha256").update(bytes).digest("hex")), file).toBe(true);
      const text = (file.endsWith(".gz") ? gunzipSync(bytes) : bytes).toString("utf8");
      const checked = parseEpdBook(text, file);
      expect(openingsOf(file)).toEqual(checked);
      // Each line parsed when read, indexed as an array is.
      const lazy = loadBook(file);
      expect([lazy.at(-1), lazy.at(lazy.length), lazy.at(0.5)]).toEqual([checked.at(-1), undefined, undefined]);
    }
    const named = openingsOf(resolveBook("openings"));
    expect(named.length).toBeGreaterThanOrEqual(250);
    expect(named.every((opening) => opening.name && playable(opening) === opening)).toBe(true);
    expect(new Set(named.map((opening) => opening.fen)).size).toBe(named.length);
    expect(resolveBook(undefined)).toBe(defaultBookPath());
    expect(resolveBook("balanced")).toBe(defaultBookPath());
    expect(shippedBook("nonsense")).toBeUndefined();
    expect(resolveBook("nonsense.epd")).toBe("nonsense.epd");
  });

  it("reads a gzipped EPD or PGN book, and names the file of a bad one", () => {
    const gzipped = (name: string, fixture: string) => {
      const file = join(scratch, name);
      writeFileSync(file, gzipSync(readFileSync(books(fixture))));
      return file;
    };
    expect(openingsOf(gzipped("book.epd.gz", "chess-compete-openings-50.epd"))).toEqual(
      openingsOf(books("chess-compete-openings-50.epd")),
    );
    expect(openingsOf(gzipped("games.pgn.gz", "fastchess-openings.pgn"), { plies: 4 })).toEqual(
      openingsOf(books("fastchess-openings.pgn"), { plies: 4 }),
    );
    const broken = write("broken.epd.gz", "not gzip");
    expect(() => openingsOf(broken)).toThrow(`${broken}: cannot read the book`);
  });

  it("gives the batches of a run distinct openings until the book is used up, whichever worker claims which batch", () => {
    const book = openingsOf(books("noob-3moves-100.epd"));
    // Two iterations of 64 games in batches of 8 (games 0–127 of the run), claimed in any order: 64 pairs, 64 openings.
    const batches = [120, 0, 64, 8, 72, 16, 80, 24, 88, 32, 96, 40, 104, 48, 112, 56];
    const played = batches.flatMap((firstGame) => runOpenings(book, "seed-1", firstGame, 4, 2));
    expect(new Set(played).size).toBe(64);
    // Reference mode's units of four games (two pairs on one opening): game offsets 0–127 are 32 units.
    expect(new Set(batches.flatMap((firstGame) => runOpenings(book, "seed-1", firstGame, 2, 4))).size).toBe(32);
    // Past the book's 100 openings a new pass starts: games 0–399 play every opening twice.
    const all = Array.from({ length: 25 }, (_, b) => runOpenings(book, "seed-1", 16 * b, 8, 2)).flat();
    expect(new Set(all.slice(0, 100)).size).toBe(100);
    expect(new Set(all.slice(100, 200)).size).toBe(100);
    expect(runOpenings(book, "seed-2", 0, 8, 2)).not.toEqual(all.slice(0, 8));
  });

  it("orders a book in seeded passes that repeat no opening until all are used", () => {
    const order = openingOrder(7, "run-seed");
    const indexes = Array.from({ length: 21 }, (_, i) => order(i));
    for (let pass = 0; pass < 3; pass++)
      expect([...indexes.slice(7 * pass, 7 * pass + 7)].sort()).toEqual([0, 1, 2, 3, 4, 5, 6]);
    // Each pass is its own shuffle, and anyone with the key finds the same opening at an index, in any order of asking.
    expect(indexes.slice(0, 7)).not.toEqual(indexes.slice(7, 14));
    const other = openingOrder(7, "run-seed");
    expect([20, 3, 9].map(other)).toEqual([indexes[20], indexes[3], indexes[9]]);
    expect(Array.from({ length: 7 }, (_, i) => openingOrder(7, "another-seed")(i))).not.toEqual(indexes.slice(0, 7));
  });

  it("picks openings with a seeded RNG, or in order", () => {
    const book = openingsOf(books("fastchess-openings.epd"));
    const draw = (seed: string) =>
      Array.from(
        { length: 10 },
        (
          (rng) => () =>
            pickOpening(book, rng)
        )(seededRng(seed)),
      );
    expect(draw("a")).toEqual(draw("a"));
    expect(draw("a")).not.toEqual(draw("b"));
    const next = sequentialOpenings(book.slice(0, 3));
    expect([next(), next(), next(), next()]).toEqual([book[0], book[1], book[2], book[0]]);
  });

  it("adds random legal plies after an opening: seeded, varied, never a finished game", () => {
    const start = { fen: START_FEN, name: "start" };
    const walk = (seed: string) =>
      Array.from(
        { length: 50 },
        (
          (rng) => () =>
            withRandomPlies(start, 8, rng)
        )(seededRng(seed)),
      );
    const openings = walk("x");
    expect(openings).toEqual(walk("x"));
    expect(new Set(openings.map((opening) => opening.fen)).size).toBeGreaterThan(45);
    for (const opening of openings) {
      expect(opening.fen.split(" ")[5]).toBe("5"); // 8 plies from move 1: white to move at move 5
      expect(opening.name).toBe("start + 8 random plies");
      expect(new Position(opening.fen).end()).toBeUndefined();
    }
    // Fool's mate is one random walk away here; a walk that mates is drawn again.
    const nearMate = { fen: "rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq - 0 2" };
    const rng = seededRng("m");
    for (let i = 0; i < 200; i++) expect(new Position(withRandomPlies(nearMate, 1, rng).fen).end()).toBeUndefined();
  });
});
