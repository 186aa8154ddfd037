import type { Fragment } from "./columns.js";
import { WORKER_GROUP } from "../postgres/worker-role.js";
import type { Sql } from "../postgres/sql.js";

/**
 * Which workers' batches a tuning master sets aside in a run (docs/bad-workers.md): what every
 * fold (src/db/fold.ts), the status and the master's review read of the workers' decisions.
 */

/**
 * A worker whose batches the master sets aside in a run, and the worker whose decision it follows
 * (itself, or a name of the same machine).
 */
export interface SetAsideWorker {
  name: string;
  because: string;
}

/**
 * The workers whose batches the master sets aside in the run: those whose latest decision is
 * "suspect" or "rejected", and every other name the same worker machine registered (the same
 * login role, when that role is a worker machine's, a member of spsa_workers), so a machine under
 * suspicion cannot start over under a new name; a name an operator accepted is not set aside.
 */
export async function setAsideWorkers(sql: Sql, runId: number): Promise<SetAsideWorker[]> {
  return setAsideWorkersQuery(sql, runId);
}

/**
 * The condition (on spsa_batch b) that a report is a set-aside worker's. A fold skips such
 * reports in the statement that picks its batches: a report that lands after the hold's
 * statement (the same transaction, read committed) is then left for the next fold to hold,
 * rather than counted or applied.
 */
export function fromSetAsideWorker(sql: Sql, runId: number): Fragment {
  return sql`(
    b.status = 'done'
    and b.worker_name in (select name from (${setAsideWorkersQuery(sql, runId)}) aside)
  )`;
}

/** The set-aside workers (SetAsideWorker rows), as a query to select from or nest. */
export function setAsideWorkersQuery(sql: Sql, runId: number) {
  return sql<SetAsideWorker[]>`
    with latest as (
      select distinct on (worker_name) worker_name, decision
      from spsa_worker_decision
      where run_id = ${runId}
      order by worker_name, id desc
    ),
    flagged as (
      select worker_name
      from latest
      where decision in ('suspect', 'rejected')
    ),
    named as (
      select f.worker_name as name, f.worker_name as because
      from flagged f
      union
      select w2.name, f.worker_name
      from flagged f
      join spsa_worker w on w.name = f.worker_name
      join spsa_worker w2 on w2.login_role = w.login_role and w2.name <> w.name
      where exists (
        select 1
        from pg_auth_members m
        join pg_roles r on r.oid = m.member
        join pg_roles g on g.oid = m.roleid
        where r.rolname = w.login_role
          and g.rolname = ${WORKER_GROUP}
      )
    )
    select distinct on (name) name, because
    from named
    where not exists (
      select 1
      from latest l
      where l.worker_name = named.name
        and l.decision = 'accepted'
    )
    order by name, because`;
}
