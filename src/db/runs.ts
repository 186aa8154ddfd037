import { randomBytes } from "node:crypto";
import type postgres from "postgres";
import { selectColumns, type RowOf } from "./columns.js";
import { spsaRun } from "./schema.js";
import type { StoredRunConfig } from "../types/config.js";
import type { Values } from "../types/spsa.js";
import type { Sql } from "../postgres/sql.js";

/** SQL of tuning runs (spsa_run): the master's run, and a run looked up by name. */

const RUN_KEYS = [
  "id",
  "uid",
  "name",
  "status",
  "seed",
  "initialParameters",
  "currentParameters",
  "reference",
  "referencePath",
  "referenceSha256",
  "referenceSignature",
  "endedEarlyAt",
] as const;
export type RunRow = RowOf<typeof spsaRun, (typeof RUN_KEYS)[number]>;

/**
 * A master process taking a run: its random session id, host and pid, and how long its lease lasts
 * without a heartbeat.
 */
export interface MasterIdentity {
  session: string;
  host: string;
  pid: number;
  leaseMs: number;
}

/** The master that has a run's lease, as its row tells; seconds and `lapsed` by the database's clock. */
export interface RunLeaseOwner {
  host: string;
  pid: number | null;
  since: Date;
  secondsSinceSeen: number;
  /** Its lease ran out: it missed its heartbeats. */
  lapsed: boolean;
}

/** Taking a run for a master: who it is, and whether the lease's recorded owner still runs (the caller decides). */
export interface TakeRun {
  identity: MasterIdentity;
  isAlive: (owner: RunLeaseOwner) => boolean;
}

export type OpenedRun =
  | { run: RunRow; created: boolean; leasedBy?: undefined; tookOverFrom: RunLeaseOwner | undefined }
  /** A live master has the run's lease: nothing was changed. */
  | { run: RunRow; created: false; leasedBy: RunLeaseOwner; tookOverFrom?: undefined };

const HOLDER = (sql: Sql) => sql`
  master_host as host,
  master_pid as pid,
  master_since as since,
  extract(epoch from now() - master_seen_at)::float8 as "secondsSinceSeen",
  master_expires_at < now() as lapsed`;

/** The master's columns of spsa_run as `identity` takes the run. */
const HOLD = (sql: Sql, identity: MasterIdentity) => sql`
  master_session = ${identity.session},
  master_host = ${identity.host},
  master_pid = ${identity.pid},
  master_since = now(),
  master_seen_at = now(),
  master_expires_at = now() + make_interval(secs => ${identity.leaseMs / 1000})`;

const NO_HOLD = (sql: Sql) => sql`
  master_session = null,
  master_host = null,
  master_pid = null,
  master_since = null,
  master_seen_at = null,
  master_expires_at = null`;

/**
 * The run to work on: the active run of this name, or a new one. With `fresh`, an existing
 * run of this name is kept under a new name (`name~id`) and marked stopped. With `master`, the
 * run (existing or new) becomes that master's in the same transaction, unless a live master
 * has its lease (`leasedBy`, and nothing changes, `fresh` included).
 */
export async function openRun(
  sql: postgres.Sql,
  options: {
    name: string;
    fresh: boolean;
    seed?: string;
    config: StoredRunConfig;
    reference?: string | undefined;
    values: Values;
    master?: TakeRun;
  },
): Promise<OpenedRun> {
  const { master } = options;
  return sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(hashtext(${`spsa_run:${options.name}`}))`;
    const [existing] = await tx<RunRow[]>`
      select ${selectColumns(tx, spsaRun, RUN_KEYS)}
      from spsa_run
      where name = ${options.name}
      for update`;
    const previous = existing && (await runLeaseOwner(tx, existing.id));
    if (existing && master && previous && master.isAlive(previous))
      return { run: existing, created: false, leasedBy: previous };
    if (existing && !options.fresh) {
      if (master)
        await tx`
          update spsa_run
          set ${HOLD(tx, master.identity)}
          where id = ${existing.id}`;
      return { run: existing, created: false, tookOverFrom: previous };
    }
    if (existing) {
      await tx`
        update spsa_run
        set name = name || '~' || id,
          status = case when status = 'active' then 'stopped' else status end,
          ${NO_HOLD(tx)}
        where id = ${existing.id}`;
    }
    const seed = options.seed ?? randomBytes(8).toString("hex");
    const [run] = await tx<RunRow[]>`
      insert into spsa_run (name, seed, config, initial_parameters, current_parameters, reference)
      values (${options.name}, ${seed}, ${tx.json(options.config as postgres.JSONValue)}, ${tx.json(options.values)},
        ${tx.json(options.values)}, ${options.reference ?? null})
      returning ${selectColumns(tx, spsaRun, RUN_KEYS)}`;
    if (!run) throw new Error("insert into spsa_run returned nothing");
    if (master)
      await tx`
        update spsa_run
        set ${HOLD(tx, master.identity)}
        where id = ${run.id}`;
    return { run, created: true, tookOverFrom: undefined };
  });
}

/**
 * Renews a master's lease on its run (the heartbeat), and in a transaction locks the run's row
 * until it commits, so no other master takes the run over in between (the fence of a master's
 * writes). False: the run is no longer this session's.
 */
export async function renewRunLease(
  sql: Sql,
  runId: number,
  identity: Pick<MasterIdentity, "session" | "leaseMs">,
): Promise<boolean> {
  const rows = await sql`
    update spsa_run
    set master_seen_at = now(), master_expires_at = now() + make_interval(secs => ${identity.leaseMs / 1000})
    where id = ${runId}
      and master_session = ${identity.session}
    returning id`;
  return rows.length > 0;
}

/** A master's hold on its run, as a build tree's lock records it (src/core/lock-file.ts LockHold). */
export function leaseToken(runId: number, session: string): string {
  return `run ${runId} session ${session}`;
}

/**
 * Whether the hold a lock records (leaseToken) is gone: its run is another master's now, or no
 * master's, or gone. A lapsed lease whose master nobody replaced is not lost: that master may
 * renew it. A token of another form is not this function's to judge: false.
 */
export async function leaseTokenLost(sql: Sql, token: string): Promise<boolean> {
  const match = /^run (\d+) session (\S+)$/.exec(token);
  if (!match) return false;
  const [row] = await sql<{ lost: boolean }[]>`
    select master_session is distinct from ${match[2]!} as lost
    from spsa_run
    where id = ${Number(match[1])}`;
  return row?.lost ?? true;
}

/** The master that has the run's lease now, if any. */
export async function runLeaseOwner(sql: Sql, runId: number): Promise<RunLeaseOwner | undefined> {
  const [row] = await sql<RunLeaseOwner[]>`
    select ${HOLDER(sql)}
    from spsa_run
    where id = ${runId}
      and master_session is not null`;
  return row;
}

/** A master leaving its run (at its end, or stopped): the run is free for the next one at once. */
export async function releaseRunLease(sql: Sql, runId: number, session: string): Promise<void> {
  await sql`
    update spsa_run
    set ${NO_HOLD(sql)}
    where id = ${runId}
      and master_session = ${session}`;
}

/**
 * Records the run's reference engine once it is built or taken (reference mode), unless a
 * master of this run recorded one first; returns the one recorded.
 */
export async function recordReference(
  sql: Sql,
  runId: number,
  engine: { path: string; sha256: string; signature: string },
): Promise<{ path: string; sha256: string; signature: string | null }> {
  await sql`
    update spsa_run
    set reference_path = ${engine.path}, reference_sha256 = ${engine.sha256}, reference_signature = ${engine.signature}
    where id = ${runId}
      and (reference_sha256 is null or reference_signature is null)`;
  const [row] = await sql<{ path: string; sha256: string; signature: string | null }[]>`
    select reference_path as path, reference_sha256 as sha256, reference_signature as signature
    from spsa_run
    where id = ${runId}`;
  if (!row) throw new Error(`run ${runId} vanished`);
  return row;
}

/**
 * Build mode's early end (the stop rule, stop_early): records `iteration` as the run's last unless
 * a master recorded one first, and returns the one recorded, which every master of the run keeps.
 */
export async function recordEarlyEnd(sql: Sql, runId: number, iteration: number): Promise<number> {
  const [row] = await sql<{ ended: number }[]>`
    update spsa_run
    set ended_early_at = coalesce(ended_early_at, ${iteration})
    where id = ${runId}
    returning ended_early_at as ended`;
  if (!row) throw new Error(`run ${runId} vanished`);
  return row.ended;
}

export async function markRunComplete(sql: Sql, runId: number): Promise<void> {
  await sql`
    update spsa_run
    set status = 'complete', completed_at = coalesce(completed_at, now())
    where id = ${runId}`;
}

/** Whether any run is open for play (a worker with nothing to claim says whether a master runs on its database). */
export async function anyRunActive(sql: Sql): Promise<boolean> {
  const [row] = await sql<{ active: boolean }[]>`
    select exists (select 1 from spsa_run where status = 'active') as active`;
  return row?.active ?? false;
}

/** The run of this name, if there is one. */
export async function runNamed(sql: Sql, name: string): Promise<RowOf<typeof spsaRun, "id" | "name"> | undefined> {
  const [run] = await sql<RowOf<typeof spsaRun, "id" | "name">[]>`
    select id, name
    from spsa_run
    where name = ${name}`;
  return run;
}

export interface ThetaSources {
  initial: Values;
  current: Values;
  /** The last completed iteration, if any. */
  last: number | null;
  /** θ after iteration `after`'s step, once it is complete. */
  next: Values | null;
}

/** What θ after iteration `after` (or the start, or the current θ) is read from, in one query. */
export async function thetaSources(
  sql: Sql,
  runId: number,
  after: number | undefined,
): Promise<ThetaSources | undefined> {
  const [row] = await sql<ThetaSources[]>`
    select r.initial_parameters as initial,
      r.current_parameters as current,
      (select max(iteration_number) from spsa_iteration where run_id = r.id and status = 'complete') as last,
      (
        select theta_after
        from spsa_iteration
        where run_id = r.id
          and iteration_number = ${after ?? -1}
          and status = 'complete'
      ) as next
    from spsa_run r
    where r.id = ${runId}`;
  return row;
}

/** θ as the database holds it. */
export async function runParameters(sql: Sql, runId: number): Promise<Values> {
  const [row] = await sql<{ theta: Values }[]>`
    select current_parameters as theta
    from spsa_run
    where id = ${runId}`;
  if (!row) throw new Error(`run ${runId} vanished`);
  return row.theta;
}

/** θ₀: the values the run started from (what the curvature pilot and the gain blocks play against). */
export async function runStartTheta(sql: Sql, runId: number): Promise<Values> {
  const [row] = await sql<{ start: Values }[]>`
    select initial_parameters as start
    from spsa_run
    where id = ${runId}`;
  if (!row) throw new Error(`run ${runId} vanished`);
  return row.start;
}
