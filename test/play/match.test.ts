import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { engineSpecs } from "../../src/cli/compete.js";
import { matchCommand, type MatchOptions } from "../../src/commands/match.js";
import { InputError } from "../../src/core/errors.js";
import { StatusLine } from "../../src/core/status-line.js";
import { bookOpenings, loadBook, splitPgnGames } from "../../src/play/book.js";
import { buildMinnow } from "../support/minnow.js";

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/engines/${name}.mjs`, import.meta.url));
const quietStatus = new StatusLine(
  { isTTY: false, write: () => true } as unknown as NodeJS.WriteStream,
  Number.POSITIVE_INFINITY,
);

function options(overrides: Partial<MatchOptions>): MatchOptions {
  return {
    engineA: { name: "good", path: fixture("random-mover") },
    engineB: { name: "bad", path: fixture("illegal") },
    games: 4,
    concurrency: 2,
    nodes: 1,
    book: fileURLToPath(new URL("../fixtures/books/fastchess-openings.epd", import.meta.url)),
    seed: "match-test",
    print: () => {},
    status: quietStatus,
    ...overrides,
  };
}

describe("compete match mode", () => {
  it("plays pairs, counts faults per engine, writes the PGN and prints a summary", async () => {
    const pgn = join(mkdtempSync(join(tmpdir(), "match-")), "out.pgn");
    const printed: string[] = [];
    const { tally, stoppedEarly } = await matchCommand(options({ pgn, print: (text) => printed.push(text) }));
    // the illegal-move engine loses every game on its third move, both colours
    expect(stoppedEarly).toBe(false);
    expect([tally.wins, tally.losses, tally.draws]).toEqual([4, 0, 0]);
    expect(tally.pairs).toEqual([0, 0, 0, 0, 2]);
    expect(tally.faults[1].illegal).toBe(4);
    expect(tally.faults[0].illegal).toBe(0);
    const summary = printed.join("\n");
    expect(summary).toContain("good vs bad: 4 games, +4 -0 =0");
    expect(summary).toContain("pentanomial [LL, LD, LW+DD, DW, WW]: [0, 0, 0, 0, 2]");
    expect(summary).toMatch(/bad\s+0\s+0\s+4\s+0\s+0/);
    const games = splitPgnGames(readFileSync(pgn, "utf8"));
    expect(games).toHaveLength(4);
    expect(games.filter((g) => g.text.includes('[Termination "rules infraction"]'))).toHaveLength(4);
  });

  it("stops as soon as SPRT is decided", async () => {
    const { tally, stoppedEarly } = await matchCommand(
      options({
        games: 198,
        concurrency: 2,
        sprt: { elo0: 0, elo1: 10, alpha: 0.05, beta: 0.05 },
        engineB: { name: "crash", path: fixture("crash") },
      }),
    );
    expect(stoppedEarly).toBe(true);
    expect(tally.sprt({ elo0: 0, elo1: 10, alpha: 0.05, beta: 0.05 }).decision).toBe("H1");
    expect(tally.games).toBeLessThan(40);
    expect(tally.faults[1].crash).toBe(tally.games);
  });

  it("--random-plies: each pair starts from its book line plus random moves, the same for both games", async () => {
    const pgn = join(mkdtempSync(join(tmpdir(), "match-")), "out.pgn");
    const book = bookOpenings(loadBook(options({}).book ?? "")).map((opening) =>
      opening.fen.split(" ").slice(0, 4).join(" "),
    );
    await matchCommand(options({ pgn, games: 8, randomPlies: 3 }));
    const starts = splitPgnGames(readFileSync(pgn, "utf8")).map((g) => /\[FEN "([^"]+)"\]/.exec(g.text)?.[1] ?? "");
    expect(starts).toHaveLength(8);
    for (let pair = 0; pair < 4; pair++) expect(starts[2 * pair + 1]).toBe(starts[2 * pair]);
    // Three random plies later, no start is a book position any more.
    for (const fen of starts) expect(book).not.toContain(fen.split(" ").slice(0, 4).join(" "));
    await expect(matchCommand(options({ randomPlies: -1 }))).rejects.toThrow("--random-plies");
  });

  it("at a node limit with the default book, plays every game pair from an opening of its own: all games distinct", async () => {
    const minnow = await buildMinnow();
    const pgn = join(mkdtempSync(join(tmpdir(), "match-")), "out.pgn");
    // minnow against itself with two options changed: deterministic at a node count, so a repeated opening would repeat its games.
    const engineA = { name: "default", path: minnow };
    const engineB = { name: "changed", path: minnow, options: { KNIGHT_VALUE_MG: 300, LMR_BASE_X100: 70 } };
    const games = 60;
    await matchCommand(options({ engineA, engineB, games, nodes: 300, book: undefined, pgn, seed: "distinct" }));
    const played = splitPgnGames(readFileSync(pgn, "utf8")).map((g) => g.text);
    expect(played).toHaveLength(games);
    const start = (game: string) => /\[FEN "([^"]+)"\]/.exec(game)?.[1] ?? "";
    const white = (game: string) => /\[White "([^"]+)"\]/.exec(game)?.[1] ?? "";
    // The moves without their comments (which hold the time each move took).
    const moves = (game: string) =>
      game
        .split("\n")
        .filter((line) => !line.startsWith("["))
        .join(" ")
        .replace(/\{[^}]*\}/g, "")
        .replace(/\s+/g, " ")
        .trim();
    expect(new Set(played.map(start)).size).toBe(games / 2);
    // A game is its start, who has White, and its moves (the two games of a pair may play the same moves with colours swapped).
    expect(new Set(played.map((game) => `${start(game)} ${white(game)} ${moves(game)}`)).size).toBe(games);
  }, 120_000);

  it("refuses more game pairs than the book has openings at a node or depth limit, naming the ways out", async () => {
    const fixtureBook = fileURLToPath(new URL("../fixtures/books/chess-compete-openings-50.epd", import.meta.url));
    const book = join(mkdtempSync(join(tmpdir(), "match-")), "three.epd");
    writeFileSync(book, readFileSync(fixtureBook, "utf8").split("\n").slice(0, 3).join("\n"));
    const refused = matchCommand(options({ games: 8, book }));
    await expect(refused).rejects.toThrow(InputError);
    await expect(refused).rejects.toThrow(
      `-g/--games: 8 games at --nodes 1 need 4 distinct openings (one per game pair), but ${book} has 3: at a fixed node count or depth ` +
        "the engines repeat their games, so the games past 6 would replay earlier ones and the error bars would count them as new. " +
        "Play at most 6 games, use a bigger book (the default one has 50,000 openings), add --random-plies, or play on a clock",
    );
    await expect(matchCommand(options({ games: 8, book, nodes: undefined, depth: 2 }))).rejects.toThrow(
      "at --depth 2 need 4 distinct openings",
    );
    // 6 games fit; random plies or a clock vary the games, so those may go on.
    expect((await matchCommand(options({ games: 6, book }))).tally.games).toBe(6);
    expect((await matchCommand(options({ games: 8, book, randomPlies: 2 }))).tally.games).toBe(8);
    expect(
      (await matchCommand(options({ games: 8, book, nodes: undefined, timelow: 0.01, timehigh: 0.01 }))).tally.games,
    ).toBe(8);
  });

  it("refuses an odd number of games, two limits, and bad times", async () => {
    await expect(matchCommand(options({ games: 3 }))).rejects.toThrow(InputError);
    await expect(matchCommand(options({ depth: 3 }))).rejects.toThrow("--tc/--nodes/--depth");
    await expect(matchCommand(options({ nodes: undefined, timelow: 0.2, timehigh: 0.1 }))).rejects.toThrow(
      "--timelow/--timehigh",
    );
    await expect(matchCommand(options({ timelow: 0.1 }))).rejects.toThrow(
      "--timelow/--timehigh: a time per move does not go with --tc, --nodes or --depth",
    );
  });
});

describe("engine arguments", () => {
  it("takes a path with optional inline options, plus repeated --option flags", () => {
    const [a, b] = engineSpecs("/usr/games/stockfish:Hash=16,Threads=1", "/opt/x/engine", [], ["Move Overhead=20"]);
    expect(a).toEqual({ name: "stockfish", path: "/usr/games/stockfish", options: { Hash: "16", Threads: "1" } });
    expect(b).toEqual({ name: "engine", path: "/opt/x/engine", options: { "Move Overhead": "20" } });
    const [same1, same2] = engineSpecs("/a/sf", "/b/sf");
    expect([same1.name, same2.name]).toEqual(["sf (A)", "sf (B)"]);
    expect(() => engineSpecs("/a/sf", "/b/sf", ["novalue"])).toThrow("NAME=VALUE");
  });
});
