import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { engineSpecs } from "../../src/cli/compete.js";
import { matchCommand, type MatchOptions } from "../../src/commands/match.js";
import { InputError } from "../../src/errors.js";
import { StatusLine } from "../../src/terminal/status-line.js";
import { loadBook, splitPgnGames } from "../../src/play/book.js";

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/engines/${name}.mjs`, import.meta.url));
const quietStatus = new StatusLine({ isTTY: false, write: () => true } as unknown as NodeJS.WriteStream, Number.POSITIVE_INFINITY);

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
      options({ games: 400, concurrency: 2, sprt: { elo0: 0, elo1: 10, alpha: 0.05, beta: 0.05 }, engineB: { name: "crash", path: fixture("crash") } }),
    );
    expect(stoppedEarly).toBe(true);
    expect(tally.sprt({ elo0: 0, elo1: 10, alpha: 0.05, beta: 0.05 }).decision).toBe("H1");
    expect(tally.games).toBeLessThan(40);
    expect(tally.faults[1].crash).toBe(tally.games);
  });

  it("--random-plies: each pair starts from its book line plus random moves, the same for both games", async () => {
    const pgn = join(mkdtempSync(join(tmpdir(), "match-")), "out.pgn");
    const book = loadBook(options({}).book ?? "").map((opening) => opening.fen.split(" ").slice(0, 4).join(" "));
    await matchCommand(options({ pgn, games: 8, randomPlies: 3 }));
    const starts = splitPgnGames(readFileSync(pgn, "utf8")).map((g) => /\[FEN "([^"]+)"\]/.exec(g.text)?.[1] ?? "");
    expect(starts).toHaveLength(8);
    for (let pair = 0; pair < 4; pair++) expect(starts[2 * pair + 1]).toBe(starts[2 * pair]);
    // Three random plies later, no start is a book position any more.
    for (const fen of starts) expect(book).not.toContain(fen.split(" ").slice(0, 4).join(" "));
    await expect(matchCommand(options({ randomPlies: -1 }))).rejects.toThrow("--random-plies");
  });

  it("refuses an odd number of games, two limits, and bad times", async () => {
    await expect(matchCommand(options({ games: 3 }))).rejects.toThrow(InputError);
    await expect(matchCommand(options({ depth: 3 }))).rejects.toThrow("--tc/--nodes/--depth");
    await expect(matchCommand(options({ nodes: undefined, timelow: 0.2, timehigh: 0.1 }))).rejects.toThrow("--timelow/--timehigh");
    await expect(matchCommand(options({ timelow: 0.1 }))).rejects.toThrow("--timelow/--timehigh: a time per move does not go with --tc, --nodes or --depth");
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
