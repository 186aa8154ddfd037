import type { KeyObject } from "node:crypto";
import { obtainBinary } from "../engine-build/binary-store.js";
import { verifiedDraw } from "../signing/options-signature.js";
import { drawOptions } from "../params/option-names.js";
import { FAULTED_GAME_LIMITS, type FaultedGame } from "../db/faulted-games.js";
import type { WorkerSession } from "../db/workers.js";
import type { DatabaseHandle } from "../postgres/database-handle.js";
import { runOpenings } from "../play/book.js";
import { uniform, type Rng } from "../core/rng.js";
import type { SearchLimits } from "../types/play.js";
import { binariesOf } from "./batch-binaries.js";
import { BatchTally } from "./batch-tally.js";
import { faultedGames } from "./faulted-games.js";
import type { PlayableBatch } from "./option-draw.js";
import { pairingsOf } from "./pairings.js";
import { scaledMovetime } from "./time-factor.js";
import { timeScaler, type FactorFor } from "./time-scaler.js";
import type { WorkerOptions } from "./worker-options.js";

/** A played batch: its counts, and the first of its games that an engine fault decided (to be kept). */
export interface PlayedBatch {
  tally: BatchTally;
  faulted: FaultedGame[];
}

/** A worker's batches played: their binaries obtained from the cache or the database and verified, then their pairs. */
/** What a batch's player says as it goes. */
export interface BatchEvents {
  /** Its binaries and options are verified and its games begin (not said for a batch refused). */
  started: () => void;
  pairEnded: () => void;
}

export class BatchPlayer {
  private readonly factorFor: FactorFor;

  constructor(
    private readonly options: Pick<
      WorkerOptions,
      "name" | "database" | "player" | "openings" | "cache" | "trustedKeys"
    >,
    session: WorkerSession,
    /** Binaries are fetched under the claims' stop: a stop ends their fetch at once. */
    private readonly claims: DatabaseHandle,
    private readonly rng: Rng,
    private readonly log: (line: string) => void,
  ) {
    this.factorFor = timeScaler(options, session, log);
  }

  /** Plays the batch, telling `events` when its games begin and as each game pair ends. */
  async play(batch: PlayableBatch, events: BatchEvents): Promise<PlayedBatch> {
    const { cache } = this.options;
    const keys = this.options.trustedKeys();
    const binaries = binariesOf(batch);
    // In use until the batch is over: no eviction (of this worker or another sharing the cache) removes them meanwhile.
    const hashes = binaries.map((binary) => binary.sha256);
    const done = await cache.use(hashes);
    try {
      const cached = cache.holds(hashes);
      const paths = await this.claims.retrying((sql) =>
        Promise.all(binaries.map((binary) => obtainBinary(sql, binary, keys, cache.dir))),
      );
      // A binary just added may take the cache beyond its bounds.
      if (!cached)
        await cache
          .evict()
          .catch((error: unknown) =>
            this.log(`worker ${this.options.name}: the engine cache could not be trimmed: ${(error as Error).message}`),
          );
      return await this.playObtained(batch, paths, keys, events);
    } finally {
      done();
    }
  }

  /** Plays a batch whose binaries are in the cache at `paths` (plus, minus and the reference). */
  private async playObtained(
    batch: PlayableBatch,
    paths: string[],
    keys: KeyObject[],
    events: BatchEvents,
  ): Promise<PlayedBatch> {
    const { player } = this.options;
    await player.retire(paths);
    const factor = await this.factorFor(batch, paths[0]!);
    // UCI-option mode: options only from a parameter list the master signed, with values in its bounds.
    const pairings = pairingsOf(
      paths,
      batch.optionDraw && drawOptions(verifiedDraw(keys, batch.runUid, batch.optionDraw)),
    );
    events.started();
    const tally = new BatchTally(pairings.length > 1);
    const faulted: FaultedGame[] = [];
    const event = `${batch.runName} iteration ${batch.iterationNumber} batch ${batch.batchId}`;
    const unitGames = 2 * pairings.length;
    // A run-wide order: no two units of a run share an opening until the book is used up.
    const openings = runOpenings(
      this.options.openings,
      batch.runSeed,
      batch.firstGame,
      batch.games / unitGames,
      unitGames,
    );
    const units = openings.map((opening) => ({ opening, limits: pairLimits(batch, this.rng, factor) }));
    await Promise.all(
      units.flatMap((unit, u) =>
        pairings.map(async (pairing, p) => {
          const [first, second] = pairing.engines;
          const result = await player.playPair({ first, second, ...unit });
          tally.add(result, pairing.side);
          // A crashing engine faults every game: hold no more than the database keeps of one worker per iteration.
          if (faulted.length < FAULTED_GAME_LIMITS.perIterationAndWorker)
            faulted.push(
              ...faultedGames(result, u * pairings.length + p, event, new Date(), [first.role, second.role]),
            );
          events.pairEnded();
        }),
      ),
    );
    return { tally, faulted: faulted.slice(0, FAULTED_GAME_LIMITS.perIterationAndWorker) };
  }
}

/**
 * A pair's search limits: the iteration's nodes or depth, or a time per move drawn in
 * [timelow, timehigh] and scaled.
 */
function pairLimits(batch: PlayableBatch, rng: Rng, factor: number): SearchLimits {
  return batch.moveLimit ?? { movetimeMs: scaledMovetime(uniform(rng, batch.timelowMs, batch.timehighMs), factor) };
}
