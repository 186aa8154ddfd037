import { createRunner, defaultBookPath, loadBook, type Opening, type OutsideDelayPolicy } from "../play/index.js";
import type { PairPlayer } from "./pair-player.js";

/** The worker's pair player on the built-in runner: engine processes are kept across batches. */
export function createRunnerPlayer(options: { concurrency: number; marginMs: number; outsideDelay: OutsideDelayPolicy }): PairPlayer {
  const runner = createRunner({ concurrency: options.concurrency, timeMarginMs: options.marginMs, outsideDelay: options.outsideDelay });
  return {
    playPair: (job) =>
      runner.playPair({
        first: { name: "plus", path: job.plusPath },
        second: { name: "minus", path: job.minusPath },
        opening: job.opening,
        limits: { movetimeMs: job.movetimeMs },
      }),
    retire: (keepPaths) => runner.retire(keepPaths),
    setConcurrency: (concurrency) => runner.setConcurrency(concurrency),
    close: () => runner.close(),
  };
}

/** The openings of a book, or of the book shipped with the tool. */
export function loadOpenings(book: string | undefined, plies: number): Opening[] {
  return loadBook(book ?? defaultBookPath(), { plies });
}
