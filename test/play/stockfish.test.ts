import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Chess } from "chess.js";
import { describe, expect, it } from "vitest";
import { matchCommand } from "../../src/commands/match.js";
import { splitPgnGames } from "../../src/play/book.js";

const STOCKFISH = "/usr/games/stockfish";
const ADJUDICATION = {
  maxMoves: 60,
  resign: { moveCount: 3, score: 600 },
  draw: { moveNumber: 30, moveCount: 4, score: 15 },
};

/** The mover's score in cp from a move comment (`+0.31/12 0.051s`, `-M3/20 0.040s`); mates count as ±100000. */
function scoreOf(comment: string): number | undefined {
  const match = /^([+-]?)(M?)(\d+(?:\.\d+)?)\//.exec(comment);
  if (!match) return undefined;
  const size = match[2] ? 100_000 : Math.round(Number(match[3]) * 100);
  return match[1] === "-" ? -size : size;
}

const lossOf = (color: string) => (color === "white" ? "0-1" : "1-0");

/** The game's result and Termination tag are what its reason says, and the final position or the scores bear the reason out. */
function expectEndingHolds(
  chess: Chess,
  game: { result: string; termination: string; reason: string; scores: (number | undefined)[] },
): void {
  const { result, termination, reason, scores } = game;
  const label = `${reason}: ${chess.pgn()}`;
  // Games start from book positions, so the board (not the ply count) says who moved last.
  const lastMover = chess.turn() === "w" ? "black" : "white";
  const moverScores = (n: number) => scores.filter((_, i) => (scores.length - 1 - i) % 2 === 0).slice(-n);
  const forfeit = /^(white|black): time forfeit/.exec(reason);
  const resign = /^adjudication: (white|black) resigns$/.exec(reason);
  if (forfeit) {
    expect([result, termination], label).toEqual([lossOf(forfeit[1]!), "time forfeit"]);
  } else if (resign) {
    expect([result, termination], label).toEqual([lossOf(resign[1]!), "adjudication"]);
    expect(lastMover, label).toBe(resign[1]);
    for (const score of moverScores(ADJUDICATION.resign.moveCount))
      expect(score, label).toBeLessThanOrEqual(-ADJUDICATION.resign.score);
  } else if (reason === "adjudication: draw") {
    expect([result, termination], label).toEqual(["1/2-1/2", "adjudication"]);
    for (const score of scores.slice(-2 * ADJUDICATION.draw.moveCount))
      expect(Math.abs(score ?? Infinity), label).toBeLessThanOrEqual(ADJUDICATION.draw.score);
    expect(chess.moveNumber(), label).toBeGreaterThanOrEqual(ADJUDICATION.draw.moveNumber);
  } else if (reason === "adjudication: max moves") {
    expect([result, termination, lastMover, chess.moveNumber() - 1], label).toEqual([
      "1/2-1/2",
      "adjudication",
      "black",
      ADJUDICATION.maxMoves,
    ]);
  } else {
    const position: Record<string, [string, boolean]> = {
      "white mates": ["1-0", chess.isCheckmate() && chess.turn() === "b"],
      "black mates": ["0-1", chess.isCheckmate() && chess.turn() === "w"],
      stalemate: ["1/2-1/2", chess.isStalemate()],
      "insufficient material": ["1/2-1/2", chess.isInsufficientMaterial()],
      "threefold repetition": ["1/2-1/2", chess.isThreefoldRepetition()],
      "fifty-move rule": ["1/2-1/2", chess.isDrawByFiftyMoves()],
    };
    expect(Object.keys(position), `unexpected reason: ${label}`).toContain(reason);
    expect([result, termination, true], label).toEqual([position[reason]![0], "normal", position[reason]![1]]);
  }
}

// A real engine nobody here wrote (Debian's stockfish; CI installs it).
describe.skipIf(!existsSync(STOCKFISH))("stockfish match", () => {
  it("plays a short match at 20-40 ms per move with no forfeit caused by the runner; each game ends as its final position or scores say; the tally follows from the PGN", async () => {
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
      adjudication: ADJUDICATION,
      pgn,
      seed: "stockfish-test",
      print: (text) => printed.push(text),
    });
    for (const faults of tally.faults) expect(faults).toMatchObject({ crash: 0, illegal: 0, garbage: 0, startup: 0 });
    // A loaded machine can make stockfish itself overshoot. A forfeit the runner blames on the
    // engine must be the engine's: the time it measured exceeds what the engine reported by no
    // more than scheduling noise. A delay it saw outside the engine is said so in the reason.
    for (const [reason] of tally.reasons) {
      const forfeit =
        /time forfeit \((\d+) ms of \d+ allowed, engine reported (\d+) ms(; delay outside the engine)?\)/.exec(reason);
      if (reason.includes("time forfeit")) expect(forfeit, reason).not.toBeNull();
      if (forfeit && !forfeit[3]) expect(Number(forfeit[1]) - Number(forfeit[2]), reason).toBeLessThan(50);
    }

    // The PGN, read back by chess.js (which refuses an illegal move of either engine), is the
    // independent record: every count of the tally must follow from it.
    const games = splitPgnGames(readFileSync(pgn, "utf8")).map(({ text }) => {
      const chess = new Chess();
      chess.loadPgn(text);
      const headers = chess.getHeaders();
      const comments = chess.getComments().map((c) => c.comment);
      expect(chess.history().length).toBe(Number(headers.PlyCount));
      // One comment per move, the last ending with the reason; a game over before its first move (a forfeit) has the reason alone.
      const plies = chess.history().length;
      expect(comments.length).toBe(Math.max(plies, 1));
      const reason = plies === 0 ? comments[0]! : (/^(?:\S+ )?\d+\.\d{3}s, (.*)$/.exec(comments.at(-1)!)?.[1] ?? "");
      expectEndingHolds(chess, {
        result: headers.Result!,
        termination: headers.Termination!,
        reason,
        scores: plies === 0 ? [] : comments.map(scoreOf),
      });
      return { round: Number(headers.Round), aIsWhite: headers.White === "sf-a", result: headers.Result!, reason };
    });
    expect(games.map((g) => g.round).sort((a, b) => a - b)).toEqual([1, 2, 3, 4]);
    const aPoints = (g: (typeof games)[number]) =>
      g.result === "1/2-1/2" ? 1 : (g.result === "1-0") === g.aIsWhite ? 2 : 0;
    expect({ wins: tally.wins, losses: tally.losses, draws: tally.draws }).toEqual({
      wins: games.filter((g) => aPoints(g) === 2).length,
      losses: games.filter((g) => aPoints(g) === 0).length,
      draws: games.filter((g) => aPoints(g) === 1).length,
    });
    // Each pair: the same two rounds, colours swapped; its pentanomial slot is A's half-points.
    const pairs = [0, 0, 0, 0, 0];
    for (const first of [1, 3]) {
      const [g1, g2] = [first, first + 1].map((round) => games.find((g) => g.round === round)!);
      expect(g1!.aIsWhite).not.toBe(g2!.aIsWhite);
      pairs[aPoints(g1!) + aPoints(g2!)]!++;
    }
    expect(tally.pairs).toEqual(pairs);
    const reasons = new Map<string, number>();
    for (const { reason } of games) reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
    expect(tally.reasons).toEqual(reasons);
    expect(printed.join("\n")).toContain(`sf-a vs sf-b: 4 games, +${tally.wins} -${tally.losses} =${tally.draws}`);
  });
});
