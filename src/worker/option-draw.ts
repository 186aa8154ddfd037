import type postgres from "postgres";
import type { ClaimedBatch } from "../db/batches.js";
import { drawOfBatch } from "../db/perturbations.js";

/**
 * The worker's hook into claiming (src/db/batches.ts): in the claim's transaction it reads the
 * draw the master made for a UCI-option batch (src/master/draw-pool.ts) with the run's
 * signed parameter list, which the worker checks before an engine sees them
 * (src/signing/options-signature.ts); a build-mode batch has no draw and passes unchanged
 * (spsa_claim_batch hands out a UCI-option batch only with its draw). A worker writes no draw.
 * Reports need none: the master applies them to θ (src/master/apply-reports.ts).
 */
export async function optionsOnClaim(tx: postgres.TransactionSql, batch: ClaimedBatch): Promise<ClaimedBatch> {
  const optionDraw = await drawOfBatch(tx, batch.batchId);
  return optionDraw ? { ...batch, optionDraw } : batch;
}
