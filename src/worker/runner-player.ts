import {
  createRunner,
  defaultBookPath,
  loadBook,
  type FaultKind,
  type GameResult,
  type OutsideDelayPolicy,
  type SideView,
} from "../play/index.js";
import type { PairPlayer } from "./pair-player.js";
import type { PlayedPair, PlusGame } from "./tally.js";

/** The worker's pair player on the built-in runner: engine processes are kept across batches. */
export function createRunnerPlayer(options: {
  concurrency: number;
  marginMs: number;
  outsideDelay: OutsideDelayPolicy;
  /** This worker's own UCI options for both engines; a tuned option (UCI-option mode) overrides one of the same name. */
  engineOptions?: Readonly<Record<string, string>>;
}): PairPlayer {
  const runner = createRunner({ concurrency: options.concurrency, timeMarginMs: options.marginMs, outsideDelay: options.outsideDelay });
  return {
    async playPair(job) {
      const result = await runner.playPair({
        first: { name: "plus", path: job.plusPath, options: { ...options.engineOptions, ...job.plusOptions } },
        second: { name: "minus", path: job.minusPath, options: { ...options.engineOptions, ...job.minusOptions } },
        opening: { fen: job.openingFen },
        limits: { movetimeMs: job.movetimeMs },
      });
      const games: PlayedPair["games"] = [plusGame(result.first[0], result.games[0]), plusGame(result.first[1], result.games[1])];
      return { games, replays: result.replays, replayLimitReached: result.replayLimitReached };
    },
    retire: (keepPaths) => runner.retire(keepPaths),
    setConcurrency: (concurrency) => runner.setConcurrency(concurrency),
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

function plusGame(view: SideView, game: GameResult): PlusGame {
  const kind = (fault: Exclude<FaultKind, "none">) => (game.timeForfeit?.cause === "outside" ? "delay" : FAULT_KINDS[fault]);
  if (view.fault !== "none") return { outcome: view.outcome, fault: { side: "plus", kind: kind(view.fault) } };
  if (view.opponentFault !== "none") return { outcome: view.outcome, fault: { side: "minus", kind: kind(view.opponentFault) } };
  return { outcome: view.outcome };
}
