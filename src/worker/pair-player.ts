import type { Opening, PairResult } from "../play/index.js";

/** What the worker needs from a game runner: play one game pair of plus against minus. */
export interface PairJob {
  plusPath: string;
  minusPath: string;
  /** Both games of the pair start from it. */
  opening: Opening;
  /** Both games of the pair use this time per move. */
  movetimeMs: number;
}

export interface PairPlayer {
  /** Plays plus as white then as black; plus is the pair's first engine. Respects the concurrency limit itself. */
  playPair(job: PairJob): Promise<PairResult>;
  /** Games at once from now on. */
  setConcurrency(concurrency: number): void;
  /** Ends the engine processes of binaries no longer needed (an iteration is over). */
  retire(keepPaths: readonly string[]): Promise<void>;
  close(): Promise<void>;
}
