import type postgres from "postgres";

/**
 * Lock order: a transaction that takes a run's row (a step, an undo, an acceptance, or an insert
 * referencing it, as a draw's) and an iteration's fold lock takes the row first; taken the other
 * way round, a draw and an undo deadlock.
 */

/**
 * Folds of one iteration take turns (so a claimed count and the played games it adds to come
 * from one moment), under an advisory lock rather than the iteration row's: a poll that finds
 * nothing to fold then writes nothing, not even a lock. False if the iteration is complete.
 */
export async function lockOpenIteration(tx: postgres.TransactionSql, iterationId: number): Promise<boolean> {
  await tx`select pg_advisory_xact_lock(hashtext(${`spsa_fold:${iterationId}`}))`;
  const [row] = await tx<{ status: string }[]>`
    select status
    from spsa_iteration
    where id = ${iterationId}`;
  return row !== undefined && row.status !== "complete";
}

/**
 * Locks a UCI-option run's row, then its carrier iteration's fold lock: for the master's fold and
 * its draws. `no key update`, so that the key-share lock a worker's row referencing the run takes
 * does not wait for the master; an undo's `for update` does. False once the carrier is complete.
 */
export async function lockOptionCarrier(
  tx: postgres.TransactionSql,
  run: { runId: number; iterationId: number },
): Promise<boolean> {
  const [row] = await tx`
    select id
    from spsa_run
    where id = ${run.runId}
    for no key update`;
  if (!row) throw new Error(`run ${run.runId} vanished`);
  return lockOpenIteration(tx, run.iterationId);
}
