import { createRunner, type PairResult } from "../play/runner.js";
import { bookOpenings, isShippedBook, loadBook, playable, resolveBook, type Book, type Opening } from "../play/book.js";
import type { EngineRole } from "../types/engines.js";
import type { OutsideDelayPolicy, SearchLimits } from "../types/play.js";
import { measureNps, SPEED_MOVETIME_MS } from "./engine-speed.js";

/**
 * An engine of a worker's game pair: its role (its name in the games), its binary, and its tuned
 * UCI options (UCI-option mode), set with `setoption` before its games.
 */
export interface PairEngine {
  role: EngineRole;
  path: string;
  options?: Readonly<Record<string, number>>;
}

/**
 * One game pair as the worker asks for it: plus against minus, or in reference mode θ+ or θ−
 * against the reference engine. The first engine is the tuned one (plus, or θ+ or θ−).
 */
export interface WorkerPairJob {
  first: PairEngine;
  second: PairEngine;
  /** Both games of the pair start from it. */
  opening: Opening;
  /** Both games of the pair search with these: a time per move, or the iteration's nodes or depth. */
  limits: SearchLimits;
}

/** What the worker needs from the game runner (the loop's seam for its own tests). */
export interface PairPlayer {
  /** Plays the first engine as white then as black. Respects the concurrency limit itself. */
  playPair(job: WorkerPairJob): Promise<PairResult>;
  /**
   * The engine's speed in nodes per second, with this worker's options, measured alone
   * (src/worker/engine-speed.ts).
   */
  measureNps(path: string): Promise<number | undefined>;
  /** Games at once from now on. */
  setConcurrency(concurrency: number): void;
  /** Ends the engine processes of binaries no longer needed (an iteration is over). */
  retire(keepPaths: readonly string[]): Promise<void>;
  /** Kills every engine, a speed measurement's too: games in flight end at once (their results are not for scoring). */
  close(): Promise<void>;
}

/** The worker's pair player on the built-in runner: engine processes are kept across batches. */
export function createRunnerPlayer(options: {
  concurrency: number;
  marginMs: number;
  outsideDelay: OutsideDelayPolicy;
  /**
   * This worker's own UCI options for both engines; a tuned option (UCI-option mode) overrides one
   * of the same name.
   */
  engineOptions?: Readonly<Record<string, string>>;
}): PairPlayer {
  const runner = createRunner({
    concurrency: options.concurrency,
    timeMarginMs: options.marginMs,
    outsideDelay: options.outsideDelay,
  });
  const closing = new AbortController();
  // This worker's options with a batch's tuned ones, made once per batch's options object: a
  // batch's pairs then share one set (the engine pool keys its processes by it).
  const merged = new WeakMap<object, Readonly<Record<string, string | number>>>();
  const own = Object.keys(options.engineOptions ?? {}).length > 0;
  const withOwn = (tuned: PairEngine["options"]) => {
    if (tuned === undefined) return { ...options.engineOptions };
    if (!own) return tuned;
    let set = merged.get(tuned);
    if (set === undefined) merged.set(tuned, (set = { ...options.engineOptions, ...tuned }));
    return set;
  };
  return {
    playPair: (job) =>
      runner.playPair({
        first: { name: job.first.role, path: job.first.path, options: withOwn(job.first.options) },
        second: { name: job.second.role, path: job.second.path, options: withOwn(job.second.options) },
        opening: job.opening,
        limits: job.limits,
      }),
    measureNps: (path) =>
      measureNps({ name: "speed", path, options: options.engineOptions }, SPEED_MOVETIME_MS, closing.signal),
    retire: (keepPaths) => runner.retire(keepPaths),
    setConcurrency: (concurrency) => runner.setConcurrency(concurrency),
    close: () => {
      closing.abort();
      return runner.close();
    },
  };
}

/**
 * The openings of a book, or of the book shipped with the tool. A position whose game is over
 * is refused here, at the worker's start, not batch after batch; the shipped books are
 * checked by the test suite (50,000 positions take seconds).
 */
export function loadOpenings(book: string | undefined, plies: number): Book {
  const file = resolveBook(book);
  const openings = loadBook(file, { plies });
  if (!isShippedBook(file)) bookOpenings(openings).forEach(playable);
  return openings;
}
