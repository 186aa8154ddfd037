import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { RunLeasedError } from "../core/errors.js";
import { heartbeatInterval, holderRuns, MISSED_HEARTBEATS } from "../core/holder.js";
import {
  leaseToken,
  leaseTokenLost,
  releaseRunLease,
  renewRunLease,
  runLeaseOwner,
  type MasterIdentity,
  type RunLeaseOwner,
  type TakeRun,
} from "../db/runs.js";
import type { BuildHold } from "../engine-build/engine-builder.js";
import type { Database } from "../postgres/connection.js";
import type { DatabaseHandle } from "../postgres/database-handle.js";
import type postgres from "postgres";
import { databaseOutage } from "../postgres/retry.js";
import type { Sql } from "../postgres/sql.js";

/**
 * One master per run (docs/reliability.md): the master has its run's lease in spsa_run (session,
 * host, pid, since, heartbeat) as a worker holds its name. A second master is refused while the
 * lease's owner runs; one that died (kill -9) is taken over at once on its own host (its pid is
 * gone), from another host once its lease lapses (three missed heartbeats). A master that stalled
 * past that (a stopped process, a suspended machine) and was taken over learns it at its next
 * heartbeat, or when it renews its lease before a build and inside the transactions of its
 * writes, and stops.
 */

/** A new master process's identity; it heartbeats as often as a worker of its lease would. */
export function masterIdentity(leaseSeconds: number): MasterIdentity & { heartbeatMs: number } {
  const heartbeatMs = heartbeatInterval(leaseSeconds);
  return {
    session: randomUUID(),
    host: hostname(),
    pid: process.pid,
    leaseMs: MISSED_HEARTBEATS * heartbeatMs,
    heartbeatMs,
  };
}

/**
 * Taking a run for `identity`: the lease's recorded owner runs unless the lease lapsed or, on
 * this host, its pid is gone.
 */
export function takeRun(identity: MasterIdentity): TakeRun {
  return { identity, isAlive: (owner) => holderRuns(owner, owner.lapsed) };
}

/** "master pid 123 on host-a since 2026-11-28 00:40:12 UTC (seen 2 s ago)". */
export function describeLeaseOwner(owner: RunLeaseOwner): string {
  const since = owner.since
    .toISOString()
    .replace("T", " ")
    .replace(/\.\d+Z$/, " UTC");
  const pid = owner.pid === null ? "" : `pid ${owner.pid} `;
  return `master ${pid}on ${owner.host} since ${since} (seen ${Math.round(owner.secondsSinceSeen)} s ago)`;
}

/** A live master has the run's lease: one line naming it (users read "held by"). */
export function leasedError(runName: string, owner: RunLeaseOwner): RunLeasedError {
  return new RunLeasedError(
    `run "${runName}" is held by ${describeLeaseOwner(owner)}; stop that master first ` +
      "(one that died is taken over by itself: at once on its own host, from another once it misses 3 heartbeats)",
  );
}

/** This master's lease on its run, while it runs it. */
export class RunLease {
  /** Aborted when the run is lost, or when the master is stopped (`outer`). */
  readonly signal: AbortSignal;
  /** Why this master stops: another master took the run over. */
  lost: RunLeasedError | undefined;
  private readonly stop = new AbortController();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly database: Database,
    private readonly run: { id: number; name: string },
    private readonly identity: MasterIdentity & { heartbeatMs: number },
    outer: AbortSignal | undefined,
  ) {
    this.signal = outer ? AbortSignal.any([outer, this.stop.signal]) : this.stop.signal;
    this.timer = setInterval(() => {
      // A failed heartbeat (the database is down) changes nothing: no other master can take the run meanwhile.
      this.renew(this.database.sql).catch(() => {});
    }, identity.heartbeatMs);
    this.timer.unref();
  }

  /** Renews the lease (before a build: a stalled master that lost the run never starts one); throws if it is lost. */
  async confirm(): Promise<void> {
    this.signal.throwIfAborted();
    await this.renew(this.database.sql);
  }

  /**
   * Before a write: renews the lease unless it was renewed within the last heartbeat interval.
   * Then the lease lasts two intervals more at least, so no other master can have taken the run:
   * a master that stalled longer (and may have lost it) always asks the database.
   */
  async stillLeased(): Promise<void> {
    this.signal.throwIfAborted();
    if (performance.now() - this.renewedAt >= this.identity.heartbeatMs) await this.confirm();
  }

  /** `work` in a transaction that locks the run's row: it commits only while this master has the run's lease. */
  async transaction<T>(work: (tx: postgres.TransactionSql) => Promise<T>): Promise<T> {
    this.signal.throwIfAborted();
    return this.database.sql.begin(async (tx) => {
      await this.renew(tx);
      return work(tx);
    }) as Promise<T>;
  }

  private renewedAt = performance.now();

  /** On `sql`: in a transaction, the lease's new owner is read in it too (one connection may be all the master has). */
  private async renew(sql: Sql): Promise<void> {
    const started = performance.now();
    if (!(await renewRunLease(sql, this.run.id, this.identity))) throw await this.lose(sql);
    this.renewedAt = started;
  }

  /**
   * The build trees' locks as this master holds them (src/engine-build/engine-builder.ts
   * BuildHold): through its lease on the run. A master waiting for a tree breaks the lock of a
   * master whose run another took over (or that let it go), alive or not; this one is fenced by
   * `confirm`.
   */
  treeHold(db: DatabaseHandle): BuildHold {
    // Retried through outages: a database restarted during a build delays the build, never fails
    // it. Not cut short by the stop, but each attempt checks it (a query left in flight at the
    // stop kept the client's connection, and the process, alive after the master closed it), so
    // a master that lost its run or was stopped never retries on a client it has closed.
    const retrying = db.stoppedBy(undefined);
    return {
      token: leaseToken(this.run.id, this.identity.session),
      lost: (token) =>
        retrying.retrying((sql) => {
          this.signal.throwIfAborted();
          return leaseTokenLost(sql, token);
        }),
      confirm: () => retrying.retrying(() => this.confirm()),
    };
  }

  /**
   * The run is free for the next master at once (at the end, or on a stop or an error). Not on a
   * stop during an outage: the query would wait for the client's next connection attempt, up to
   * 10 s away, and a stop ends within seconds. The next master takes the run over all the same:
   * at once on this host (this pid is gone), from another once the heartbeats have stopped.
   */
  async release(): Promise<void> {
    clearInterval(this.timer);
    if (this.lost || (this.signal.aborted && databaseOutage())) return;
    await releaseRunLease(this.database.sql, this.run.id, this.identity.session).catch(() => {});
  }

  /**
   * Reads the lease's new owner on `sql`, the caller's own (never a transaction waiting on the
   * pool's one connection).
   */
  private async lose(sql: Sql): Promise<RunLeasedError> {
    clearInterval(this.timer);
    const owner = await runLeaseOwner(sql, this.run.id).catch(() => undefined);
    this.lost ??= new RunLeasedError(
      `run "${this.run.name}" was taken over by ${owner ? describeLeaseOwner(owner) : "another master"} ` +
        "while this one stalled; this master stops",
    );
    this.stop.abort(this.lost);
    return this.lost;
  }
}
