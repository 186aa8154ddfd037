import { describe, expect, it } from "vitest";
import { Position } from "../../src/play/position.js";

const play = (position: Position, moves: string) => moves.split(" ").map((uci) => position.play(uci, true));

describe("position", () => {
  it("plays UCI moves with SAN, including castling, en passant and promotion", () => {
    const position = new Position();
    expect(play(position, "e2e4 d7d5 e4e5 f7f5 e5f6 g8f6 g1f3 e7e6 f1e2 f8e7 e1g1")).toEqual([
      "e4",
      "d5",
      "e5",
      "f5",
      "exf6",
      "Nxf6",
      "Nf3",
      "e6",
      "Be2",
      "Be7",
      "O-O",
    ]);
    expect(new Position("8/P6k/8/8/8/8/8/K7 w - - 0 1").play("a7a8q", true)).toBe("a8=Q");
  });

  it("refuses illegal moves: into check, a pinned piece, castling through check, a wrong promotion", () => {
    expect(new Position().play("e2e5", false)).toBeUndefined();
    expect(new Position("4k3/8/8/8/8/8/3r4/4K3 w - - 0 1").play("e1d1", false)).toBeUndefined(); // still on the rook's file
    expect(new Position("4k3/8/8/8/8/8/3r4/4K3 w - - 0 1").play("e1d2", true)).toBe("Kxd2");
    expect(new Position("4k3/8/8/8/8/8/8/3rK3 w - - 0 1").play("e1f1", false)).toBeUndefined(); // along the checking rank
    expect(new Position("4k3/8/8/8/8/8/8/3r1K2 w - - 0 1").play("f1e1", false)).toBeUndefined(); // into check
    expect(new Position("4r1k1/8/8/8/8/8/4B3/4K3 w - - 0 1").play("e2d3", false)).toBeUndefined(); // pinned
    expect(new Position("4k3/8/8/8/8/8/8/4K2R w K - 0 1").play("e1g1", false)).toBe("");
    expect(new Position("4k3/8/8/8/8/8/5r2/4K2R w K - 0 1").play("e1g1", false)).toBeUndefined(); // through check
    expect(new Position("8/P6k/8/8/8/8/8/K7 w - - 0 1").play("a7a8", false)).toBeUndefined();
  });

  it("finds mate, stalemate, insufficient material, threefold repetition and the fifty-move rule", () => {
    const mate = new Position();
    play(mate, "f2f3 e7e5 g2g4 d8h4");
    expect(mate.end()).toEqual({ result: "0-1", reason: "black mates" });
    const stalemate = new Position("7k/5Q2/6K1/8/8/8/8/8 w - - 0 1");
    play(stalemate, "g6h6");
    expect(stalemate.end()).toEqual({ result: "1/2-1/2", reason: "stalemate" });
    const bare = new Position("4k3/8/8/8/8/8/3r4/4K3 w - - 0 1");
    play(bare, "e1d2");
    expect(bare.end()).toEqual({ result: "1/2-1/2", reason: "insufficient material" });
    const repeat = new Position();
    play(repeat, "g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3g1");
    expect(repeat.end()).toBeUndefined();
    play(repeat, "f6g8");
    expect(repeat.end()).toEqual({ result: "1/2-1/2", reason: "threefold repetition" });
    const fifty = new Position("4k3/8/8/8/8/8/8/R3K3 w - - 99 80");
    play(fifty, "a1a2");
    expect(fifty.end()).toEqual({ result: "1/2-1/2", reason: "fifty-move rule" });
    expect(fifty.fullMoveNumber).toBe(80);
    expect(fifty.sideToMove).toBe(1);
  });
});
