import type postgres from "postgres";
import type { RowOf } from "./columns.js";
import type { spsaBinary } from "./schema.js";
import type { Sql } from "../postgres/sql.js";

/**
 * SQL of engine binaries (spsa_binary), stored by sha256 so a remote worker needs only the
 * database URL; their bytes are kept only while something can still run them (pruneBinaries).
 */

/**
 * Locks a binary's row until the transaction ends and says whether it holds its bytes (undefined:
 * no row yet). A transaction that names a binary (an iteration, a run's reference) locks it
 * first: no prune can take the bytes before that name commits, and one that took them first is
 * seen here, so the bytes are stored again.
 */
export async function lockBinary(tx: postgres.TransactionSql, hash: string): Promise<{ stored: boolean } | undefined> {
  const [row] = await tx<{ stored: boolean }[]>`
    select content is not null as stored
    from spsa_binary
    where sha256 = ${hash}
    for update`;
  return row;
}

/** Stores a binary's bytes: a new row, or the bytes of a pruned one back. */
export async function insertBinary(sql: Sql, hash: string, content: Buffer): Promise<void> {
  await sql`
    insert into spsa_binary (sha256, size, content)
    values (${hash}, ${content.length}, ${content})
    on conflict (sha256) do update
    set content = excluded.content, pruned_at = null
    where spsa_binary.content is null`;
}

/** The stored binary with this hash, if the database has its row (`content` null: its bytes were pruned). */
export async function storedBinary(
  sql: Sql,
  hash: string,
): Promise<RowOf<typeof spsaBinary, "content" | "prunedAt"> | undefined> {
  const [row] = await sql<RowOf<typeof spsaBinary, "content" | "prunedAt">[]>`
    select content, pruned_at as "prunedAt"
    from spsa_binary
    where sha256 = ${hash}`;
  return row;
}

/** Iterations a worker can still play: open, of an active run (what spsa_claim_batch hands out). */
const PLAYABLE = (sql: Sql) => sql`(
  select i.plus_engine_sha256,
    i.minus_engine_sha256,
    i.reference_engine_sha256,
    i.plus_engine_path,
    i.minus_engine_path,
    i.reference_engine_path
  from spsa_iteration i
  join spsa_run r on r.id = i.run_id
  where i.status <> 'complete'
    and r.status = 'active')`;

/**
 * The binaries something can still run (of spsa_binary aliased b): those a playable iteration
 * names (tuning, and the carriers of verifications, ship checks and transfers), an active run's
 * reference engine, an active UCI-option run's engine.
 */
const NEEDED = (sql: Sql) => sql`(
  exists (
    select 1
    from ${PLAYABLE(sql)} p
    where b.sha256 in (p.plus_engine_sha256, p.minus_engine_sha256, p.reference_engine_sha256)
  )
  or exists (
    select 1
    from spsa_run r
    where r.status = 'active'
      and r.reference_sha256 = b.sha256
  )
  or exists (
    select 1
    from spsa_option_run o
    join spsa_run r on r.id = o.run_id
    where r.status = 'active'
      and o.engine_sha256 = b.sha256
  ))`;

/**
 * Drops the bytes of every binary nothing can still run, keeping its row (sha256, size). Rows
 * are locked first (skipping those a transaction is naming right now), then checked again on a
 * fresh snapshot: a name committed before the lock is seen, and one after it waits for this
 * transaction and stores the bytes again (lockBinary).
 */
export async function pruneBinaries(sql: postgres.Sql): Promise<{ binaries: number; bytes: number }> {
  return sql.begin(async (tx) => {
    const candidates = await tx<{ sha256: string }[]>`
      select sha256
      from spsa_binary b
      where content is not null
        and not ${NEEDED(tx)}
      for update skip locked`;
    if (candidates.length === 0) return { binaries: 0, bytes: 0 };
    const [pruned] = await tx<{ binaries: number; bytes: number }[]>`
      with pruned as (
        update spsa_binary b
        set content = null, pruned_at = now()
        where sha256 = any(${candidates.map((c) => c.sha256)})
          and not ${NEEDED(tx)}
        returning size
      )
      select count(*)::int as binaries, coalesce(sum(size), 0)::float8 as bytes
      from pruned`;
    return pruned ?? { binaries: 0, bytes: 0 };
  }) as Promise<{ binaries: number; bytes: number }>;
}

/** The engine paths of the iterations a worker can still play (the master's files there are kept). */
export async function playablePaths(sql: Sql): Promise<string[]> {
  const rows = await sql<{ path: string }[]>`
    select x.path
    from ${PLAYABLE(sql)} p, unnest(array[p.plus_engine_path, p.minus_engine_path, p.reference_engine_path]) as x(path)
    where x.path is not null`;
  return rows.map((row) => row.path);
}

/**
 * Makes the space of pruned bytes reusable at once (VACUUM; a role that does not own the table only
 * gets a warning).
 */
export async function reclaimBinarySpace(sql: postgres.Sql): Promise<void> {
  await sql`vacuum spsa_binary`;
}
