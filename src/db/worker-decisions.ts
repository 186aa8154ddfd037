import type postgres from "postgres";
import { setAsideBatches } from "./fold.js";
import { lockOpenIteration } from "./iteration-lock.js";
import { asJson, type Sql } from "../postgres/sql.js";
import type { WorkerDecisionKind, WorkerEvidence } from "../types/evidence.js";
import type { Values } from "../types/spsa.js";

/**
 * SQL of bad workers (docs/bad-workers.md): decisions about a worker in a run (the master's
 * suspicion, an operator's acceptance or rejection; which workers they set aside:
 * set-aside-workers.ts), the master's latest evidence, and undos. The worker role reads and
 * writes none of it.
 */

export interface DecisionRow {
  workerName: string;
  decision: WorkerDecisionKind;
  reason: string;
  decidedBy: string;
  createdAt: Date;
}

/** Records a decision; `who` is completed with the session's database role, which the database vouches for. */
export async function recordDecision(
  sql: Sql,
  d: {
    runId: number;
    workerName: string;
    decision: WorkerDecisionKind;
    reason: string;
    who: string;
    evidence?: WorkerEvidence | undefined;
  },
): Promise<void> {
  await sql`
    insert into spsa_worker_decision (run_id, worker_name, decision, reason, decided_by, evidence)
    values (${d.runId}, ${d.workerName}, ${d.decision}, ${d.reason},
      ${d.who} || ' (database role ' || session_user || ')', ${d.evidence ? sql.json(asJson(d.evidence)) : null})`;
}

/** Each worker's latest decision in the run: its state. */
export async function latestDecisions(sql: Sql, runId: number): Promise<DecisionRow[]> {
  return sql<DecisionRow[]>`
    select distinct on (worker_name) worker_name as "workerName",
      decision,
      reason,
      decided_by as "decidedBy",
      created_at as "createdAt"
    from spsa_worker_decision
    where run_id = ${runId}
    order by worker_name, id desc`;
}

/**
 * Build mode, when a worker is set aside: its batches in the run's open iterations, counted or
 * not, are held and their games opened again (no step has used them yet). Returns the batches held.
 */
export async function holdOpenIterationBatches(
  sql: postgres.Sql,
  runId: number,
  workers: readonly string[],
): Promise<number> {
  const open = await sql<{ id: number }[]>`
    select id
    from spsa_iteration
    where run_id = ${runId}
      and status <> 'complete'
    order by iteration_number`;
  let held = 0;
  for (const { id } of open) {
    held += await sql.begin(async (tx) => {
      if (!(await lockOpenIteration(tx, id))) return 0;
      const rows = await tx<{ id: number }[]>`
        select b.id::int
        from spsa_batch b
        where b.iteration_id = ${id}
          and b.status = 'done'
          and b.worker_name = any(${tx.array(workers as string[])}::text[])`;
      return (
        await setAsideBatches(
          tx,
          id,
          rows.map((r) => r.id),
          { held: true },
          true,
        )
      ).batches;
    });
  }
  return held;
}

/** The batches of each worker set aside in the run: held by the master, and taken out by undos. */
export async function setAsideCounts(
  sql: Sql,
  runId: number,
): Promise<{ workerName: string; held: number; undone: number }[]> {
  return sql<{ workerName: string; held: number; undone: number }[]>`
    select b.worker_name as "workerName",
      (count(*) filter (where b.held_at is not null))::int as held,
      (count(*) filter (where b.undo_id is not null))::int as undone
    from spsa_batch b
    join spsa_iteration i on i.id = b.iteration_id
    where i.run_id = ${runId}
      and (b.held_at is not null or b.undo_id is not null)
    group by b.worker_name
    order by b.worker_name`;
}

/** The names of the workers that reported a batch in the run, or have a decision in it. */
export async function runWorkerNames(sql: Sql, runId: number): Promise<string[]> {
  const rows = await sql<{ name: string }[]>`
    select distinct b.worker_name as name
    from spsa_batch b
    join spsa_iteration i on i.id = b.iteration_id
    where i.run_id = ${runId}
      and b.worker_name is not null
    union
    select worker_name
    from spsa_worker_decision
    where run_id = ${runId}
    order by 1`;
  return rows.map((r) => r.name);
}

/** Stores the master's latest look at the run's workers. */
export async function saveReview(
  sql: Sql,
  runId: number,
  evidence: readonly WorkerEvidence[],
  strata: number,
): Promise<void> {
  const json = sql.json(asJson(evidence));
  await sql`
    insert into spsa_worker_review (run_id, evidence, strata, reviewed_at)
    values (${runId}, ${json}, ${strata}, now())
    on conflict (run_id) do update
    set evidence = excluded.evidence, strata = excluded.strata, reviewed_at = excluded.reviewed_at`;
}

export async function readReview(
  sql: Sql,
  runId: number,
): Promise<{ evidence: WorkerEvidence[]; strata: number; reviewedAt: Date } | undefined> {
  const [row] = await sql<{ evidence: WorkerEvidence[]; strata: number; reviewedAt: Date }[]>`
    select evidence, strata, reviewed_at as "reviewedAt"
    from spsa_worker_review
    where run_id = ${runId}`;
  return row;
}

/**
 * The run's row locked as a master's step locks it, in the transaction of an undo or an
 * acceptance that recomputes θ: its θ₀ and θ, read under the lock.
 */
export async function lockRunTheta(
  tx: postgres.TransactionSql,
  runId: number,
): Promise<{ initial: Values; current: Values }> {
  const [run] = await tx<{ initial: Values; current: Values }[]>`
    select initial_parameters as initial, current_parameters as current
    from spsa_run
    where id = ${runId}
    for update`;
  if (!run) throw new Error(`run ${runId} vanished`);
  return run;
}

/**
 * The start of an undo, in its transaction: the run's row locked as a master's step locks it
 * (its θ and θ₀ read under the lock), and the undo's record, who and θ before. Returns its id.
 */
export async function beginUndo(
  tx: postgres.TransactionSql,
  runId: number,
  worker: string,
  who: string,
): Promise<{ undoId: number; initial: Values; current: Values }> {
  const run = await lockRunTheta(tx, runId);
  const [undo] = await tx<{ id: number }[]>`
    insert into spsa_undo (run_id, worker_name, decided_by, batches, games, theta_before, theta_after)
    values (${runId}, ${worker}, ${who} || ' (database role ' || session_user || ')', 0, 0, ${tx.json(run.current)},
      ${tx.json(run.current)})
    returning id`;
  if (!undo) throw new Error("insert into spsa_undo returned nothing");
  return { undoId: undo.id, ...run };
}

/** The end of an undo: what it took out, θ before it (a UCI-option run's as its chain gives it) and after it. */
export async function finishUndo(
  tx: postgres.TransactionSql,
  undoId: number,
  taken: { batches: number; games: number },
  before: Values,
  after: Values,
): Promise<void> {
  await tx`
    update spsa_undo
    set batches = ${taken.batches},
      games = ${taken.games},
      theta_before = ${tx.json(before)},
      theta_after = ${tx.json(after)}
    where id = ${undoId}`;
}
