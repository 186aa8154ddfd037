import { createRequire } from "node:module";
import { Chess, DEFAULT_POSITION, type Square } from "chess.js";
import { describe, expect, it } from "vitest";
import { missingChessInternals, Position, type GameEnd } from "../../src/play/position.js";
import { createRng } from "../../src/core/rng.js";

// src/play/position.ts calls chess.js's private methods for speed (see src/play/README.md).
// These tests fail, with this message, when a chess.js upgrade changes what it relies on.
const { version } = createRequire(import.meta.url)("chess.js/package.json") as { version: string };
const CHANGED = `chess.js ${version} changed internals that src/play/position.ts relies on (written for 1.4.0; see src/play/README.md)`;

/** What chess.js's public API says about the end of the game, in Position's terms. */
function publicEnd(chess: Chess): GameEnd | undefined {
  if (chess.isCheckmate())
    return chess.turn() === "w" ? { result: "0-1", reason: "black mates" } : { result: "1-0", reason: "white mates" };
  if (chess.isStalemate()) return { result: "1/2-1/2", reason: "stalemate" };
  if (chess.isInsufficientMaterial()) return { result: "1/2-1/2", reason: "insufficient material" };
  if (chess.isThreefoldRepetition()) return { result: "1/2-1/2", reason: "threefold repetition" };
  if (chess.isDrawByFiftyMoves()) return { result: "1/2-1/2", reason: "fifty-move rule" };
  return undefined;
}

/** The start, and endgames where random play soon mates, stalemates, runs out of material or repeats. */
const STARTS = [
  DEFAULT_POSITION,
  "4k3/8/8/8/8/8/8/R3K3 w Q - 0 1",
  "8/8/4k3/8/8/8/4P3/4K3 w - - 0 1",
  "4k3/8/8/8/8/8/2n5/R3K2R w KQ - 0 1",
  "r3k3/1p6/8/8/8/8/6P1/4K2R b Kq - 0 40",
  "7k/5Q2/8/8/8/8/8/K7 w - - 90 80",
];

const SQUARES = Array.from({ length: 64 }, (_, i) => `${"abcdefgh"[i % 8]}${Math.floor(i / 8) + 1}`);

describe("chess.js internals used by Position", () => {
  it("are all present in the installed chess.js", () => {
    expect(missingChessInternals(), `${CHANGED}: missing private methods`).toEqual([]);
  });

  it("give the same legal moves, SAN and game ends as chess.js's public API, over random games", () => {
    const rng = createRng("chess-internals");
    let plies = 0;
    const ends = new Set<string>();
    for (let game = 0; game < 24; game++) {
      const start = STARTS[game % STARTS.length];
      const reference = new Chess(start);
      const position = new Position(start);
      for (let ply = 0; ply < 200; ply++) {
        // A few moves that are not legal here must be refused (and leave the position as it was).
        for (let tries = 0; tries < 3; tries++) {
          const [from, to] = [SQUARES[Math.floor(rng.next() * 64)]!, SQUARES[Math.floor(rng.next() * 64)]!];
          const legal = reference
            .moves({ square: from as Square, verbose: true })
            .some((m) => m.to === to && !m.promotion);
          if (!legal)
            expect(
              position.play(from + to, false),
              `${CHANGED}: ${from}${to} accepted in ${reference.fen()}`,
            ).toBeUndefined();
        }
        const sans = reference.moves();
        const move = reference.move(sans[Math.floor(rng.next() * sans.length)]!);
        const uci = move.from + move.to + (move.promotion ?? "");
        expect(position.play(uci, true), `${CHANGED}: SAN of ${uci} in ${move.before}`).toBe(move.san);
        plies++;
        const end = publicEnd(reference);
        expect(position.end(), `${CHANGED}: end of the game after ${reference.fen()}`).toEqual(end);
        expect(position.sideToMove, CHANGED).toBe(reference.turn() === "w" ? 0 : 1);
        if (end) {
          ends.add(end.reason);
          break;
        }
      }
    }
    expect(plies).toBeGreaterThan(1_000);
    // The endgame starts make the games end in several ways, so those checks are exercised.
    expect(ends.size, [...ends].join(", ")).toBeGreaterThanOrEqual(3);
  });

  it("count repeated positions as chess.js does (threefold repetition)", () => {
    const reference = new Chess();
    const position = new Position();
    const seen: (GameEnd | undefined)[] = [];
    for (const uci of "g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3g1 f6g8".split(" ")) {
      reference.move(uci);
      expect(position.play(uci, false), `${CHANGED}: ${uci}`).toBe("");
      expect(position.end(), `${CHANGED}: end of the game after ${reference.fen()}`).toEqual(publicEnd(reference));
      seen.push(position.end());
    }
    expect(seen.at(-1)).toEqual({ result: "1/2-1/2", reason: "threefold repetition" });
  });
});
