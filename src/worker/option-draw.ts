import type postgres from "postgres";
import type { ClaimedBatch } from "../db/batches.js";
import { drawOfBatch } from "../db/option-runs.js";
import type { OptionParams } from "../types/spsa.js";

/** Runs whose parameter list a worker keeps between claims. */
const KEPT_LISTS = 4;

/**
 * The parameter list of each run this worker claimed from lately, with the signature it came
 * with: a claim reads the list again only when its signature changed (a large run's list is a
 * megabyte), and the list is checked against its signature as before (src/signing/options-signature.ts).
 */
const lists = new Map<number, { signature: string; parameters: OptionParams; names: readonly string[] }>();

/**
 * The worker's hook into claiming (src/db/batches.ts): in the claim's transaction it reads the
 * draw the master made for a UCI-option batch (src/master/draw-pool.ts) with the run's
 * signed parameter list, which the worker checks before an engine sees them
 * (src/signing/options-signature.ts); a build-mode batch has no draw and passes unchanged
 * (spsa_claim_batch hands out a UCI-option batch only with its draw). A worker writes no draw.
 * Reports need none: the master applies them to θ (src/master/apply-reports.ts).
 */
export async function optionsOnClaim(tx: postgres.TransactionSql, batch: ClaimedBatch): Promise<ClaimedBatch> {
  const known = lists.get(batch.runId);
  const draw = await drawOfBatch(tx, batch.batchId, known);
  if (!draw) return batch;
  const { names, ...rest } = draw;
  const parameters = draw.parameters ?? known?.parameters;
  if (!parameters) throw new Error(`batch ${batch.batchId}: its run's parameter list was left out as known, and it is not`);
  if (draw.signature !== null) {
    lists.delete(batch.runId);
    lists.set(batch.runId, { signature: draw.signature, parameters, names });
    for (const run of lists.keys()) if (lists.size > KEPT_LISTS) lists.delete(run);
  }
  return { ...batch, optionDraw: { ...rest, parameters } };
}
