import { anyRunActive } from "../db/runs.js";
import { describeDatabase, type Database } from "../postgres/connection.js";
import type { DatabaseHandle } from "../postgres/database-handle.js";
import type { StatusLine } from "../core/status-line.js";
import { printable } from "../core/printable.js";
import type { PlayableBatch } from "./option-draw.js";
import type { WorkerSummary } from "./worker-options.js";

/** While idle, how often the worker looks whether any run is open (to say why it waits). */
const OPEN_RUN_CHECK_MS = 30_000;

/**
 * A worker's status line: its games so far and what it plays, or why an idle worker waits: no
 * run open on its database at all, or none with games to hand out now.
 */
export class WorkerStatus {
  /** The database, for the log and the status line. */
  readonly where: string;
  private readonly started = Date.now();
  private noRunOpen = false;
  private runsLookedAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly line: StatusLine,
    private readonly name: string,
    private readonly database: Database,
    /** The worker's summary, as it counts on. */
    private readonly summary: WorkerSummary,
  ) {
    this.where = `${describeDatabase(database.url)}${database.embedded ? " (this checkout's embedded server)" : ""}`;
  }

  /** Looks again whether any run is open, at most every OPEN_RUN_CHECK_MS. */
  async lookForOpenRuns(claims: DatabaseHandle): Promise<void> {
    if (Date.now() - this.runsLookedAt < OPEN_RUN_CHECK_MS) return;
    this.runsLookedAt = Date.now();
    this.noRunOpen = !(await claims.untilStopped(anyRunActive).catch(() => true));
  }

  /** A claim got a batch: a run is open. */
  workSeen(): void {
    this.noRunOpen = false;
  }

  /** What the worker did so far, and the batch it just claimed or reported, or why it waits. */
  show(batch?: PlayableBatch): void {
    const { summary } = this;
    const minutes = (Date.now() - this.started) / 60_000;
    const waiting = this.noRunOpen
      ? `, waiting for work: no run is open on ${this.where}; a master must run on this database ` +
        `(point the worker at the master's with DATABASE_URL or --config)`
      : `, waiting for work on ${describeDatabase(this.database.url)}`;
    this.line.update(
      `worker ${this.name}: ${summary.games} games in ${summary.batches} batches, ` +
        `${(summary.games / Math.max(minutes, 1e-9)).toFixed(1)} games/min` +
        (batch
          ? `, playing run ${printable(batch.runName)}${batch.optionDraw ? "" : ` iteration ${batch.iterationNumber}`}`
          : waiting),
    );
  }

  done(): void {
    this.line.done();
  }
}
