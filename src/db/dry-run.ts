import type postgres from "postgres";

/**
 * A change computed in one transaction and committed only if its caller says so (spsa undo, spsa
 * workers accept: docs/bad-workers.md): a dry run computes exactly what the change would do, with
 * everything it would write written in the transaction, and rolls every row back.
 */

/** The rollback of a change its caller did not commit: it carries what was computed. */
class NotCommitted<P> extends Error {
  constructor(readonly plan: P) {
    super("not committed");
  }
}

/**
 * Runs `plan` in a transaction and commits it only when `commit` (called with what `plan`
 * returned, still in the transaction) says so; else rolls it back. `commit` may throw to refuse,
 * which rolls back too. Returns the plan and whether it was committed (`applied`).
 */
export async function planThenCommit<P extends object>(
  sql: postgres.Sql,
  plan: (tx: postgres.TransactionSql) => Promise<P>,
  commit: (plan: P) => boolean,
): Promise<P & { applied: boolean }> {
  try {
    const planned = await sql.begin(async (tx) => {
      const computed = await plan(tx);
      if (!commit(computed)) throw new NotCommitted(computed);
      return computed;
    });
    return { ...(planned as P), applied: true };
  } catch (error) {
    if (error instanceof NotCommitted) return { ...(error.plan as P), applied: false };
    throw error;
  }
}
