import type postgres from "postgres";
import { readAppliedChain } from "../db/applied-chain.js";
import { dropOpenDraws } from "../db/draw-pool-rows.js";
import type { OptionRunRow } from "../db/option-run.js";
import { recordedSteps, rewriteAppliedChain, rewriteOpenScale, rewriteStep } from "../db/recorded-batches.js";
import { openStepScales, replayChainEdited, replayIterations } from "../spsa/undo-replay.js";
import type { AppliedBatch, InsertedBatch, Values } from "../types/spsa.js";

/**
 * θ recomputed from a run's recorded rows after some batches left them (spsa undo) or came back
 * (spsa workers accept), in the caller's transaction under the run's lock (docs/bad-workers.md):
 * the one place both take the replay (src/spsa/undo-replay.ts) and write what it gives.
 */

/**
 * Build mode: every completed iteration's step taken again, in order, from θ₀, on its counters as
 * they stand now, each iteration's θ, Elo, gradient and step scale rewritten; the iterations still
 * open take the step scales the replayed results give (their steps are still to come). Returns θ after the last step
 * (without one, and for a parameter no step moves, `current`) and how many steps were taken again.
 */
export async function retakeSteps(
  tx: postgres.TransactionSql,
  runId: number,
  initial: Values,
  current: Values,
): Promise<{ theta: Values; replayedSteps: number }> {
  const recorded = await recordedSteps(tx, runId);
  const completed = recorded.filter((s) => s.status === "complete");
  const open = recorded.filter((s) => s.status !== "complete");
  const replay = replayIterations(initial, completed);
  for (const [i, step] of replay.entries()) await rewriteStep(tx, completed[i]!.id, step);
  for (const [i, scale] of openStepScales(completed, replay, open).entries())
    if (scale) await rewriteOpenScale(tx, open[i]!.id, scale);
  return { theta: { ...current, ...replay.at(-1)?.theta }, replayedSteps: completed.length };
}

/**
 * UCI-option mode: the applied chain replayed from θ₀ with the batches `removed` says taken out
 * and `inserted` put in (src/spsa/undo-replay.ts replayChainEdited), rewritten; the drawn
 * batches no worker has claimed yet are dropped (their draws were around the old θ) for the
 * master to draw again. Returns θ after the chain as it stood and after the new chain, the new
 * chain's length and the batches taken out.
 */
export async function rewriteChain(
  tx: postgres.TransactionSql,
  optionRun: OptionRunRow,
  edit: { removed: (batch: AppliedBatch) => boolean; inserted: readonly InsertedBatch[] },
): Promise<{ thetaBefore: Values; theta: Values; applied: number; removed: number }> {
  const chain = await readAppliedChain(tx, optionRun.runId);
  const edited = replayChainEdited(chain.run, chain.start, chain.batches, edit, optionRun.thetaEvery);
  await rewriteAppliedChain(tx, optionRun.runId, optionRun.names, edited);
  await dropOpenDraws(tx, optionRun.iterationId);
  return {
    thetaBefore: edited.thetaBefore,
    theta: edited.theta,
    applied: chain.start.applied + chain.batches.length - edited.removed.length + edit.inserted.length,
    removed: edited.removed.length,
  };
}
