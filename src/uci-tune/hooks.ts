import type postgres from "postgres";
import type { ClaimedBatch } from "../db/batches.js";
import { gamesBeforeBatch, insertPerturbation, optionRunOfIteration, runSeedAndTheta } from "../db/perturbations.js";
import { drawBatch, engineOptions, paramsAt } from "./batch-math.js";

/**
 * The worker's hook into claiming (src/db/batches.ts) for UCI-option runs; batches of
 * build-mode iterations pass through unchanged. Reports need none: the master applies them
 * to θ (src/uci-tune/apply-reports.ts).
 */

/**
 * In the claim's transaction: draws the batch's perturbation from the run's θ of now, read
 * without a lock (the draw records it as θ before), at the batch's place in the gain
 * schedule (its games_before), and gives the worker its options. The batch row's id numbers
 * the draw: unique in the run, and the same however many batches were drawn before.
 */
export async function drawOnClaim(tx: postgres.TransactionSql, batch: ClaimedBatch, workerName: string): Promise<ClaimedBatch> {
  const run = await optionRunOfIteration(tx, batch.iterationId);
  if (!run) return batch;
  const { seed, theta } = await runSeedAndTheta(tx, run.runId);
  const batchNumber = batch.batchId;
  const drawn = drawBatch(paramsAt(run.parameters, theta), run.gains, {
    seed,
    batchNumber,
    gamesBefore: await gamesBeforeBatch(tx, batch.batchId),
    gamesPerIteration: run.gamesPerIteration,
  });
  await insertPerturbation(tx, {
    batchId: batch.batchId,
    runId: run.runId,
    batchNumber,
    workerName,
    games: batch.games,
    k: drawn.k,
    ck: drawn.ck,
    ak: drawn.ak,
    thetaBefore: theta,
    signs: drawn.signs,
    plus: drawn.plus,
    minus: drawn.minus,
  });
  return { ...batch, plusOptions: engineOptions(run.parameters, drawn.plus), minusOptions: engineOptions(run.parameters, drawn.minus) };
}
