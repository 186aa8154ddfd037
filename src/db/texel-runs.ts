import type postgres from "postgres";
import type { texelRun } from "./schema.js";

/** SQL of `spsa texel`: a finished run is one row of texel_run. */

export type TexelRunRow = Omit<typeof texelRun.$inferInsert, "id" | "createdAt">;

export async function insertTexelRun(sql: postgres.Sql, row: TexelRunRow): Promise<number> {
  const [inserted] = await sql<{ id: number }[]>`
    insert into texel_run (params_file, positions_file, positions, method, k, error_before, error_after,
      start_parameters, final_parameters, evaluations, passes, positions_per_second, seconds)
    values (${row.paramsFile}, ${row.positionsFile}, ${row.positions}, ${row.method}, ${row.k}, ${row.errorBefore}, ${row.errorAfter},
      ${sql.json(row.startParameters)}, ${sql.json(row.finalParameters)}, ${row.evaluations}, ${row.passes}, ${row.positionsPerSecond}, ${row.seconds})
    returning id`;
  return inserted!.id;
}
