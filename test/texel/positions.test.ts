import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Chess } from "chess.js";
import { describe, expect, it } from "vitest";
import { InputError } from "../../src/core/errors.js";
import { seededRng } from "../../src/core/rng.js";
import { deduplicate, extractPositions, formatPositions, parsePositions, shuffle } from "../../src/texel/positions.js";
import { ROOT } from "../support/cli.js";

const PGN_FILE = join(ROOT, "test", "fixtures", "books", "rusty-rival-match.pgn");
const PGN = readFileSync(PGN_FILE, "utf8");

const TWO_GAMES = `[Event "a"]
[Result "1-0"]

1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0

[Event "b"]
[Result "*"]

1. d4 d5 *
`;

describe("texel-data positions", () => {
  it("labels each position after the skipped plies with white's result, leaving out checks, mates and unfinished games", () => {
    const { positions, games } = extractPositions(TWO_GAMES, "two.pgn", { skipPlies: 2 });
    expect(games).toBe(1);
    // Plies 3..6 of game a; the last (Qxf7#) is mate and left out.
    expect(positions.map((p) => p.fen.split(" ")[0])).toEqual([
      "rnbqkbnr/pppp1ppp/8/4p2Q/4P3/8/PPPP1PPP/RNB1KBNR",
      "r1bqkbnr/pppp1ppp/2n5/4p2Q/4P3/8/PPPP1PPP/RNB1KBNR",
      "r1bqkbnr/pppp1ppp/2n5/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR",
      "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR",
    ]);
    expect(positions.every((p) => p.result === 1)).toBe(true);
  });

  it("reads a real match PGN: no position in check, labels from each game's Result", () => {
    const { positions, games } = extractPositions(PGN, PGN_FILE, { skipPlies: 8 });
    expect(games).toBe(100);
    expect(positions.length).toBeGreaterThan(5000);
    for (const p of positions.slice(0, 2000)) expect(new Chess(p.fen).inCheck(), p.fen).toBe(false);
    expect(new Set(positions.map((p) => p.result))).toEqual(new Set([0, 0.5, 1]));
  });

  it("deduplicates on the position without move counters and shuffles the same way for the same seed", () => {
    const a = { fen: "8/8/8/8/8/8/8/K6k w - - 0 1", result: 1 };
    const b = { fen: "8/8/8/8/8/8/8/K6k w - - 7 40", result: 0 };
    const c = { fen: "8/8/8/8/8/8/8/K6k b - - 0 1", result: 0.5 };
    expect(deduplicate([a, b, c])).toEqual([a, c]);
    const items = Array.from({ length: 50 }, (_, i) => i);
    const once = shuffle([...items], seededRng("s"));
    expect(shuffle([...items], seededRng("s"))).toEqual(once);
    expect(once).not.toEqual(items);
    expect([...once].sort((x, y) => x - y)).toEqual(items);
  });

  it("writes and reads the seed's FEN [result] format; a bad line is named", () => {
    const positions = [
      { fen: "8/8/8/8/8/8/8/K6k w - - 0 1", result: 0.5 },
      { fen: "8/8/8/8/8/8/8/K5qk b - - 3 9", result: 0 },
    ];
    const text = formatPositions(positions);
    expect(text).toBe("8/8/8/8/8/8/8/K6k w - - 0 1 [0.5]\n8/8/8/8/8/8/8/K5qk b - - 3 9 [0.0]\n");
    expect(parsePositions(text, "p.epd")).toEqual(positions);
    expect(() => parsePositions(`${text}8/8/8 w [2.0]\n`, "p.epd")).toThrow(InputError);
    expect(() => parsePositions(`${text}8/8/8 w [2.0]\n`, "p.epd")).toThrow(/^p\.epd:3: expected/);
    // The line has the shape of a FEN but no board: refused here, not by the engine.
    expect(() => parsePositions(`${text}\nrnbqkbnr/pppp/8 w KQkq - 0 1 [1.0]\n`, "p.epd")).toThrow(
      /^p\.epd:4: bad FEN "rnbqkbnr\/pppp\/8 w KQkq - 0 1": /,
    );
  });
});
