import type postgres from "postgres";
import type { ClaimedBatch } from "../db/batches.js";
import { drawOfBatch, optionRunOfIteration } from "../db/perturbations.js";

/**
 * The worker's hook into claiming (src/db/batches.ts) for UCI-option runs; batches of
 * build-mode iterations pass through unchanged. In the claim's transaction it reads the
 * draw the master made for the batch (src/uci-tune/draw-pool.ts) with the run's signed
 * parameter list; the worker checks both before an engine sees them
 * (src/uci-tune/options-signature.ts). A worker writes no draw. Reports need none: the
 * master applies them to θ (src/uci-tune/apply-reports.ts).
 */
export async function optionsOnClaim(tx: postgres.TransactionSql, batch: ClaimedBatch): Promise<ClaimedBatch> {
  if (!(await optionRunOfIteration(tx, batch.iterationId))) return batch;
  const optionDraw = await drawOfBatch(tx, batch.batchId);
  if (!optionDraw) throw new Error(`batch ${batch.batchId} of a UCI-option run has no draw`);
  return { ...batch, optionDraw };
}
