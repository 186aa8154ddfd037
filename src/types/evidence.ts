import type { Pentanomial } from "./play.js";
import type { Values } from "./spsa.js";

/**
 * What a run's batches say about each worker (src/spsa/worker-evidence.ts): its results next to
 * the pool's (every other worker not set aside) and the tests that name a suspect.
 */
export interface WorkerEvidence {
  worker: string;
  batches: number;
  games: number;
  /** Plus's score in its games, and in the pool's; null without a pool. */
  score: number;
  poolScore: number | null;
  /** Share of draws in its games and in the pool's. */
  draws: number;
  poolDraws: number | null;
  /**
   * Share of its batches at an extreme result (every game won by one side), and the pool's share at
   * the same batch sizes.
   */
  extremes: number;
  poolExtremes: number | null;
  /**
   * Its extreme batches beyond what its own game pairs predict (or the pool's share), a normal z (0
   * when they fit); null while it is not judged. Absent in evidence recorded before it existed.
   */
  extremeZ?: number | null;
  /**
   * The spread test (the one of its two further past its limit): its batches' results' spread over
   * what its game pairs predict drawn independently (1: independent pairs), and that against the
   * pool's, or its batches' game pairs' spread over independent pairs' (too little only); a signed
   * normal z (negative: too little); null while it is not judged or without decisive games. Absent
   * in evidence recorded before they existed; spreadOf absent: of results, against its games' W/D/L.
   */
  spread?: number | null;
  spreadZ?: number | null;
  spreadOf?: "results" | "pairs";
  /**
   * fishtest's residual of its game pairs (won, lost, other) against the pool's in the same
   * iterations (a normal z, 0 when it fits); null with too few pairs (an expected count ≤ 5).
   */
  residual: number | null;
  /** Its score beyond the pool's in the same iterations, as a normal z; null without shared games. */
  scoreZ: number | null;
  /** The parameters whose signs its results follow most unlike the pool's, the strongest first (at most 3). */
  parameters: ParameterAgreement[];
  /** Games it shares iterations with the pool in, weighted as the tests weigh them: how much the z's rest on. */
  sharedGames: number;
  /**
   * Enough games and batches shared with the pool for its tests (residual, score, agreement). The
   * extremes and spread tests need only its own games (extremeZ and spreadZ not null).
   */
  judged: boolean;
  /**
   * Judged, but its pool's tests wait while these other workers' own games are not clean (their
   * extremes or spread half way to a limit): an unclean worker is no yardstick. Absent: none.
   */
  waitsFor?: string[];
  /** The largest of its tests against that test's limit: 1 or more is past a limit. */
  severity: number;
  /** Why it passes a limit, in words; null when it passes none. */
  suspicion: string | null;
}

/**
 * One parameter: the mean of (plus's wins − losses per game) × that parameter's sign, the worker's
 * and the pool's, and the difference as a normal z.
 */
export interface ParameterAgreement {
  name: string;
  agreement: number;
  poolAgreement: number | null;
  z: number;
}

/** An operator's or the master's decision about a worker in a run (spsa_worker_decision). */
export type WorkerDecisionKind = "suspect" | "accepted" | "rejected";

/** One reported batch as the evidence reads it. */
export interface EvidenceBatch {
  worker: string;
  games: number;
  /** Plus's wins − losses (reference mode: θ+'s wins − losses minus θ−'s). */
  net: number;
  /** Wins, losses and draws from plus's side (reference mode: θ+'s and θ−'s games, each from its own side, summed). */
  wins: number;
  losses: number;
  draws: number;
  /** Game pairs [LL, LD, DD, DW, WW] from plus's side. */
  pairs: Pentanomial;
  /**
   * Played against a reference (reference mode, the curvature pilot, a gain block): its pairs are
   * θ+'s and θ−'s against it, unlike plus against minus. Absent: plus against minus.
   */
  reference?: boolean;
  /** ±1 per perturbed parameter; a parameter absent or 0 was not perturbed. */
  signs: Values;
}
