import type postgres from "postgres";
import type { Values } from "./run-store.js";

/**
 * θ at the start of iterations 1..through of a run, from the recorded rows: the past that
 * the self-correcting schedule, momentum and tail averaging need (src/spsa/trajectory.ts),
 * so they keep no state of their own and a restarted master continues exactly.
 */
export async function readTrajectory(sql: postgres.Sql, runId: number, through: number): Promise<Values[]> {
  const rows = await sql<{ base: Values | null }[]>`
    select base_parameters as base from spsa_iteration
    where run_id = ${runId} and iteration_number <= ${through} order by iteration_number`;
  // Rows from before base θ was recorded have none: their parameters count as unmoved.
  return rows.map((row) => row.base ?? {});
}
