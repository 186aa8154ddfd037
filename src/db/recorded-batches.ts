import type postgres from "postgres";
import { outcomeOf, OUTCOME_KEYS, type OutcomeColumns } from "./iterations.js";
import { selectColumns } from "./columns.js";
import { spsaIteration } from "./schema.js";
import type { IterationSettings } from "../types/config.js";
import type { EvidenceBatch } from "../types/evidence.js";
import type { ChainEdit, InsertedBatch, IterationOutcome, Values } from "../types/spsa.js";
import type { Sql } from "../postgres/sql.js";
import { thetaArray, valuesByName, type StoredValues } from "./stored-values.js";

/**
 * What the evidence about workers and `spsa undo` read of a run's recorded batches: each
 * reported batch's worker, results and signs, a build-mode iteration's step as recorded, and a
 * UCI-option run's chain of applied batches (docs/bad-workers.md). The one place that knows
 * how signs, draws and results are stored; it returns plain objects.
 */

/** A reported batch as the evidence reads it (src/spsa/worker-evidence.ts), with its batch and iteration. */
export interface ReportRecord extends EvidenceBatch {
  batchId: number;
  /** Its iteration's number (a UCI-option run's carrier: 1). */
  iteration: number;
}

/**
 * A UCI-option report with its signs as stored: a bit string in the run's order
 * (src/spsa/option-batches.ts signsOfBits).
 */
export type OptionReportRecord = Omit<ReportRecord, "signs"> & { signBits: string };

/** spsa_batch `b` as a ReportRecord, without its signs. */
function reportColumns(sql: Sql) {
  return sql`
    b.id::int as "batchId",
    b.worker_name as worker,
    b.games,
    (coalesce(b.plus_wins, 0) - coalesce(b.minus_wins, 0)
      + coalesce(b.ref_plus_wins, 0) - coalesce(b.ref_plus_losses, 0)
      - coalesce(b.ref_minus_wins, 0) + coalesce(b.ref_minus_losses, 0))::int as net,
    (coalesce(b.plus_wins, 0) + coalesce(b.ref_plus_wins, 0) + coalesce(b.ref_minus_wins, 0))::int as wins,
    (coalesce(b.minus_wins, 0) + coalesce(b.ref_plus_losses, 0) + coalesce(b.ref_minus_losses, 0))::int as losses,
    (coalesce(b.draws, 0) + coalesce(b.ref_plus_draws, 0) + coalesce(b.ref_minus_draws, 0))::int as draws,
    coalesce(b.pairs, '[0, 0, 0, 0, 0]'::jsonb) as pairs,
    b.ref_plus_wins is not null as reference`;
}

/**
 * Build mode: the reports of the run's iterations that count as evidence (done and not held;
 * one an undo took out of θ still was reported), in iteration order: those of one iteration
 * (`iteration`), or of every completed iteration.
 */
export async function iterationReports(sql: Sql, runId: number, iteration?: number): Promise<ReportRecord[]> {
  return sql<ReportRecord[]>`
    select ${reportColumns(sql)},
      i.iteration_number as iteration,
      coalesce(i.perturbation_signs, '{}'::jsonb) as signs
    from spsa_iteration i
    join spsa_batch b on b.iteration_id = i.id
    where i.run_id = ${runId}
      and b.status = 'done'
      and b.held_at is null
      and ${iteration === undefined ? sql`i.status = 'complete'` : sql`i.iteration_number = ${iteration}`}
    order by i.iteration_number, b.reported_at, b.id`;
}

/**
 * UCI-option mode: the reports that count as evidence (done and not held), each with its own
 * signs as stored (a bit string in the run's order, src/spsa/option-batches.ts signsOfBits), in
 * the order the master applied them: those applied after the `after`-th, or (no `after`) every
 * applied one and every one an undo took out, in report order.
 */
export async function optionReports(sql: Sql, runId: number, after?: number): Promise<OptionReportRecord[]> {
  const which =
    after === undefined
      ? sql`(p.applied_number is not null or b.undo_id is not null)`
      : sql`p.applied_number > ${after}`;
  return sql<OptionReportRecord[]>`
    select ${reportColumns(sql)}, 1 as iteration, p.signs as "signBits"
    from spsa_perturbation p
    join spsa_batch b on b.id = p.batch_id
    where p.run_id = ${runId}
      and b.status = 'done'
      and b.held_at is null
      and ${which}
    order by ${after === undefined ? sql`b.reported_at, b.id` : sql`p.applied_number`}`;
}

/**
 * How many reports of a UCI-option run moved θ (applied numbers run 1, 2, …), and its latest undo's
 * id (0: none).
 */
export async function appliedCount(sql: Sql, runId: number): Promise<{ applied: number; undo: number }> {
  const [row] = await sql<{ applied: number; undo: number }[]>`
    select (select coalesce(max(applied_number), 0) from spsa_perturbation where run_id = ${runId})::int as applied,
      (select coalesce(max(id), 0) from spsa_undo where run_id = ${runId})::int as undo`;
  return row ?? { applied: 0, undo: 0 };
}

/** A build-mode iteration's step as recorded: what its update reads, and its counts now. */
export interface RecordedStep {
  id: number;
  number: number;
  status: "pending" | "in_progress" | "complete";
  ak: number;
  /** θ it was drawn from: where a parameter that joined the run later started. */
  base: Values;
  plus: Values;
  minus: Values;
  settings: IterationSettings;
  outcome: IterationOutcome;
}

/** Every iteration of a build-mode run in order, with its recorded step (its counters as they stand). */
export async function recordedSteps(sql: Sql, runId: number): Promise<RecordedStep[]> {
  const rows = await sql<(OutcomeColumns & Omit<RecordedStep, "outcome">)[]>`
    select id,
      iteration_number as number,
      status,
      a_k as ak,
      coalesce(base_parameters, '{}'::jsonb) as base,
      plus_parameters as plus,
      minus_parameters as minus,
      settings,
      ${selectColumns(sql, spsaIteration, OUTCOME_KEYS)}
    from spsa_iteration
    where run_id = ${runId}
    order by iteration_number`;
  return rows.map((r) => ({
    id: r.id,
    number: r.number,
    status: r.status,
    ak: r.ak,
    base: r.base,
    plus: r.plus,
    minus: r.minus,
    settings: r.settings,
    outcome: outcomeOf(r),
  }));
}

/** A worker's reported batches of a run that no undo took out yet, by iteration: what `spsa undo` takes out. */
export async function workerReports(
  sql: Sql,
  runId: number,
  worker: string,
): Promise<{ batchId: number; iterationId: number; games: number; folded: boolean; applied: boolean }[]> {
  return sql<{ batchId: number; iterationId: number; games: number; folded: boolean; applied: boolean }[]>`
    select b.id::int as "batchId",
      b.iteration_id as "iterationId",
      b.games,
      b.folded,
      p.applied_number is not null as applied
    from spsa_batch b
    join spsa_iteration i on i.id = b.iteration_id
    left join spsa_perturbation p on p.batch_id = b.id
    where i.run_id = ${runId}
      and b.worker_name = ${worker}
      and b.status = 'done'
      and b.held_at is null
      and b.undo_id is null
    order by b.id`;
}

/**
 * What θ still holds of the run's other workers: their reported batches that no fold held and no
 * undo took out. None left: an undo of `worker` would take every game the run holds out of θ.
 */
export async function otherReports(
  sql: Sql,
  runId: number,
  worker: string,
): Promise<{ batches: number; games: number }> {
  const [row] = await sql<{ batches: number; games: number }[]>`
    select count(*)::int as batches,
      coalesce(sum(b.games), 0)::int as games
    from spsa_batch b
    join spsa_iteration i on i.id = b.iteration_id
    where i.run_id = ${runId}
      and b.worker_name is distinct from ${worker}
      and b.status = 'done'
      and b.held_at is null
      and b.undo_id is null`;
  return row ?? { batches: 0, games: 0 };
}

/**
 * Rewrites a UCI-option run's chain after an undo or an acceptance (src/spsa/undo-replay.ts
 * replayChainEdited): the batches taken out lose their place and stored θ; the batches from the
 * first place changed on get their new places, step scales and stored θ, and keep the values they
 * played where the chain cannot draw them again (drawn_from null: they were drawn from a θ the
 * edit changed), as do the batches drawn from such a θ and not applied yet; a held batch put in
 * records its result and Elo as the master's fold records them (src/db/applied-chain.ts
 * recordApplied). Places are negated first, so that no place is held twice at any moment.
 */
export async function rewriteAppliedChain(
  tx: postgres.TransactionSql,
  runId: number,
  names: readonly string[],
  chain: ChainEdit,
): Promise<void> {
  if (chain.firstChanged === null) return;
  for (const { batchNumber, played } of chain.removed)
    await tx`
      update spsa_perturbation
      set applied_number = null, theta_after = null, drawn_from = null,
        plus_parameters = ${tx.json(thetaArray(names, played.plus))},
        minus_parameters = ${tx.json(thetaArray(names, played.minus))}
      where run_id = ${runId}
        and batch_number = ${batchNumber}`;
  await tx`
    update spsa_perturbation
    set applied_number = -applied_number
    where run_id = ${runId}
      and applied_number >= ${chain.firstChanged}`;
  for (const b of chain.rewritten) {
    const played =
      b.played === null
        ? tx``
        : tx`, drawn_from = null,
            plus_parameters = ${tx.json(thetaArray(names, b.played.plus))},
            minus_parameters = ${tx.json(thetaArray(names, b.played.minus))}`;
    const inserted =
      b.insertedElo === undefined
        ? tx``
        : tx`, elo_diff = ${b.insertedElo},
            plus_wins = b.plus_wins, minus_wins = b.minus_wins, draws = b.draws, pairs = b.pairs,
            reported_at = b.reported_at
            ${
              // Drawn again by the chain (recordApplied drops its values too).
              b.played === null ? tx`, plus_parameters = null, minus_parameters = null` : tx``
            }`;
    await tx`
      update spsa_perturbation p
      set applied_number = ${b.appliedNumber},
        step_scale = ${b.stepScale},
        theta_after = ${b.thetaAfter === null ? null : tx.array(thetaArray(names, b.thetaAfter))}::float8[] ${played}
        ${inserted}
      from spsa_batch b
      where p.run_id = ${runId}
        and p.batch_number = ${b.batchNumber}
        and b.id = p.batch_id`;
  }
  await tx`
    update spsa_perturbation
    set drawn_from = null
    where run_id = ${runId}
      and applied_number is null
      and drawn_from >= ${chain.firstChanged}`;
}

/**
 * Rewrites a completed build-mode iteration's step after an undo: θ after it, its Elo and gradient
 * (null: no game left), and the adaptive step scale the replay took.
 */
export async function rewriteStep(
  tx: postgres.TransactionSql,
  iterationId: number,
  step: { theta: Values; measured: { elo: number; gradient: Values } | null; stepScale?: Values },
): Promise<void> {
  await tx`
    update spsa_iteration
    set theta_after = ${tx.json(step.theta)},
      elo_diff = ${step.measured?.elo ?? null},
      gradient_estimate = ${step.measured ? tx.json(step.measured.gradient) : null},
      settings = ${step.stepScale ? withStepScale(tx, step.stepScale) : tx`settings`}
    where id = ${iterationId}`;
}

/** Sets an open build-mode iteration's adaptive step scale (after an undo: what its step will take). */
export async function rewriteOpenScale(tx: postgres.TransactionSql, iterationId: number, scale: Values): Promise<void> {
  await tx`
    update spsa_iteration
    set settings = ${withStepScale(tx, scale)}
    where id = ${iterationId} and status <> 'complete'`;
}

/** An iteration's settings with `scale` as the step scale its update takes. */
function withStepScale(tx: postgres.TransactionSql, scale: Values) {
  return tx`jsonb_set(settings, '{stepScale}', ${tx.json(scale)})`;
}

/** A held batch of a worker (set aside by the master, not undone), as `spsa workers accept` puts it back. */
export interface HeldReport {
  batchId: number;
  iterationId: number;
  games: number;
  /**
   * UCI-option mode, a batch with a draw that is not the curvature pilot's: what the chain replays
   * of it, and the applied place of the first batch of the chain reported after it (it goes just
   * before: null, after the last). Undefined: build mode, or no step of its own.
   */
  chain?: InsertedBatch;
}

/** The worker's held batches in the run, in the order they were reported. */
export async function heldReports(
  sql: Sql,
  runId: number,
  worker: string,
  names: readonly string[] | undefined,
): Promise<HeldReport[]> {
  const rows = await sql<
    {
      batchId: number;
      iterationId: number;
      games: number;
      batchNumber: number | null;
      drawNumber: number | null;
      drawnFrom: number | null;
      ak: number | null;
      plus: StoredValues | null;
      minus: StoredValues | null;
      plusWins: number;
      minusWins: number;
      draws: number;
      before: number | null;
    }[]
  >`
    select b.id::int as "batchId",
      b.iteration_id as "iterationId",
      b.games,
      p.batch_number::int as "batchNumber",
      p.draw_number as "drawNumber",
      p.drawn_from as "drawnFrom",
      p.a_k as ak,
      case when p.reference_parameters is null then p.plus_parameters end as plus,
      case when p.reference_parameters is null then p.minus_parameters end as minus,
      coalesce(b.plus_wins, 0)::int as "plusWins",
      coalesce(b.minus_wins, 0)::int as "minusWins",
      coalesce(b.draws, 0)::int as draws,
      (select min(q.applied_number)
        from spsa_perturbation q
        join spsa_batch c on c.id = q.batch_id
        where p.batch_id is not null
          and q.run_id = ${runId}
          and q.applied_number is not null
          and (c.reported_at, c.id) > (b.reported_at, b.id))::int as before
    from spsa_batch b
    join spsa_iteration i on i.id = b.iteration_id
    left join spsa_perturbation p on p.batch_id = b.id
    where i.run_id = ${runId}
      and b.worker_name = ${worker}
      and b.status = 'done'
      and b.held_at is not null
      and b.undo_id is null
    order by b.reported_at, b.id`;
  return rows.map((r) => ({
    batchId: r.batchId,
    iterationId: r.iterationId,
    games: r.games,
    ...(names &&
      r.batchNumber !== null &&
      r.drawNumber !== null &&
      r.ak !== null &&
      r.plus &&
      r.minus && {
        chain: {
          before: r.before,
          batchNumber: r.batchNumber,
          drawNumber: r.drawNumber,
          drawnFrom: r.drawnFrom,
          games: r.games,
          ak: r.ak,
          played: { plus: valuesByName(names, r.plus), minus: valuesByName(names, r.minus) },
          result: { plusWins: r.plusWins, minusWins: r.minusWins, draws: r.draws },
        },
      }),
  }));
}
