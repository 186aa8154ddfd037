import { createWriteStream, type WriteStream } from "node:fs";
import { once } from "node:events";
import { cpus } from "node:os";
import { InputError, SpsaError } from "../core/errors.js";
import { StatusLine } from "../core/status-line.js";
import { findProgram, isExecutable } from "../core/find-file.js";
import { createRunner, type PairResult } from "../play/runner.js";
import { formatPgn } from "../play/pgn.js";
import { loadBook, openingOrder, playable, resolveBook, sequentialOpenings, withRandomPlies } from "../play/book.js";
import { MatchTally } from "../play/match-tally.js";
import { refuseRepeatedGames } from "../play/repeated-games.js";
import { seededRng, uniform } from "../core/rng.js";
import type { AdjudicationRules } from "../play/adjudication.js";
import type { EngineSpec } from "../play/engine-process.js";
import type { OutsideDelayPolicy, SearchLimits, SprtBounds, TimeControl } from "../types/play.js";

export interface MatchOptions {
  engineA: EngineSpec;
  engineB: EngineSpec;
  /** Games to play (even: games come in pairs). */
  games: number;
  /** Games at once; default: number of cores. */
  concurrency?: number;
  /**
   * Seconds per move, drawn uniformly per pair in [timelow, timehigh] (default 0.05–0.2) unless
   * tc/nodes/depth is given.
   */
  timelow?: number;
  timehigh?: number;
  tc?: TimeControl;
  nodes?: number;
  depth?: number;
  /** EPD or PGN book; default: the book shipped in books/. */
  book?: string;
  bookPlies?: number;
  bookOrder?: "random" | "sequential";
  /** Random legal plies played after each opening (both games of a pair share them). */
  randomPlies?: number;
  pgn?: string;
  sprt?: SprtBounds;
  seed?: string;
  timeMarginMs?: number;
  /** Default: a game lost to a delay outside the engine is scored (the strict rule). */
  outsideDelay?: OutsideDelayPolicy;
  adjudication?: AdjudicationRules;
  signal?: AbortSignal;
  /** Where the summary goes (default stdout). */
  print?: (text: string) => void;
  status?: StatusLine;
}

export interface MatchReport {
  tally: MatchTally;
  /** True when SPRT decided (or the signal fired) before all games were played. */
  stoppedEarly: boolean;
}

/** `compete A B`: a match in game pairs, with a live status line and a final summary. */
export async function matchCommand(options: MatchOptions): Promise<MatchReport> {
  const { games, engineA, engineB } = options;
  if (!Number.isInteger(games) || games < 2 || games % 2 !== 0) {
    throw new InputError("-g/--games", `must be an even number >= 2 (games come in pairs), got ${games}`);
  }
  const concurrency = options.concurrency ?? cpus().length;
  if (!Number.isInteger(concurrency) || concurrency < 1)
    throw new InputError("-c/--concurrency", `must be >= 1, got ${concurrency}`);
  checkEngineFile("engine A", engineA.path);
  checkEngineFile("engine B", engineB.path);
  const limitsFor = limitsChooser(options);
  const bookFile = resolveBook(options.book);
  const book = loadBook(bookFile, { plies: options.bookPlies });
  const seed = options.seed ?? String(Date.now());
  const rng = seededRng(seed);
  const randomPlies = options.randomPlies ?? 0;
  if (!Number.isInteger(randomPlies) || randomPlies < 0)
    throw new InputError("--random-plies", `must be a whole number >= 0, got ${randomPlies}`);
  if (randomPlies === 0)
    refuseRepeatedGames({ games, book, bookFile, limits: limitsFor(rng), flag: "-g/--games", randomPlies: true });
  // Random order: a seeded shuffle of the book, so no opening comes twice until all have been
  // played. Every pair's opening is chosen (and checked playable) before any game.
  const shuffled = openingOrder(book.length, seed);
  const nextBookOpening =
    options.bookOrder === "sequential"
      ? sequentialOpenings(book)
      : (_: unknown, i: number) => playable(book.at(shuffled(i))!);
  const bookOpenings = Array.from({ length: games / 2 }, nextBookOpening);
  let pairs = 0;
  const nextOpening = () => {
    const opening = bookOpenings[pairs++]!;
    return randomPlies === 0 ? opening : withRandomPlies(opening, randomPlies, rng);
  };
  const print = options.print ?? ((text: string) => process.stdout.write(`${text}\n`));
  const status = options.status ?? new StatusLine(process.stderr, 10_000);
  const pgn = options.pgn === undefined ? undefined : await openPgn(options.pgn);
  // A write error later (a full disk) stops the match after the pairs being played, as one error.
  let pgnFailure: Error | undefined;
  pgn?.on("error", (error) => (pgnFailure ??= error));

  const tally = new MatchTally([engineA.name, engineB.name]);
  const runner = createRunner({
    concurrency,
    timeMarginMs: options.timeMarginMs,
    outsideDelay: options.outsideDelay,
    adjudication: options.adjudication,
    san: pgn !== undefined,
  });
  const started = new Date();
  let closed = false;
  // A stop ends the pairs in flight at once (the engines run in process groups of their own, so
  // a Ctrl-C reaches only this process): a game it cut short is not counted.
  const abandon = () => {
    closed = true;
    runner.close().catch(() => {});
  };
  options.signal?.addEventListener("abort", abandon, { once: true });
  const record = (pair: PairResult, index: number) => {
    if (closed) return; // a pair abandoned after a failure or a stop
    tally.add(pair);
    pair.games.forEach((game, g) =>
      pgn?.write(formatPgn(game, { event: "compete match", round: 2 * index + g + 1, date: started })),
    );
    status.update(tally.status(games, options.sprt));
  };
  const decided = () =>
    options.signal?.aborted === true ||
    pgnFailure !== undefined ||
    (options.sprt !== undefined && tally.sprt(options.sprt).decision !== undefined);

  // ceil(c/2) pairs in flight keep c games running without queueing games nobody may need after an SPRT stop.
  const inFlight = new Set<Promise<void>>();
  let submitted = 0;
  try {
    while (submitted < games / 2 && !decided()) {
      const index = submitted++;
      const job = { first: engineA, second: engineB, opening: nextOpening(), limits: limitsFor(rng) };
      const task = runner.playPair(job).then((pair) => record(pair, index));
      const tracked = task.finally(() => inFlight.delete(tracked));
      inFlight.add(tracked);
      if (inFlight.size >= Math.ceil(concurrency / 2)) await Promise.race(inFlight);
    }
    await Promise.all(inFlight);
  } finally {
    options.signal?.removeEventListener("abort", abandon);
    status.done();
    closed = true;
    await runner.close();
    // After a failure, the pairs still in flight end at once on the closed runner: none outlives the command.
    await Promise.allSettled(inFlight);
    if (pgn && !pgnFailure) await new Promise((resolve) => pgn.end(resolve));
  }
  if (pgnFailure) throw new SpsaError(`--pgn ${options.pgn}: writing the games failed: ${pgnFailure.message}`);
  print(tally.summary(options.sprt));
  return { tally, stoppedEarly: tally.games < games };
}

/** The search limits of each pair: a fixed tc/nodes/depth, or a movetime drawn per pair. */
function limitsChooser(options: MatchOptions): (rng: ReturnType<typeof seededRng>) => SearchLimits {
  const given: SearchLimits[] = [];
  if (options.tc) given.push({ tc: options.tc });
  if (options.nodes !== undefined) given.push({ nodes: options.nodes });
  if (options.depth !== undefined) given.push({ depth: options.depth });
  if (given.length > 1) throw new InputError("--tc/--nodes/--depth", "give at most one of them");
  const limits = given[0];
  if (limits && (options.timelow !== undefined || options.timehigh !== undefined)) {
    throw new InputError("--timelow/--timehigh", "a time per move does not go with --tc, --nodes or --depth");
  }
  if (limits) return () => limits;
  const low = options.timelow ?? 0.05;
  const high = options.timehigh ?? Math.max(low, 0.2);
  if (!(low > 0) || !(high >= low))
    throw new InputError("--timelow/--timehigh", `need 0 < timelow <= timehigh, got ${low} and ${high}`);
  return (rng) => ({ movetimeMs: Math.round(uniform(rng, low, high) * 1000) });
}

/**
 * An engine that is not there is bad input, said before any game: otherwise every game
 * would be lost to "engine failed to start". A bare name is looked up in PATH, as spawn does.
 */
function checkEngineFile(which: string, path: string): void {
  const found = findProgram(path);
  if (found === undefined)
    throw new InputError(which, `${path}: ${path.includes("/") ? "no such file" : "not found in PATH"}`);
  if (!isExecutable(found)) throw new InputError(which, `${found}: not executable (chmod +x?)`);
}

/** The PGN file, opened before any engine starts: a path that cannot be written is bad input. */
async function openPgn(path: string): Promise<WriteStream> {
  const stream = createWriteStream(path);
  try {
    await once(stream, "open");
  } catch (error) {
    throw new InputError("--pgn", `${path}: cannot write: ${(error as Error).message}`);
  }
  return stream;
}
