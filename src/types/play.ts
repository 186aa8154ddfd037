import type { FaultCounts } from "./faults.js";

/**
 * `replay`: a game lost only to a delay outside the engine is played again from the same
 * opening with the same limits, at most `maxReplays` times per pair; after that it is scored.
 */
export type OutsideDelayPolicy = { policy: "loss" } | { policy: "replay"; maxReplays: number };

/** A clock time control: `baseMs` for `moves` moves (or the whole game), plus `incMs` per move. */
export interface TimeControl {
  baseMs: number;
  incMs: number;
  /** Moves per period (`40/60+0.5`); the base time is added again after each period. */
  moves?: number;
}

/** What an engine is told to search with. */
export type SearchLimits = { movetimeMs: number } | { tc: TimeControl } | { nodes: number } | { depth: number };

/**
 * Limits as a run or a verification records them: a time per move drawn per pair in
 * [timelowMs, timehighMs], a clock, or a node or depth limit per move.
 */
export type PlayLimits =
  { timelowMs: number; timehighMs: number } | { tc: TimeControl } | { nodes: number } | { depth: number };

/** A colour by index: 0 white, 1 black (the side to move). */
export type Color = 0 | 1;

/** Game pairs counted from the first engine's side (the plus engine's, in SPSA). */
export interface PairCounts {
  wins: number;
  losses: number;
  draws: number;
  pairs: Pentanomial;
  /** [first engine, second engine]. */
  faults: [FaultCounts, FaultCounts];
  /** Games played again after a delay outside the engine, and pairs that ran out of replays. */
  replays: number;
  replayLimitPairs: number;
}

/**
 * Match statistics, pure functions. Scores are in [0, 1] from engine A's side; Elo is the
 * logistic model. Pentanomial counts are game pairs by A's points: [LL, LD+DL, LW+DD+WL, DW+WD, WW].
 */
export type Pentanomial = [number, number, number, number, number];

export interface SprtBounds {
  elo0: number;
  elo1: number;
  alpha: number;
  beta: number;
}
