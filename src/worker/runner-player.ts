import { createRunner, defaultBookPath, loadBook, type FaultKind, type SideView } from "../play/index.js";
import type { PairPlayer } from "./pair-player.js";
import type { PlusGame } from "./tally.js";

/** The worker's pair player on the built-in runner: engine processes are kept across batches. */
export function createRunnerPlayer(options: { concurrency: number; marginMs: number }): PairPlayer {
  const runner = createRunner({ concurrency: options.concurrency, timeMarginMs: options.marginMs });
  return {
    async playPair(job) {
      const result = await runner.playPair({
        first: { name: "plus", path: job.plusPath },
        second: { name: "minus", path: job.minusPath },
        opening: { fen: job.openingFen },
        limits: { movetimeMs: job.movetimeMs },
      });
      return [plusGame(result.first[0]), plusGame(result.first[1])];
    },
    retire: (keepPaths) => runner.retire(keepPaths),
    close: () => runner.close(),
  };
}

/** The opening positions (FENs) of a book, or of the book shipped with the tool. */
export function loadOpenings(book: string | undefined, plies: number): string[] {
  return loadBook(book ?? defaultBookPath(), { plies }).map((opening) => opening.fen);
}

const FAULT_KINDS: Record<Exclude<FaultKind, "none">, NonNullable<PlusGame["fault"]>["kind"]> = {
  crash: "crash",
  startup: "crash",
  timeout: "time",
  illegal: "illegal",
  garbage: "illegal",
};

function plusGame(view: SideView): PlusGame {
  if (view.fault !== "none") return { outcome: view.outcome, fault: { side: "plus", kind: FAULT_KINDS[view.fault] } };
  if (view.opponentFault !== "none") return { outcome: view.outcome, fault: { side: "minus", kind: FAULT_KINDS[view.opponentFault] } };
  return { outcome: view.outcome };
}
