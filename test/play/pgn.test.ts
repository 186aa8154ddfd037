import { Chess } from "chess.js";
import { describe, expect, it } from "vitest";
import { formatPgn } from "../../src/play/pgn.js";
import type { GameResult } from "../../src/play/game.js";
import { START_FEN } from "../../src/play/position.js";

const game = (overrides: Partial<GameResult> = {}): GameResult => ({
  white: "alpha",
  black: 'beta "2"',
  opening: { fen: START_FEN },
  limits: { movetimeMs: 50 },
  result: "0-1",
  reason: "black mates",
  plies: 4,
  faults: { white: "none", black: "none" },
  moves: [
    { uci: "f2f3", san: "f3", elapsedMs: 51.2, score: -20, depth: 9 },
    { uci: "e7e5", san: "e5", elapsedMs: 49.9, score: 30 },
    { uci: "g2g4", san: "g4", elapsedMs: 50 },
    { uci: "d8h4", san: "Qh4#", elapsedMs: 12, score: 99_999, depth: 1 },
  ],
  ...overrides,
});
const context = { event: "test", round: 3, date: new Date("2025-01-02T03:04:05Z") };

describe("PGN output", () => {
  it("writes tags, moves with score and time comments, and the reason", () => {
    const text = formatPgn(game(), context);
    expect(text).toContain('[Black "beta \\"2\\""]\n');
    expect(text).toContain('[Date "2025.01.02"]');
    expect(text).toContain('[Termination "normal"]');
    expect(text.replace(/\n/g, " ")).toContain(
      "1. f3 {-0.20/9 0.051s} e5 {+0.30 0.050s} 2. g4 {0.050s} Qh4# {+M1/1 0.012s, black mates} 0-1",
    );
    expect(text).toMatch(/0-1\n\n$/);
  });

  it("parses back with chess.js, from a FEN start with black to move", () => {
    const fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
    const text = formatPgn(
      game({
        black: "beta",
        opening: { fen, name: "King's Pawn" },
        limits: { tc: { baseMs: 10_000, incMs: 100 } },
        result: "1-0",
        reason: "black: time forfeit (130 ms)",
        faults: { white: "none", black: "timeout" },
        plies: 2,
        moves: [
          { uci: "e7e5", san: "e5", elapsedMs: 10 },
          { uci: "g1f3", san: "Nf3", elapsedMs: 10 },
        ],
      }),
      context,
    );
    expect(text).toContain("1... e5 {0.010s} 2. Nf3 {0.010s, black: time forfeit (130 ms)} 1-0");
    expect(text).toContain('[TimeControl "10+0.1"]');
    expect(text).toContain('[Termination "time forfeit"]');
    const chess = new Chess();
    chess.loadPgn(text);
    expect(chess.history()).toEqual(["e5", "Nf3"]);
    expect(chess.getHeaders()).toMatchObject({ FEN: fen, Opening: "King's Pawn", Result: "1-0" });
  });

  it("writes the reason alone for a game without moves", () => {
    const text = formatPgn(
      game({ black: "beta", moves: [], plies: 0, reason: "white: engine failed to start (x)", result: "0-1" }),
      context,
    );
    expect(text).toMatch(/\n\n\{white: engine failed to start \(x\)\} 0-1\n\n$/);
    expect(() => new Chess().loadPgn(text)).not.toThrow();
  });

  it("wraps long movetext below 80 columns", () => {
    const moves = Array.from({ length: 40 }, (_, i) => ({
      uci: "g1f3",
      san: i % 2 ? "Nf6" : "Nf3",
      elapsedMs: 1234.5,
      score: 5,
    }));
    const text = formatPgn(game({ moves, plies: 40 }), context);
    for (const line of text.split("\n")) expect(line.length).toBeLessThan(80);
  });
});
