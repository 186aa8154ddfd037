import { drawBatch, paramsAt, signBits } from "./option-batches.js";
import { BatchSteps } from "./batch-step.js";
import { widenedGains } from "./pilot.js";
import type { AppliedBatch, ChainRun, ChainStart, Values } from "../types/spsa.js";

/**
 * The applied chain of a UCI-option run, pure: θ after every applied batch follows from the start
 * θ and each batch's stored record (its signs, gains, result, step scale and the θ it was drawn
 * from), exactly as the master computed it (src/master/apply-reports.ts). A batch whose row no
 * longer holds the values it played is drawn again (drawBatch with the run's seed and its draw's number,
 * from θ after `drawnFrom` batches), and the draw must give its recorded k, gains and signs; a θ
 * stored on the way must equal the replay's. Rows come from readAppliedChain (src/db/applied-chain.ts).
 */

/**
 * The stored chain and its replay disagree: a row was changed, or the draw's math is not the one
 * the run was drawn with.
 */
export class ChainMismatch extends Error {}

/**
 * The values a batch played: as stored, or drawn again from `thetaDrawn` (θ after its drawnFrom
 * batches) and checked against its record.
 */
export function playedValues(
  run: ChainRun,
  batch: AppliedBatch,
  thetaDrawn: Values | undefined,
): { plus: Values; minus: Values } {
  if (batch.played) return batch.played;
  if (thetaDrawn === undefined)
    throw new ChainMismatch(
      `batch ${batch.batchNumber}: the θ it was drawn from (after ${batch.drawnFrom ?? "?"} ` +
        `batches) is not in the replay`,
    );
  // Every batch of the chain was drawn after the pilot's measure (src/master/draw-pool.ts).
  const drawn = drawBatch(paramsAt(run, thetaDrawn), widenedGains(run.gains, run.pilotFactor), {
    seed: run.seed,
    drawNumber: batch.drawNumber,
    gamesBefore: batch.gamesBefore,
    gamesPerIteration: run.gamesPerIteration,
  });
  if (
    drawn.k !== batch.k ||
    drawn.ck !== batch.ck ||
    drawn.ak !== batch.ak ||
    signBits(run.names, drawn.signs) !== batch.signs
  ) {
    throw new ChainMismatch(
      `batch ${batch.batchNumber}: drawn again from θ after ${batch.drawnFrom} batches it does not ` +
        `give its recorded k, c_k, a_k and signs`,
    );
  }
  return { plus: drawn.plus, minus: drawn.minus };
}

/**
 * Replays `batches` (consecutive in applied order from start.applied + 1; a batch drawn again
 * must be drawn from start.applied or later) and returns θ after the last. `onStep` sees θ
 * after each batch and the values it played. Throws ChainMismatch where the rows and the replay disagree.
 */
export function replayAppliedChain(
  run: ChainRun,
  start: ChainStart,
  batches: readonly AppliedBatch[],
  onStep?: (batch: AppliedBatch, theta: Values, played: { plus: Values; minus: Values }) => void,
): Values {
  // θ after n batches, kept only while a later batch drawn from it is still to come.
  const drawnFrom = new Map<number, number>();
  for (const b of batches) if (!b.played && b.drawnFrom !== null) drawnFrom.set(b.drawnFrom, b.appliedNumber);
  const thetas = new Map<number, Values>([[start.applied, start.theta]]);
  // Only rows of earlier versions lack their step scale, and those predate the curvature pilot: no factor.
  const steps = new BatchSteps(run, undefined, start.recent);
  let theta = start.theta;
  for (const [i, batch] of batches.entries()) {
    if (batch.appliedNumber !== start.applied + i + 1)
      throw new ChainMismatch(
        `batch ${batch.batchNumber} is applied ${batch.appliedNumber}th, expected ${start.applied + i + 1}th`,
      );
    const played = playedValues(run, batch, batch.drawnFrom === null ? undefined : thetas.get(batch.drawnFrom));
    const { update: step } = steps.step(paramsAt(run, theta), { ...batch, ...played }, batch.stepScale);
    if (step.elo !== batch.elo)
      throw new ChainMismatch(
        `batch ${batch.batchNumber}: its result gives Elo ${step.elo}, its row says ${batch.elo}`,
      );
    theta = { ...theta, ...step.newValues };
    if (batch.thetaAfter) {
      const differs = run.names.find((name) => batch.thetaAfter?.[name] !== theta[name]);
      if (differs !== undefined)
        throw new ChainMismatch(
          `batch ${batch.batchNumber}: the replay gives ${differs} = ${theta[differs]} after it, ` +
            `its row holds ${batch.thetaAfter[differs]}`,
        );
    }
    if (batch.drawnFrom !== null && drawnFrom.get(batch.drawnFrom) === batch.appliedNumber)
      thetas.delete(batch.drawnFrom);
    if (drawnFrom.has(batch.appliedNumber)) thetas.set(batch.appliedNumber, theta);
    onStep?.(batch, theta, played);
  }
  return theta;
}
