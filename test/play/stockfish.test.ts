import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Chess } from "chess.js";
import { describe, expect, it } from "vitest";
import { matchCommand } from "../../src/commands/match.js";
import { splitPgnGames } from "../../src/play/book.js";

const STOCKFISH = "/usr/games/stockfish";

// A real engine nobody here wrote (Debian's stockfish; CI installs it).
describe.skipIf(!existsSync(STOCKFISH))("stockfish match", () => {
  it("plays a short match at 20-40 ms per move with no forfeit caused by the runner; results add up; the PGN parses back", async () => {
    const pgn = join(mkdtempSync(join(tmpdir(), "compete-")), "match.pgn");
    const printed: string[] = [];
    const spec = (name: string) => ({ name, path: STOCKFISH, options: { Hash: 8, Threads: 1 } });
    const { tally } = await matchCommand({
      engineA: spec("sf-a"),
      engineB: spec("sf-b"),
      games: 4,
      concurrency: 2,
      timelow: 0.02,
      timehigh: 0.04,
      // Stockfish itself overshoots by tens of ms on a busy machine (docs/design-notes.md): the margin covers that.
      timeMarginMs: 100,
      adjudication: { maxMoves: 60, resign: { moveCount: 3, score: 600 }, draw: { moveNumber: 30, moveCount: 4, score: 15 } },
      pgn,
      seed: "stockfish-test",
      print: (text) => printed.push(text),
    });
    expect(tally.games).toBe(4);
    expect(tally.wins + tally.losses + tally.draws).toBe(4);
    expect(tally.pairs.reduce((a, b) => a + b)).toBe(2);
    expect(tally.pairs[1] + 2 * tally.pairs[2] + 3 * tally.pairs[3] + 4 * tally.pairs[4]).toBe(2 * tally.wins + tally.draws);
    for (const faults of tally.faults) expect(faults).toMatchObject({ crash: 0, illegal: 0, garbage: 0, startup: 0 });
    // A loaded machine can make stockfish itself overshoot; a forfeit is the runner's fault only if
    // the time it measured exceeds what the engine reported by more than scheduling noise.
    for (const [reason] of tally.reasons) {
      const forfeit = /time forfeit \((\d+) ms of \d+ allowed, engine reported (\d+) ms\)/.exec(reason);
      if (reason.includes("time forfeit")) expect(forfeit, reason).not.toBeNull();
      if (forfeit) expect(Number(forfeit[1]) - Number(forfeit[2]), reason).toBeLessThan(50);
    }
    expect(printed.join("\n")).toMatch(/sf-a vs sf-b: 4 games/);

    const games = splitPgnGames(readFileSync(pgn, "utf8"));
    expect(games).toHaveLength(4);
    const results = games.map(({ text }) => {
      const chess = new Chess();
      chess.loadPgn(text);
      const headers = chess.getHeaders();
      expect(chess.history().length).toBe(Number(headers.PlyCount));
      expect(chess.getComments().length).toBe(chess.history().length);
      return headers.Result;
    });
    const whiteA = (i: number) => i % 2 === 0;
    const aWins = results.filter((r, i) => (whiteA(i) ? r === "1-0" : r === "0-1")).length;
    expect(aWins).toBe(tally.wins);
    expect(results.filter((r) => r === "1/2-1/2").length).toBe(tally.draws);
  });
});
