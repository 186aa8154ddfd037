/**
 * Whose fault a time forfeit was (pure). A busy machine can deschedule an engine or the
 * runner past a move's limit; such a loss says nothing about the engine, and in SPSA it
 * would be noise that hits plus and minus unevenly (issue 17).
 */
export type ForfeitCause = "engine" | "outside";

export interface ForfeitEvidence {
  /** The search had a time limit (movetime or clock); nodes and depth searches have none. */
  timed: boolean;
  /** Measured by the runner, `go` to `bestmove`. */
  elapsedMs: number;
  /** What the move was allowed, margin included. */
  allowedMs: number;
  /** The `time` of the engine's last scored `info`, if it reported one. */
  engineTimeMs?: number;
  /** The engine answered only after the runner sent `stop`. */
  stopped: boolean;
  /**
   * The answer was already waiting when the runner resumed reading (quiet reads): the runner was
   * late, not the engine.
   */
  answerWasWaiting: boolean;
  /** How late the runner's own event loop ran during the search. */
  runnerLateMs: number;
  /** The machine was overloaded (more runnable processes than cores). */
  overloaded: boolean;
}

export function forfeitCause(e: ForfeitEvidence): ForfeitCause {
  // Without a time limit, only a search that never ends is stopped: a stall of seconds.
  if (!e.timed) return "engine";
  // An engine that says itself that it took too long used more than its time.
  if (e.engineTimeMs !== undefined && e.engineTimeMs > e.allowedMs) return "engine";
  const visibleDelay = e.overloaded || e.runnerLateMs >= e.elapsedMs - e.allowedMs;
  // One that needed `stop` overran too, unless the machine was visibly holding it up: an
  // engine that gets no CPU sees `stop` before it could answer.
  if (e.stopped) return visibleDelay ? "outside" : "engine";
  if (e.engineTimeMs !== undefined || e.answerWasWaiting) return "outside";
  // Without the engine's word, only a visible delay outside it excuses the overrun.
  return visibleDelay ? "outside" : "engine";
}
