import type postgres from "postgres";
import type { ClaimedBatch } from "../db/batches.js";
import { drawOfBatch, optionRunOfIteration } from "../db/perturbations.js";
import { engineOptions } from "./batch-math.js";

/**
 * The worker's hook into claiming (src/db/batches.ts) for UCI-option runs; batches of
 * build-mode iterations pass through unchanged. In the claim's transaction it reads the
 * draw the master made for the batch (src/uci-tune/draw-pool.ts) and gives the worker its
 * engines' options; a worker writes no draw. Reports need none: the master applies them to
 * θ (src/uci-tune/apply-reports.ts).
 */
export async function optionsOnClaim(tx: postgres.TransactionSql, batch: ClaimedBatch): Promise<ClaimedBatch> {
  const run = await optionRunOfIteration(tx, batch.iterationId);
  if (!run) return batch;
  const drawn = await drawOfBatch(tx, batch.batchId);
  if (!drawn) throw new Error(`batch ${batch.batchId} of a UCI-option run has no draw`);
  return { ...batch, plusOptions: engineOptions(run.parameters, drawn.plus), minusOptions: engineOptions(run.parameters, drawn.minus) };
}
