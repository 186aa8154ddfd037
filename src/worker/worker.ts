import { UntrustedBinaryError } from "../engine-build/binary-store.js";
import { UntrustedOptionsError } from "../signing/options-signature.js";
import { claimBatch, expireLeases, heartbeat, overLimit, refuseBatch, reportBatch } from "../db/batches.js";
import { recordConcurrency, type WorkerSession } from "../db/workers.js";
import { PollBackoff } from "../postgres/poll-backoff.js";
import { DatabaseHandle } from "../postgres/database-handle.js";
import { DatabaseError } from "../core/errors.js";
import { StatusLine } from "../core/status-line.js";
import { heartbeatInterval } from "../core/holder.js";
import { seededRng } from "../core/rng.js";
import { printable } from "../core/printable.js";
import { noteOutcome } from "./batch-outcome.js";
import { BatchPlayer, type PlayedBatch } from "./batch-player.js";
import type { BatchTally } from "./batch-tally.js";
import { DelayGuard } from "./delay-guard.js";
import { handBack } from "./hand-back.js";
import { HeartbeatTimer } from "./heartbeat-timer.js";
import { knownLists, withOptionList, type PlayableBatch } from "./option-draw.js";
import { takeName } from "./take-name.js";
import { WakeableSleep } from "./wakeable-sleep.js";
import type { WorkerOptions, WorkerSummary } from "./worker-options.js";
import { WorkerStatus } from "./worker-status.js";
import { WorkerStop } from "./worker-stop.js";

export type { WorkerOptions, WorkerSummary } from "./worker-options.js";

/**
 * A worker: claims batches of games, plays them as pairs through the runner, and reports
 * each batch once. It keeps enough batches in flight to keep `concurrency` games running,
 * heartbeats their leases, and waits for work by polling with a backoff (no LISTEN: one
 * connection, no session state, so it can go through a pooler in transaction mode).
 *
 * A stop (`signal`, the name taken over, or a failure) ends the games in flight at once,
 * scores none of them, reports the batches that had finished, and returns the others to the
 * pool (spsa_release_claims), all within STOP_PATIENCE_MS of database time (worker-stop.ts);
 * what the database could not take back then stays claimed until its lease ends, and the
 * stop throws a DatabaseError saying so.
 */
export async function runWorker(options: WorkerOptions): Promise<WorkerSummary> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const heartbeatMs = heartbeatInterval(options.leaseSeconds);
  const db = new DatabaseHandle(options.database.sql, log, options.signal);
  const session = await takeName(options, db, heartbeatMs, log);
  return new WorkerLoop(options, db, session, heartbeatMs, log).run();
}

/**
 * "starts batch 7 (8 games, run first, iteration 3)": a build-mode or verification batch; a UCI-option
 * run's has no iteration of its own to name ("starts batch 7 (2 games, run tune)").
 */
export function startsBatch(batch: PlayableBatch): string {
  const iteration = batch.optionDraw ? "" : `, iteration ${batch.iterationNumber}`;
  return `starts batch ${batch.batchId} (${batch.games} games, run ${printable(batch.runName)}${iteration})`;
}

/** What the master did not sign for the worker to run or send its engines: the batch goes back to the pool. */
type Untrusted = UntrustedBinaryError | UntrustedOptionsError;

/** A worker process once it holds its name: its state between claims, and a method for each step. */
class WorkerLoop {
  private readonly name: string;
  private readonly summary: WorkerSummary = { games: 0, batches: 0, refused: 0, binariesRefused: 0 };
  private readonly inFlight = new Map<number, Promise<void>>();
  /** Batches this process claimed that are neither reported, refused nor given up on: a stop returns them. */
  private readonly holding = new Map<number, PlayableBatch>();
  /** Iterations whose binaries this worker refused: not claimed again, as the refusal would repeat. */
  private readonly refusedIterations: number[] = [];
  /** The claim cap's reason, said once while claims meet it (spsa_claim_batch). */
  private capped: string | undefined;
  /** A refusal for want of any trusted key: the worker stops with it. */
  private untrusted: Untrusted | undefined;
  /** Games at once: the delay guard may lower it. */
  private concurrency: number;
  private readonly guard: DelayGuard;
  /** Games claimed so far (toward `maxGames`), and those claimed but not yet played (room for another claim). */
  private claimedGames = 0;
  private pendingGames = 0;
  private idleSince = Date.now();
  private readonly stop: WorkerStop;
  /** Claims and binary fetches end at the stop; reports, refusals and the hand-back have its patience. */
  private readonly claims: DatabaseHandle;
  private readonly reports: DatabaseHandle;
  private readonly poll: PollBackoff;
  private readonly sleeper = new WakeableSleep();
  private readonly heartbeat: HeartbeatTimer;
  private readonly status: WorkerStatus;
  private readonly batches: BatchPlayer;

  constructor(
    private readonly options: WorkerOptions,
    private readonly db: DatabaseHandle,
    private readonly session: WorkerSession,
    heartbeatMs: number,
    private readonly log: (line: string) => void,
  ) {
    const { name } = options;
    this.name = name;
    this.concurrency = options.concurrency;
    this.guard = new DelayGuard(options.concurrency);
    this.stop = new WorkerStop(options.signal, () => {
      options.player.close().catch(() => {});
      this.sleeper.wake();
    });
    this.claims = db.stoppedBy(this.stop.signal);
    this.reports = db.stoppedBy(this.stop.patience);
    this.poll = new PollBackoff(options.pollIntervalMs);
    this.heartbeat = new HeartbeatTimer(heartbeatMs, () => this.beat());
    const line = options.status ?? new StatusLine(process.stderr, 30_000);
    this.status = new WorkerStatus(line, name, options.database, this.summary);
    const rng = seededRng(options.seed ?? `${name}:${process.pid}:${Date.now()}`);
    this.batches = new BatchPlayer(options, session, this.claims, rng, log);
  }

  async run(): Promise<WorkerSummary> {
    this.log(`worker ${this.name}: ${this.status.where}`);
    if (this.options.concurrencyNote) this.log(`worker ${this.name}: concurrency ${this.options.concurrencyNote}`);
    this.stop.follow();
    this.heartbeat.start();
    let failure: { error: unknown } | undefined;
    try {
      await this.claimUntilStopped();
    } catch (error) {
      // A claim or fetch cut short by the stop is the stop; anything else stops the worker too.
      if (!this.stop.stopped) failure = { error };
      this.stop.begin();
    }
    try {
      await this.finish(failure);
    } finally {
      this.stop.release();
      this.heartbeat.stop();
      this.status.done();
    }
    return this.summary;
  }

  /** Claims while games are wanted and there is room for them; ends at the stop, or when no more work is wanted. */
  private async claimUntilStopped(): Promise<void> {
    const { maxGames, idleExitMs } = this.options;
    while (!this.stop.stopped) {
      if (this.untrusted) throw this.untrusted;
      const wantMore = maxGames === undefined || this.claimedGames < maxGames;
      const claimed = wantMore && this.pendingGames <= this.concurrency ? await this.claim() : undefined;
      if (claimed) {
        this.start(claimed);
        continue;
      }
      if (this.inFlight.size === 0) {
        if (!wantMore) break;
        if (idleExitMs !== undefined && Date.now() - this.idleSince >= idleExitMs) break;
        await this.status.lookForOpenRuns(this.claims);
        this.status.show();
      }
      // Sleep until a batch finishes, the next poll or a stop: polls come soon after work was seen,
      // up to the cap while there is none.
      await this.sleeper.sleep(this.poll.next());
    }
  }

  /** A batch of at most the games still wanted, or none to hand out now. */
  private async claim(): Promise<PlayableBatch | undefined> {
    const limit = Math.min(this.options.batchSize, (this.options.maxGames ?? Infinity) - this.claimedGames);
    const known = knownLists();
    let batch;
    try {
      batch = await this.claims.retrying(async (sql) => {
        // A dead worker's games are handed out again, whoever looks first.
        await expireLeases(sql);
        return claimBatch(sql, this.name, Math.max(2, limit - (limit % 2)), { skip: this.refusedIterations, known });
      });
    } catch (error) {
      // At its claim cap, or after giving back too many batches in a minute, the worker waits and
      // claims again later, as when none is open.
      const reason = overLimit(error);
      if (reason === undefined) throw error;
      if (this.capped === undefined) this.log(`worker ${this.name}: ${reason}`);
      this.capped = reason;
      return undefined;
    }
    this.capped = undefined;
    return batch && withOptionList(batch, known);
  }

  /** Holds a claimed batch and plays it in the background, then reports it. */
  private start(batch: PlayableBatch): void {
    this.holding.set(batch.batchId, batch);
    this.heartbeat.fitLease(batch.leaseSeconds);
    this.idleSince = Date.now();
    this.poll.reset();
    this.status.workSeen();
    this.claimedGames += batch.games;
    this.pendingGames += batch.games;
    this.status.show(batch);
    let unplayed = batch.games;
    const play = this.batches
      .play(batch, {
        // Said once per batch, once its binaries are verified: a log (not a terminal) gets the
        // status line only every 30 s.
        started: () => {
          this.status.done();
          this.log(`worker ${this.name}: ${startsBatch(batch)}`);
          this.status.show(batch);
        },
        pairEnded: () => {
          unplayed -= 2;
          this.pendingGames -= 2;
        },
      })
      .then((played) => this.report(batch, played))
      .catch((error: unknown) => this.fail(batch, error))
      .finally(() => {
        this.pendingGames -= unplayed;
        this.inFlight.delete(batch.batchId);
        this.sleeper.wake();
      });
    this.inFlight.set(batch.batchId, play);
  }

  private async report(batch: PlayableBatch, { tally, faulted }: PlayedBatch): Promise<void> {
    // Games a stop cut short are not results: the batch goes back to the pool (handBack).
    if (this.stop.stopped) return;
    const outcome = await this.reports.retrying((sql) =>
      reportBatch(sql, { batchId: batch.batchId, workerName: this.name, ...tally.counts(), faultedGames: faulted }),
    );
    this.holding.delete(batch.batchId);
    noteOutcome(this.log, batch, tally, outcome, this.summary, this.concurrency);
    this.guardGames(tally, batch.games);
    this.status.show(batch);
  }

  /** A batch that could not be played or reported. */
  private async fail(batch: PlayableBatch, error: unknown): Promise<void> {
    // Cut short by the stop, or its report did not get through in time: the stop hands it back.
    if (this.stop.stopped) return;
    if (error instanceof UntrustedBinaryError || error instanceof UntrustedOptionsError)
      return this.refuse(batch, error);
    // Its lease is no longer extended, so the batch returns to the pool for another try.
    this.holding.delete(batch.batchId);
    this.log(
      `batch ${batch.batchId} failed: ${(error as Error).message}; its games go back to the pool ` +
        `when its lease expires`,
    );
  }

  private async refuse(batch: PlayableBatch, error: Untrusted): Promise<void> {
    this.refusedIterations.push(batch.iterationId);
    this.summary.binariesRefused++;
    // Not played: they do not count toward --games.
    this.claimedGames -= batch.games;
    // With no key at all the worker stops, and its error is the one line said.
    if (error.noTrustedKey) this.untrusted = error;
    else this.log(`worker ${this.name}: ${error.message}; batch ${batch.batchId} goes back to the pool`);
    // If even the retries fail, the batch's lease expires and it returns to the pool uncounted.
    await this.reports
      .retrying((sql) => refuseBatch(sql, batch.batchId, this.name))
      .then(
        () => this.holding.delete(batch.batchId),
        () => {},
      );
  }

  /** Plays fewer games at once when delays outside the engines say the machine is overloaded (DelayGuard). */
  private guardGames(tally: BatchTally, games: number): void {
    const lowering = this.guard.observe(games + tally.replays, tally.replays + tally.delayLosses);
    if (!lowering) return;
    this.concurrency = lowering.to;
    this.options.player.setConcurrency(this.concurrency);
    const note = `lowered from ${lowering.from} to ${lowering.to}: ${lowering.reason}`;
    this.log(`worker ${this.name}: concurrency ${note}`);
    // Best effort: the log has it too, and a database outage must not stop the games.
    recordConcurrency(this.options.database.sql, this.session, this.concurrency, note).catch(() => {});
  }

  /** Extends the leases of the batches in flight, and stops the worker if another process took its name. */
  private beat(): void {
    // Not retried (the next beat is), but an outage it meets is said like any other.
    this.db
      .once((sql) => heartbeat(sql, this.session, [...this.inFlight.keys()]))
      .then(({ ownsName }) => {
        if (ownsName || this.stop.stopped) return;
        this.log(`worker ${this.name}: another process took this name over (--force); stopping`);
        this.stop.begin();
      })
      .catch(() => {});
  }

  /** After the loop: the batches in flight settle, and after a stop those still held go back to the pool. */
  private async finish(failure: { error: unknown } | undefined): Promise<void> {
    // A batch finished before a stop is reported (within the patience), one cut short is not.
    await Promise.allSettled(this.inFlight.values());
    const handedBack = this.stop.stopped
      ? await handBack(this.name, this.session, this.holding, this.reports)
      : undefined;
    if (failure) {
      if (handedBack?.batches) this.log(handedBack.line);
      throw failure.error;
    }
    if (handedBack?.left) throw new DatabaseError(handedBack.line);
    if (handedBack) this.log(handedBack.line);
  }
}
