import type postgres from "postgres";
import type { RowOf } from "./columns.js";
import type { spsaRun } from "./schema.js";

/** SQL of `spsa db status`: the server, the migrations applied, the latest runs. */

export interface DatabaseOverview {
  version: string;
  migrations: number;
  /** The five latest runs. */
  runs: (RowOf<typeof spsaRun, "name" | "status"> & { iterations: number })[];
}

export async function databaseOverview(sql: postgres.Sql): Promise<DatabaseOverview> {
  const [server] = await sql<{ version: string }[]>`select current_setting('server_version') as version`;
  const [migrations] = await sql<{ count: number }[]>`
    select count(*)::int as count
    from drizzle.__drizzle_migrations`;
  const runs = await sql<DatabaseOverview["runs"]>`
    select r.name, r.status, count(i.id)::int as iterations
    from spsa_run r
    left join spsa_iteration i on i.run_id = r.id
    group by r.id
    order by r.id desc
    limit 5`;
  return { version: server?.version ?? "?", migrations: migrations?.count ?? 0, runs };
}
