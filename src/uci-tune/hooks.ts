import type postgres from "postgres";
import type { BatchReport, ClaimedBatch } from "../db/batches.js";
import { drawnSoFar, insertPerturbation, lastReportedBatches, lockRunTheta, optionRunOf, optionRunOfIteration, perturbationOfBatch, recordPerturbationResult } from "../db/perturbations.js";
import { applyBatch, batchStepScales, batchWindow, drawBatch, engineOptions, paramsAt } from "./batch-math.js";

/**
 * The worker's hooks into claiming and reporting (src/db/batches.ts) for UCI-option runs;
 * batches of build-mode iterations pass through unchanged.
 */

/** In the claim's transaction: draws the batch's perturbation from the run's θ of now and gives the worker its options. */
export async function drawOnClaim(tx: postgres.TransactionSql, batch: ClaimedBatch, workerName: string): Promise<ClaimedBatch> {
  const run = await optionRunOfIteration(tx, batch.iterationId);
  if (!run) return batch;
  // The lock comes first: it serialises the draws, so two claims never count the same past.
  const state = { ...(await lockRunTheta(tx, run.runId)), ...(await drawnSoFar(tx, run.runId)) };
  const batchNumber = state.batchesDrawn + 1;
  const drawn = drawBatch(paramsAt(run.parameters, state.theta), run.gains, {
    seed: state.seed,
    batchNumber,
    gamesBefore: state.gamesDrawn,
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
    thetaBefore: state.theta,
    signs: drawn.signs,
    plus: drawn.plus,
    minus: drawn.minus,
  });
  return { ...batch, plusOptions: engineOptions(run.parameters, drawn.plus), minusOptions: engineOptions(run.parameters, drawn.minus) };
}

/**
 * In the report's transaction, after its games were counted (so only once per batch):
 * moves the run's θ by the batch's result.
 */
export async function applyOnReport(tx: postgres.TransactionSql, report: BatchReport): Promise<void> {
  const perturbation = await perturbationOfBatch(tx, report.batchId);
  if (!perturbation) return;
  const run = await optionRunOf(tx, perturbation.runId);
  if (!run) throw new Error(`batch ${report.batchId} has a perturbation but run ${perturbation.runId} no option settings`);
  const { theta } = await lockRunTheta(tx, run.runId);
  const counts = { plusWins: report.wins, minusWins: report.losses, draws: report.draws };
  // Adaptive gains from the batches reported before this one (the θ lock orders the reports).
  const reported = run.gains.adaptive && run.gains.adaptive.mode !== "off" ? await lastReportedBatches(tx, run.runId, batchWindow(run.gains, run.gamesPerIteration, perturbation.games)) : [];
  const scale = batchStepScales(run.parameters, reported, run.gains, run.gamesPerIteration);
  const result = applyBatch(paramsAt(run.parameters, theta), perturbation, counts, run.gains, run.gamesPerIteration, scale);
  await recordPerturbationResult(tx, {
    batchId: report.batchId,
    runId: run.runId,
    ...counts,
    pairs: report.pairs,
    elo: result.elo,
    thetaApplied: theta,
    thetaAfter: { ...theta, ...result.newValues },
  });
}
