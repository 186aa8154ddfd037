/**
 * When the runner may stop reading an engine's output during a `go movetime` search.
 *
 * Every line an engine flushes wakes the runner, and on a VM a wakeup of an idle Node
 * process costs more than all the rest of a ply (measured here: 0.15-0.25 ms of CPU each,
 * with 10-20 `info` lines per 50 ms Stockfish search). In movetime mode nothing but the last scored
 * `info` and `bestmove` matters,
 * and the engine answers at (about) the movetime, so the runner can leave the output in
 * the pipe until shortly before the answer is due and read it all at once.
 *
 * Two things are learnt per engine process from its last movetime search:
 * - how early it answers (engines stop a few ms before the movetime, or earlier with a move
 *   overhead): reading resumes that much sooner. An answer that was already waiting when
 *   reading resumed makes the next search read promptly, which measures it again;
 * - how fast it writes: a pipe holds 64 KiB, and an engine that fills it blocks, so quiet
 *   spells are cut into slices during which the engine writes at most a quarter of that.
 * The first search of a process is read promptly, since neither is known yet.
 */

/** Reading resumes this long before the answer is due: timers fire a little late. */
export const WAKE_AHEAD_MS = 5;
/** Quiet spells shorter than this save nothing worth a timer. */
export const MIN_QUIET_MS = 10;
/** Output an engine may write during one quiet slice (a quarter of a Linux pipe). */
export const SLICE_BYTES = 16 * 1024;
/** Longest quiet slice: a long search is drained at least this often. */
export const MAX_SLICE_MS = 250;

export interface QuietPlan {
  /** Stop reading until this long after `go`. */
  untilMs: number;
  /** Drain the pipe at least this often while quiet. */
  sliceMs: number;
}

export interface MovetimeSearch {
  movetimeMs: number;
  /** Measured from `go` to the read of `bestmove`. */
  elapsedMs: number;
  /** Bytes the engine wrote during the search. */
  bytes: number;
  /** `bestmove` was already in the pipe when reading resumed, so `elapsedMs` is only an upper bound. */
  answerWasWaiting: boolean;
}

export class QuietReads {
  /** How long before the movetime the engine answered; undefined when unknown. */
  private earlyMs: number | undefined;
  private bytesPerMs = Number.POSITIVE_INFINITY;

  plan(movetimeMs: number): QuietPlan | undefined {
    if (this.earlyMs === undefined) return undefined;
    const untilMs = movetimeMs - this.earlyMs - WAKE_AHEAD_MS;
    const sliceMs = Math.min(MAX_SLICE_MS, SLICE_BYTES / this.bytesPerMs);
    if (untilMs < MIN_QUIET_MS || sliceMs < MIN_QUIET_MS) return undefined;
    return { untilMs, sliceMs };
  }

  observe(search: MovetimeSearch): void {
    this.earlyMs = search.answerWasWaiting ? undefined : Math.max(0, search.movetimeMs - search.elapsedMs);
    this.bytesPerMs = search.bytes / Math.max(1, search.elapsedMs);
  }
}
