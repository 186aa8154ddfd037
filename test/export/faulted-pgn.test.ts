import { Chess } from "chess.js";
import { describe, expect, it } from "vitest";
import type { FaultedGameRow } from "../../src/db/faulted-games.js";
import { faultedGamesPgn } from "../../src/export/faulted-pgn.js";
import { printable, printableLines } from "../../src/core/printable.js";

describe("worker and engine text, made safe for a terminal", () => {
  it("shows every control character as \\xNN; text of several lines keeps its line breaks and tabs", () => {
    expect(printable("box\u001b]0;title\u0007\u001b[2J")).toBe("box\\x1b]0;title\\x07\\x1b[2J");
    expect(printable("a\nb\u009b")).toBe("a\\x0ab\\x9b");
    expect(printableLines("1. e4\te5\r\n2. Nf3 \u001b]52;c;eA==\u0007")).toBe("1. e4\te5\n2. Nf3 \\x1b]52;c;eA==\\x07");
  });

  it("writes a faulted game whose stored text holds escape sequences as a PGN that prints nothing but text and still reads", () => {
    const row = {
      iteration: 3,
      workerName: "box\u001b[2J",
      side: "plus",
      fault: "crash",
      reason: "exited \u001b]0;pwned\u0007",
      pgn: '[Event "x"]\n[Result "0-1"]\n\n1. e4 {\u001b]52;c;cHduZWQ=\u0007} e5 0-1\n',
      plusParameters: { X: 1 },
      minusParameters: { X: 0 },
      plusEngineSha256: "a".repeat(64),
      minusEngineSha256: "b".repeat(64),
    } as unknown as FaultedGameRow;
    const pgn = faultedGamesPgn("run", [row]);
    expect([...pgn].filter((c) => c < " " && c !== "\n" && c !== "\t")).toEqual([]);
    expect(pgn).toContain('[Worker "box\\\\x1b[2J"]');
    const chess = new Chess();
    chess.loadPgn(pgn);
    expect(chess.history()).toEqual(["e4", "e5"]);
    expect(chess.getHeaders().FaultReason).toContain("x1b]0;pwned");
  });
});
