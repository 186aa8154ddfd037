import type { KeyObject } from "node:crypto";
import type { EngineCache } from "../engine-build/engine-cache.js";
import type { Database } from "../postgres/connection.js";
import type { StatusLine } from "../core/status-line.js";
import type { Book } from "../play/book.js";
import type { PairPlayer } from "./runner-player.js";

/**
 * What runWorker (src/worker/worker.ts) takes and returns: apart, so that each of its parts
 * names what it uses of the options without an import circle.
 */
export interface WorkerOptions {
  database: Database;
  player: PairPlayer;
  name: string;
  /** Take the name even from a live worker (which stops at its next heartbeat). */
  force?: boolean;
  concurrency: number;
  /** How a default concurrency was chosen, for the log and spsa_worker.concurrency_note. */
  concurrencyNote?: string;
  /** Games per claim (even). */
  batchSize: number;
  leaseSeconds: number;
  /** Opening positions to draw from. */
  openings: Book;
  /**
   * The only folder whose files it executes (`cache.dir`): its own, 0700, the binaries it hashed
   * written there by sha256, bounded.
   */
  cache: EngineCache;
  /**
   * The master keys whose signed binaries this worker runs
   * (read at each batch: a local master may make its key later).
   */
  trustedKeys: () => KeyObject[];
  /** The longest wait between claims while idle (the cap of the polling backoff). */
  pollIntervalMs: number;
  /** Stop after this many games (for scripts and tests). */
  maxGames?: number;
  /** Stop after this long without work. */
  idleExitMs?: number;
  signal?: AbortSignal;
  log?: (line: string) => void;
  status?: StatusLine;
  /** Seed for openings and times; default random. */
  seed?: string;
}

export interface WorkerSummary {
  games: number;
  batches: number;
  /** Reports refused because the batch's lease had expired. */
  refused: number;
  /** Batches given back because their binaries were not signed by a trusted key. */
  binariesRefused: number;
}
