import type postgres from "postgres";
import { joinFragments, type Fragment } from "./columns.js";
import { addCounters, sumBatchCounters } from "./fault-columns.js";
import { countRunWorkers } from "./run-workers.js";
import { lockOpenIteration, lockOptionCarrier } from "./iteration-lock.js";
import { fromSetAsideWorker, setAsideWorkersQuery } from "./set-aside-workers.js";
import { valuesByName, type StoredValues } from "./stored-values.js";
import type { Pentanomial } from "../types/play.js";
import type { Values } from "../types/spsa.js";
import { PROGRESS_CHANNEL } from "../postgres/channels.js";
import type { Sql } from "../postgres/sql.js";

/**
 * The fold, in one place: reported (or refused) batches added to their iteration's counters, each
 * once. The statement that adds a batch marks it `folded`, so a fold killed midway rolls back whole
 * and one run twice adds nothing. One writer per iteration (its master, each poll), so reports
 * never queue on the iteration's row; the counters lag the reports by at most a poll. Claimed
 * games are the played ones plus the games of the batches in flight. A complete iteration is left
 * as it is. Also its reverse (setAsideBatches): batches taken back out of the counters.
 */

/** A batch a UCI-option fold reads before it counts it: done (reported) or refused, with its draw when it has one. */
export interface UnfoldedBatch {
  batchId: number;
  status: "done" | "expired";
  games: number;
  /** Null without a draw (a batch claimed without the option hook). */
  ak: number | null;
  /** The draw it played (AppliedBatch.drawNumber); null without a draw. */
  drawNumber: number | null;
  plus: Values | null;
  minus: Values | null;
  /** Whether its draw has moved θ already: only a done batch whose draw has not is applied. */
  applied: boolean;
  /**
   * A batch of the curvature pilot (θ± against θ₀): counted, never applied to θ
   * (src/master/option-pilot.ts measures it).
   */
  pilot: boolean;
  plusWins: number;
  minusWins: number;
  draws: number;
  pairs: Pentanomial;
  reportedAt: Date;
}

/** UCI-option mode's part of a fold: each transaction's batches moved into θ before they are counted. */
export interface FoldSteps<T> {
  /** Batches folded per transaction: a long backlog moves θ in several short steps. */
  limit: number;
  /** The run's parameters in its order: the draws are stored in it. */
  names: readonly string[];
  /** In the fold's transaction, under its locks: moves θ by the batches (in the order they were reported). */
  apply: (tx: postgres.TransactionSql, batches: readonly UnfoldedBatch[]) => Promise<T>;
  /** After that transaction committed: what `apply` returned (a rolled back fold never gets here). */
  committed: (applied: T) => void;
}

/**
 * A tuning run's fold. Build mode: the reports of workers set aside (docs/bad-workers.md) are held,
 * never counted, and their games opened again. UCI-option mode: they are held, and the master's
 * draw pool draws new batches for their games; the run's row is locked too, and each transaction
 * folds at most `steps.limit` batches, which `steps.apply` moves θ by first.
 */
export type TuningFold<T> = { runId: number } & ({ reopen: true } | { reopen: false; steps: FoldSteps<T> });

/**
 * The fold's one entry point: a verification's master (src/verification/verification.ts) folds
 * an iteration's batches as they are; a build-mode master (src/master/build-mode.ts) and a
 * UCI-option master (src/master/apply-reports.ts) pass their run (TuningFold). Each transaction
 * takes the iteration's lock (lockOpenIteration) and reads what its batches need, never the whole
 * run. When the counters moved, pages that watch (the dashboard) are told, after each commit; true then.
 */
export async function foldIteration<T = void>(
  sql: postgres.Sql,
  iterationId: number,
  tuning?: TuningFold<T>,
): Promise<boolean> {
  let movedAny = false;
  for (;;) {
    const { moved, folded, applied } = await sql.begin((tx) => foldOnce(tx, iterationId, tuning));
    if (applied && tuning && !tuning.reopen) tuning.steps.committed(applied.value);
    if (moved) await tellWatchers(sql, iterationId);
    movedAny ||= moved;
    if (!tuning || tuning.reopen || folded < tuning.steps.limit) return movedAny;
  }
}

/** One transaction of foldIteration: the batches it folded, whether the counters moved, and what `apply` returned. */
async function foldOnce<T>(
  tx: postgres.TransactionSql,
  iterationId: number,
  tuning: TuningFold<T> | undefined,
): Promise<{ moved: boolean; folded: number; applied?: { value: T } }> {
  const nothing = { moved: false, folded: 0 };
  if (!tuning) {
    if (!(await lockOpenIteration(tx, iterationId))) return nothing;
    return { moved: await foldBatches(tx, iterationId, "undrawn"), folded: 0 };
  }
  const { runId } = tuning;
  if (tuning.reopen) {
    if (!(await lockOpenIteration(tx, iterationId))) return nothing;
    await holdSetAsideReports(tx, runId, iterationId, true);
    return { moved: await foldBatches(tx, iterationId, "undrawn", fromSetAsideWorker(tx, runId)), folded: 0 };
  }
  const { steps } = tuning;
  if (!(await lockOptionCarrier(tx, { runId, iterationId }))) return nothing;
  // Under the locks: the reports of workers under suspicion are set aside first, and one that lands
  // after that statement is skipped, for the next fold to hold.
  await holdSetAsideReports(tx, runId, iterationId, false);
  const batches = await unfoldedBatches(
    tx,
    { iterationId, names: steps.names },
    steps.limit,
    fromSetAsideWorker(tx, runId),
  );
  if (batches.length === 0) return nothing;
  const applied = { value: await steps.apply(tx, batches) };
  const moved = await foldBatches(
    tx,
    iterationId,
    batches.map((b) => b.batchId),
  );
  return { moved, folded: batches.length, applied };
}

/**
 * Tells pages that watch (the dashboard) that the iteration's counters moved: after the fold's
 * commit, as it is read then.
 */
export async function tellWatchers(sql: postgres.Sql, iterationId: number): Promise<void> {
  await sql`select pg_notify(${PROGRESS_CHANNEL}, ${String(iterationId)})`;
}

/**
 * The fold's statement, inside the transaction holding the iteration's lock: marks the batches
 * folded and adds their sums, in one statement. `batches`: these ids (each must be a done or
 * refused batch not folded yet, or the transaction fails), or every such batch of the
 * iteration that has no UCI-option draw; none that `skip` matches (b is the batch). Its cost
 * is that of the batches it adds and of those in flight, however long the iteration. True if
 * the counters moved.
 */
export async function foldBatches(
  tx: postgres.TransactionSql,
  iterationId: number,
  batches: readonly number[] | "undrawn",
  skip?: Fragment,
): Promise<boolean> {
  const which =
    batches === "undrawn"
      ? tx`not exists (select 1 from spsa_perturbation p where p.batch_id = b.id)`
      : tx`b.id = any(${tx.array(batches as number[])}::bigint[])`;
  const [row] = await tx<{ folded: number; moved: boolean }[]>`
    with folded as (
      update spsa_batch b
      set folded = true
      where b.iteration_id = ${iterationId}
        and not b.folded
        and (b.status = 'done' or b.refused)
        and ${which}
        and not ${skip ?? tx`false`}
      returning ${FOLDED_COLUMNS(tx)}
    ),
    counted as (${countRunWorkers(tx, iterationId, 1)}),
    s as (${batchSums(tx)}),
    flight as (${gamesInFlight(tx, iterationId)}),
    moved as (
      update spsa_iteration i
      set ${addedCounters(tx)},
        games_claimed = i.games_played + s.played + flight.games,
        status = case
          when i.status = 'pending' and i.games_played + s.played + flight.games > 0 then 'in_progress'
          else i.status
        end
      from s, flight
      where i.id = ${iterationId}
        and i.status <> 'complete'
        and (s.batches > 0 or i.games_claimed <> i.games_played + flight.games)
      returning i.id
    )
    select (select batches from s) as folded, exists (select 1 from moved) as moved`;
  if (batches !== "undrawn" && row?.folded !== batches.length) {
    throw new Error(
      `iteration ${iterationId}: ${row?.folded ?? 0} of ${batches.length} batches folded; another fold took the rest`,
    );
  }
  return row?.moved ?? false;
}

/**
 * How a set-aside batch is marked: held by the master (its worker is under suspicion or rejected),
 * or taken out by an undo.
 */
export type SetAside = { held: true } | { undoId: number };

/**
 * Sets reported batches of an iteration aside (docs/bad-workers.md), under the iteration's fold
 * lock: each is marked (held_at or undo_id) and folded, so no fold takes it again; those already in
 * the counters are taken back out of them (the reverse of foldBatches, an iteration complete or
 * not); with `reopen`, their games become open batches again, to be played by others (build mode:
 * a UCI-option run's master draws new batches for them). A batch already set aside is left as it
 * is. Returns the batches and games set aside.
 */
export async function setAsideBatches(
  tx: postgres.TransactionSql,
  iterationId: number,
  batches: readonly number[],
  mark: SetAside,
  reopen: boolean,
): Promise<{ batches: number; games: number }> {
  if (batches.length === 0) return { batches: 0, games: 0 };
  const marking = "held" in mark ? tx`held_at = now()` : tx`undo_id = ${mark.undoId}`;
  const [row] = await tx<{ batches: number; games: number }[]>`
    with chosen as (
      select b.id, b.folded as was_folded
      from spsa_batch b
      where b.iteration_id = ${iterationId}
        and b.id = any(${tx.array(batches as number[])}::bigint[])
        and b.status = 'done'
        and b.held_at is null
        and b.undo_id is null
      for update
    ),
    marked as (
      update spsa_batch b
      set ${marking}, folded = true
      from chosen
      where b.id = chosen.id
      returning b.games, b.games_before
    ),
    folded as (
      select ${FOLDED_COLUMNS(tx)}
      from spsa_batch b
      join chosen on chosen.id = b.id
      where chosen.was_folded
    ),
    counted as (${countRunWorkers(tx, iterationId, -1)}),
    s as (${batchSums(tx)}),
    flight as (${gamesInFlight(tx, iterationId)}),
    taken as (
      update spsa_iteration i
      set ${addedCounters(tx, -1)},
        games_claimed = i.games_played - s.played + flight.games
      from s, flight
      where i.id = ${iterationId}
        and s.batches > 0
      returning i.id
    ),
    reopened as (
      insert into spsa_batch (iteration_id, games, games_before, status)
      select ${iterationId}, marked.games, marked.games_before, 'open'
      from marked
      where ${reopen}
      returning id
    )
    select (select count(*) from marked)::int as batches,
      (select coalesce(sum(games), 0) from marked)::int as games,
      (select count(*) from taken) + (select count(*) from reopened) as touched`;
  return { batches: row?.batches ?? 0, games: row?.games ?? 0 };
}

/**
 * The reverse of setAsideBatches for held batches (an accepted worker's: docs/bad-workers.md),
 * under the iteration's fold lock: each loses its hold and is added to the counters (the
 * iteration's and the run's by worker), the iteration complete or not; a held batch was never in
 * them (setAsideBatches took out those that were). With `reclaim`, the open batch that
 * setAsideBatches made of each one's games (its games and games_before), if no worker claimed it
 * yet, goes: those games are played now. The target grows only as far as the games given out
 * (played, in flight and open) now pass it (a complete iteration's, or one whose copies were
 * played already). Returns the batches and games restored.
 */
export async function restoreHeldBatches(
  tx: postgres.TransactionSql,
  iterationId: number,
  batches: readonly number[],
  reclaim: boolean,
): Promise<{ batches: number; games: number }> {
  if (batches.length === 0) return { batches: 0, games: 0 };
  const [row] = await tx<{ batches: number; games: number }[]>`
    with chosen as (
      select b.id
      from spsa_batch b
      where b.iteration_id = ${iterationId}
        and b.id = any(${tx.array(batches as number[])}::bigint[])
        and b.status = 'done'
        and b.held_at is not null
        and b.undo_id is null
      for update
    ),
    restored as (
      update spsa_batch b
      set held_at = null
      from chosen
      where b.id = chosen.id
      returning b.games, b.games_before
    ),
    folded as (
      select ${FOLDED_COLUMNS(tx)}
      from spsa_batch b
      join chosen on chosen.id = b.id
    ),
    counted as (${countRunWorkers(tx, iterationId, 1)}),
    s as (${batchSums(tx)}),
    copies as (
      select distinct on (o.games_before, o.games) o.id, o.games
      from spsa_batch o
      join restored r on r.games_before = o.games_before and r.games = o.games
      where o.iteration_id = ${iterationId}
        and o.status = 'open'
        and ${reclaim}
      order by o.games_before, o.games, o.id
    ),
    reclaimed as (
      -- A copy a worker claims meanwhile is no longer open when the delete gets its row: it stays.
      delete from spsa_batch o
      using copies
      where o.id = copies.id
        and o.status = 'open'
      returning o.games
    ),
    flight as (${gamesInFlight(tx, iterationId)}),
    still_open as (
      select (coalesce(sum(o.games), 0) - (select coalesce(sum(games), 0) from reclaimed))::int as games
      from spsa_batch o
      where o.iteration_id = ${iterationId}
        and o.status = 'open'
    ),
    added as (
      update spsa_iteration i
      set ${addedCounters(tx)},
        games_claimed = i.games_played + s.played + flight.games,
        target_games = greatest(i.target_games, i.games_played + s.played + flight.games + still_open.games)
      from s, flight, still_open
      where i.id = ${iterationId}
        and s.batches > 0
      returning i.id
    )
    select (select count(*) from restored)::int as batches,
      (select coalesce(sum(games), 0) from restored)::int as games,
      (select count(*) from added) as touched`;
  return { batches: row?.batches ?? 0, games: row?.games ?? 0 };
}

/**
 * In the fold's transaction (under the iteration's fold lock): the iteration's reported batches
 * that no fold took yet and whose workers are set aside are held, never counted or applied;
 * with `reopen` (build mode) their games are open again. Returns the batches held.
 */
async function holdSetAsideReports(
  tx: postgres.TransactionSql,
  runId: number,
  iterationId: number,
  reopen: boolean,
): Promise<number> {
  const rows = await tx<{ id: number }[]>`
    with aside as (${setAsideWorkersQuery(tx, runId)})
    select b.id::int
    from spsa_batch b
    join aside on aside.name = b.worker_name
    where b.iteration_id = ${iterationId}
      and b.status = 'done'
      and not b.folded`;
  if (rows.length === 0) return 0;
  const ids = rows.map((r) => r.id);
  return (await setAsideBatches(tx, iterationId, ids, { held: true }, reopen)).batches;
}

/**
 * Stops handing out the iteration's games: its open batches go, its target drops to the games
 * claimed or played, and its counters are folded in the same transaction (so they stay within
 * the new target). Returns the games taken back.
 */
export async function closeOpenBatches(sql: postgres.Sql, iterationId: number): Promise<number> {
  return sql.begin(async (tx) => {
    if (!(await lockOpenIteration(tx, iterationId))) return 0;
    const [row] = await tx<{ games: number }[]>`
      with gone as (
        delete from spsa_batch
        where iteration_id = ${iterationId}
          and status = 'open'
        returning games
      )
      update spsa_iteration
      set target_games = target_games - (select coalesce(sum(games), 0)::int from gone)
      where id = ${iterationId}
      returning (select coalesce(sum(games), 0)::int from gone) as games`;
    await foldBatches(tx, iterationId, "undrawn");
    return row?.games ?? 0;
  });
}

/**
 * Under the fold's locks (lockOptionCarrier): up to `limit` batches not folded yet in the order they
 * are to be applied, the order they were reported, but none that `skip` matches (b is the batch).
 */
async function unfoldedBatches(
  tx: postgres.TransactionSql,
  run: { iterationId: number; names: readonly string[] },
  limit: number,
  skip: Fragment,
): Promise<UnfoldedBatch[]> {
  const batches = await tx<
    (Omit<UnfoldedBatch, "plus" | "minus"> & { plus: StoredValues | null; minus: StoredValues | null })[]
  >`
    select b.id::int as "batchId",
      b.status,
      b.games,
      p.a_k as ak,
      p.draw_number as "drawNumber",
      p.plus_parameters as plus,
      p.minus_parameters as minus,
      p.applied_number is not null as applied,
      p.reference_parameters is not null as pilot,
      b.plus_wins as "plusWins",
      b.minus_wins as "minusWins",
      b.draws,
      b.pairs,
      b.reported_at as "reportedAt"
    from spsa_batch b
    left join spsa_perturbation p on p.batch_id = b.id
    where b.iteration_id = ${run.iterationId}
      and not b.folded
      and (b.status = 'done' or b.refused)
      and not ${skip}
    order by b.reported_at, b.id
    limit ${limit}`;
  const byName = (stored: StoredValues | null) => (stored === null ? null : valuesByName(run.names, stored));
  return batches.map((b) => ({ ...b, plus: byName(b.plus), minus: byName(b.minus) }));
}

/** Reference mode's results, the same columns in spsa_batch (as reported) and spsa_iteration (summed). */
const REFERENCE_COUNTERS = [
  "ref_plus_wins",
  "ref_plus_draws",
  "ref_plus_losses",
  "ref_minus_wins",
  "ref_minus_draws",
  "ref_minus_losses",
] as const;

/** The counters a fold adds as they are named in both tables. */
const PLAIN_COUNTERS = ["plus_wins", "minus_wins", "draws", "pairs_ll", "pairs_ld", "pairs_dd", "pairs_dw", "pairs_ww"];

/**
 * What a fold reads of each batch it adds or takes out (alias b), for the iteration's counters and
 * its run's by worker.
 */
const FOLDED_COLUMNS = (sql: Sql) => sql`
  b.games, b.status, b.plus_wins, b.minus_wins, b.draws, b.pairs, b.faults, b.replays, b.replay_limit_pairs, b.refused,
  ${joinFragments(
    sql,
    REFERENCE_COUNTERS.map((column) => sql`b.${sql(column)}`),
    ",",
  )}, b.worker_name, b.reported_at`;

/** The games of the iteration's batches in flight (claimed, not reported). */
function gamesInFlight(sql: Sql, iterationId: number) {
  return sql`
    select coalesce(sum(games), 0)::int as games
    from spsa_batch
    where iteration_id = ${iterationId}
      and status = 'claimed'`;
}

/** The sums of the batches being folded (`folded`), as the iteration's columns. */
function batchSums(sql: Sql) {
  return sql`
    select count(*)::int as batches,
      coalesce(sum(games) filter (where status = 'done'), 0)::int as played,
      coalesce(sum(plus_wins), 0)::int as plus_wins,
      coalesce(sum(minus_wins), 0)::int as minus_wins,
      coalesce(sum(draws), 0)::int as draws,
      coalesce(sum((pairs->>0)::int), 0)::int as pairs_ll,
      coalesce(sum((pairs->>1)::int), 0)::int as pairs_ld,
      coalesce(sum((pairs->>2)::int), 0)::int as pairs_dd,
      coalesce(sum((pairs->>3)::int), 0)::int as pairs_dw,
      coalesce(sum((pairs->>4)::int), 0)::int as pairs_ww,
      ${sumBatchCounters(sql)},
      ${joinFragments(
        sql,
        REFERENCE_COUNTERS.map((column) => sql`coalesce(sum(${sql(column)}), 0)::int as ${sql(column)}`),
        ",",
      )},
      coalesce(sum(replays), 0)::int as replays,
      coalesce(sum(replay_limit_pairs), 0)::int as replay_limit_pairs,
      (count(*) filter (where refused))::int as binaries_refused
    from folded`;
}

/** The iteration `i`'s counters plus (sign −1: minus) the sums `s` of batchSums. */
function addedCounters(sql: Sql, sign: 1 | -1 = 1) {
  const add = (column: string) => sql`${sql(column)} = i.${sql(column)} + ${sign}::int * s.${sql(column)}`;
  return sql`
    games_played = i.games_played + ${sign}::int * s.played,
    ${joinFragments(sql, PLAIN_COUNTERS.map(add), ",")},
    ${addCounters(sql, sign)},
    ${joinFragments(sql, REFERENCE_COUNTERS.map(add), ",")},
    ${joinFragments(sql, ["replays", "replay_limit_pairs", "binaries_refused"].map(add), ",")}`;
}
