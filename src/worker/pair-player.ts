import type { PlayedPair } from "./tally.js";

/** What the worker needs from a game runner: play one game pair of plus against minus. */
export interface PairJob {
  plusPath: string;
  minusPath: string;
  /** UCI options of each side (UCI-option mode), set with `setoption` before its games. */
  plusOptions?: Readonly<Record<string, number>>;
  minusOptions?: Readonly<Record<string, number>>;
  /** FEN of the opening position; both games of the pair start from it. */
  openingFen: string;
  /** Both games of the pair use this time per move. */
  movetimeMs: number;
}

export interface PairPlayer {
  /** Plays plus as white then as black; results are from plus's side. Respects the concurrency limit itself. */
  playPair(job: PairJob): Promise<PlayedPair>;
  /** Games at once from now on. */
  setConcurrency(concurrency: number): void;
  /** Ends the engine processes of binaries no longer needed (an iteration is over). */
  retire(keepPaths: readonly string[]): Promise<void>;
  close(): Promise<void>;
}
