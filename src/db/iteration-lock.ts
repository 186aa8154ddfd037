import type postgres from "postgres";

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
