import type postgres from "postgres";
import type { Sql } from "../postgres/sql.js";
import { thetaArray } from "./stored-values.js";
import type { Values } from "../types/spsa.js";

/**
 * SQL of the rows the master's draw pool (src/master/draw-pool.ts) writes and drops: the carrier
 * iteration's open batches, and one spsa_perturbation row per drawn batch (its draw, compact once
 * applied: docs/psql.md).
 */

/**
 * What the master's pool of drawn batches stands at (src/master/draw-pool.ts): drawn batches not
 * claimed yet, and games given out in batches (not those set aside: their games are given out again).
 */
export async function drawPoolState(tx: Sql, iterationId: number): Promise<{ open: number; allocated: number }> {
  const [row] = await tx<{ open: number; allocated: number }[]>`
    select (count(*) filter (where status = 'open'))::int as open,
      coalesce(sum(games) filter (where status in ('open', 'claimed', 'done')), 0)::int as allocated
    from spsa_batch
    where iteration_id = ${iterationId}
      and status in ('open', 'claimed', 'done')
      and held_at is null
      and undo_id is null`;
  return row ?? { open: 0, allocated: 0 };
}

/**
 * A new open batch of the carrier iteration, its games the `gamesBefore`-th onward of the run's
 * plan; returns its id.
 */
export async function insertOpenBatch(
  tx: Sql,
  iterationId: number,
  games: number,
  gamesBefore: number,
): Promise<number> {
  const [row] = await tx<{ id: number }[]>`
    insert into spsa_batch (iteration_id, games, games_before, status)
    values (${iterationId}, ${games}, ${gamesBefore}, 'open')
    returning id::int`;
  if (!row) throw new Error("batch insert returned nothing");
  return row.id;
}

export interface NewPerturbation {
  /** The batch row; also its batch_number (they are one since migration 0014: schema.ts, spsaPerturbation). */
  batchId: number;
  runId: number;
  /** The batch_number of the draw's first batch (its own, unless it shares a draw). */
  drawNumber: number;
  games: number;
  k: number;
  ck: number;
  ak: number;
  /** Drawn from θ after this many applied batches. */
  drawnFrom: number;
  /** signBits of the draw (src/spsa/option-batches.ts). */
  signs: string;
  plus: Values;
  minus: Values;
  /** A curvature pilot's batch or a gain block: θ₀, which plus and minus each play against. */
  reference?: Values;
  /** A gain block (src/spsa/gain-block-plan.ts): plus and minus are both θ, and it moves θ no step. */
  gain?: boolean;
}

/**
 * Records the master's draw for an open batch (the worker that claims it is filled in by
 * spsa_claim_batch): plus and minus as arrays in the run's order of `names`, a fifteenth of
 * the bytes of objects by name at 10,000 parameters.
 */
export async function insertPerturbation(tx: Sql, names: readonly string[], p: NewPerturbation): Promise<void> {
  await tx`
    insert into spsa_perturbation (batch_id, run_id, batch_number, draw_number, games, k, c_k, a_k, drawn_from, signs,
      plus_parameters, minus_parameters, reference_parameters, gain)
    values (${p.batchId}, ${p.runId}, ${p.batchId}, ${p.drawNumber}, ${p.games}, ${p.k}, ${p.ck}, ${p.ak},
      ${p.drawnFrom}, ${p.signs}::varbit,
      ${tx.json(thetaArray(names, p.plus))}, ${tx.json(thetaArray(names, p.minus))},
      ${p.reference ? tx.json(thetaArray(names, p.reference)) : null}, ${p.gain ?? false})`;
}

/**
 * Drops the drawn batches no worker claimed yet (an undo moved θ: their draws are around the old
 * one); the master draws new ones. A batch being claimed right now is skipped: it is played as drawn.
 */
export async function dropOpenDraws(tx: postgres.TransactionSql, iterationId: number): Promise<number> {
  const rows = await tx`
    with doomed as (
      select b.id
      from spsa_batch b
      where b.iteration_id = ${iterationId}
        and b.status = 'open'
      for update skip locked
    ),
    gone as (
      delete from spsa_perturbation p
      using doomed
      where p.batch_id = doomed.id
      returning p.batch_id
    )
    delete from spsa_batch b
    using gone
    where b.id = gone.batch_id
    returning b.id`;
  return rows.length;
}

/**
 * Drops the values of the run's batches that expired unplayed (or were refused): they will never be
 * played or applied; and those of gain blocks once counted (θ as it was, which nothing reads again).
 */
export async function dropUnplayedValues(tx: Sql, runId: number): Promise<void> {
  await tx`
    update spsa_perturbation p
    set plus_parameters = null, minus_parameters = null
    from spsa_batch b
    where p.run_id = ${runId}
      and p.plus_parameters is not null
      and p.applied_number is null
      and b.id = p.batch_id
      and (b.status = 'expired' or (p.gain and b.status = 'done' and b.folded))`;
}
