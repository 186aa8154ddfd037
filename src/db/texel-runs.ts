import type postgres from "postgres";
import { selectAll } from "./columns.js";
import { texelRun } from "./schema.js";
import type { Sql } from "../postgres/sql.js";

/** SQL of `spsa texel` and `spsa status --texel`: a finished run is one row of texel_run. */

export type TexelRunRow = Omit<typeof texelRun.$inferInsert, "id" | "createdAt">;

export type TexelRunRecord = typeof texelRun.$inferSelect;

/** texel_run.id is a serial (int4): a larger id matches no row, and Postgres would refuse it as a parameter. */
const MAX_ID = 2 ** 31 - 1;

export async function insertTexelRun(sql: postgres.Sql, row: TexelRunRow): Promise<number> {
  const [inserted] = await sql<{ id: number }[]>`
    insert into texel_run (params_file, positions_file, positions, method, k, error_before, error_after,
      start_parameters, final_parameters, evaluations, passes, positions_per_second, seconds)
    values (${row.paramsFile}, ${row.positionsFile}, ${row.positions}, ${row.method}, ${row.k}, ${row.errorBefore},
      ${row.errorAfter}, ${sql.json(row.startParameters)}, ${sql.json(row.finalParameters)}, ${row.evaluations},
      ${row.passes}, ${row.positionsPerSecond}, ${row.seconds})
    returning id`;
  return inserted!.id;
}

/** The run with this id, or without one the latest stored (ids only grow). */
export async function findTexelRun(sql: Sql, id: number | undefined): Promise<TexelRunRecord | undefined> {
  if (id !== undefined && id > MAX_ID) return undefined;
  const [row] =
    id === undefined
      ? await sql<TexelRunRecord[]>`
          select ${selectAll(sql, texelRun)}
          from texel_run
          order by id desc
          limit 1`
      : await sql<TexelRunRecord[]>`
          select ${selectAll(sql, texelRun)}
          from texel_run
          where id = ${id}`;
  return row;
}
