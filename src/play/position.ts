import { Chess, DEFAULT_POSITION } from "chess.js";
import type { Color } from "../types/play.js";

/** The standard starting position's FEN (chess.js's DEFAULT_POSITION, under the one name this code uses). */
export const START_FEN: string = DEFAULT_POSITION;

/**
 * chess.js internals used on the hot path (see src/play/README.md). chess.js is pinned to
 * 1.4.0 in package.json, and test/play/chess-internals.test.ts checks these methods and
 * what they do, so an upgrade that changes them fails that test by name.
 */
interface InternalMove {
  from: number;
  to: number;
  captured?: string;
  promotion?: string;
}
interface ChessInternals {
  _moves(options?: { legal?: boolean; square?: string }): InternalMove[];
  _moveToSan(move: InternalMove, moves: InternalMove[]): string;
  _makeMove(move: InternalMove): void;
  _undoMove(): unknown;
  _isKingAttacked(color: "w" | "b"): boolean;
  _incPositionCount(): void;
  /** The kings' 0x88 squares (-1 when a side has none). */
  _kings: Record<"w" | "b", number>;
}

export const CHESS_INTERNALS = [
  "_moves",
  "_moveToSan",
  "_makeMove",
  "_undoMove",
  "_isKingAttacked",
  "_incPositionCount",
] as const;

/** The chess.js internals this module uses that the installed chess.js lacks (empty when all are there). */
export function missingChessInternals(): string[] {
  const prototype = Chess.prototype as unknown as Record<string, unknown>;
  const missing: string[] = CHESS_INTERNALS.filter((name) => typeof prototype[name] !== "function");
  if (typeof (new Chess() as unknown as Partial<ChessInternals>)._kings?.w !== "number") missing.push("_kings");
  return missing;
}

export interface GameEnd {
  result: "1-0" | "0-1" | "1/2-1/2";
  reason: string;
}

/** Algebraic square (`e2`) to chess.js's 0x88 index (a8 = 0, h1 = 119). */
function square(uci: string, at: number): number {
  return (56 - uci.charCodeAt(at + 1)) * 16 + (uci.charCodeAt(at) - 97);
}

/** chess.js's 0x88 index to an algebraic square (`e2`). */
function algebraic(index: number): string {
  return `${"abcdefgh"[index & 15]}${8 - (index >> 4)}`;
}

/**
 * The board of one game, through chess.js. Its public `move()` builds a Move object (two
 * FENs, SAN, a second full legal move generation) and `isGameOver()` generates every legal
 * move again: 0.125 ms per ply. Here each ply generates only what it needs, pseudo-legal
 * moves of one square at a time where it can (the engine's move from its square; then the
 * king's moves, and all moves only when the king has no legal one, to rule out mate and
 * stalemate), with chess.js's own make/undo and attack test: same rules, a fraction of
 * the work.
 */
export class Position {
  private readonly chess: Chess;
  private readonly internals: ChessInternals;
  /**
   * Whether the last move captured or promoted: only such a move can leave insufficient
   * material (chess.js scans the whole board for it), so other plies skip the scan.
   */
  private materialChanged = true;

  constructor(fen: string = START_FEN) {
    this.chess = new Chess(fen);
    this.internals = this.chess as unknown as ChessInternals;
  }

  /** 0 when white is to move, 1 for black. */
  get sideToMove(): Color {
    return this.chess.turn() === "w" ? 0 : 1;
  }

  get fullMoveNumber(): number {
    return this.chess.moveNumber();
  }

  /**
   * Plays a UCI move (`e2e4`, `e7e8q`) if legal. Returns its SAN when `san` is asked for,
   * "" otherwise, or undefined when the move is illegal.
   */
  play(uci: string, san: boolean): string | undefined {
    const from = square(uci, 0);
    const to = square(uci, 2);
    const promotion = uci.length > 4 ? uci[4] : undefined;
    const move = this.internals
      ._moves({ legal: false, square: uci.slice(0, 2) })
      .find((m) => m.from === from && m.to === to && m.promotion === promotion);
    if (!move || !this.tryMove(move)) return undefined;
    let text = "";
    if (san) {
      this.internals._undoMove(); // SAN is written from the position before the move
      text = this.internals._moveToSan(move, this.internals._moves({ legal: true }));
      this.internals._makeMove(move);
    }
    this.internals._incPositionCount();
    this.materialChanged = move.captured !== undefined || move.promotion !== undefined;
    return text;
  }

  /** Makes a pseudo-legal move; undoes it and returns false if it leaves the mover in check. */
  private tryMove(move: InternalMove): boolean {
    const us = this.chess.turn();
    this.internals._makeMove(move);
    if (!this.internals._isKingAttacked(us)) return true;
    this.internals._undoMove();
    return false;
  }

  private anyLegal(moves: InternalMove[]): boolean {
    return moves.some((move) => {
      const legal = this.tryMove(move);
      if (legal) this.internals._undoMove();
      return legal;
    });
  }

  /** The king's moves first: it usually has a legal one, and they cost far less to generate than all moves. */
  private hasLegalMove(): boolean {
    const king = this.internals._kings[this.chess.turn()];
    if (king !== -1 && this.anyLegal(this.internals._moves({ legal: false, square: algebraic(king) }))) return true;
    return this.anyLegal(this.internals._moves({ legal: false }));
  }

  /** Mate, stalemate and the draw rules, after the last move played. */
  end(): GameEnd | undefined {
    if (!this.hasLegalMove()) {
      if (!this.chess.isCheck()) return { result: "1/2-1/2", reason: "stalemate" };
      return this.sideToMove === 0
        ? { result: "0-1", reason: "black mates" }
        : { result: "1-0", reason: "white mates" };
    }
    if (this.materialChanged && this.chess.isInsufficientMaterial())
      return { result: "1/2-1/2", reason: "insufficient material" };
    if (this.chess.isThreefoldRepetition()) return { result: "1/2-1/2", reason: "threefold repetition" };
    if (this.chess.isDrawByFiftyMoves()) return { result: "1/2-1/2", reason: "fifty-move rule" };
    return undefined;
  }
}
