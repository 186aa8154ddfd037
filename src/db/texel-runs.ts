import type postgres from "postgres";

/** SQL of `spsa texel`: a finished run is one row of texel_run. */

export interface TexelRunRow {
  paramsFile: string;
  positionsFile: string;
  positions: number;
  method: "local" | "adaptive";
  k: number;
  errorBefore: number;
  errorAfter: number;
  startParameters: Record<string, number>;
  finalParameters: Record<string, number>;
  evaluations: number;
  passes: number;
  positionsPerSecond: number;
  seconds: number;
}

export async function insertTexelRun(sql: postgres.Sql, row: TexelRunRow): Promise<number> {
  const [inserted] = await sql<{ id: number }[]>`
    insert into texel_run (params_file, positions_file, positions, method, k, error_before, error_after,
      start_parameters, final_parameters, evaluations, passes, positions_per_second, seconds)
    values (${row.paramsFile}, ${row.positionsFile}, ${row.positions}, ${row.method}, ${row.k}, ${row.errorBefore}, ${row.errorAfter},
      ${sql.json(row.startParameters)}, ${sql.json(row.finalParameters)}, ${row.evaluations}, ${row.passes}, ${row.positionsPerSecond}, ${row.seconds})
    returning id`;
  return inserted!.id;
}
