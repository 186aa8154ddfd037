import type { ClaimedBatch } from "../db/batches.js";
import type { OptionDraw, OptionParams } from "../types/spsa.js";

/** Runs whose parameter list a worker keeps between claims. */
const KEPT_LISTS = 4;

type KeptList = { signature: string; parameters: OptionParams; names: readonly string[] };

/**
 * The parameter list of each run this worker claimed from lately, with the signature it came
 * with: a claim names them as known (src/db/batches.ts claimBatch), so that it reads a list again
 * only when its signature changed (a large run's list is a megabyte), and the list is checked
 * against its signature as before (src/signing/options-signature.ts).
 */
const lists = new Map<number, KeptList>();

/** A batch as the worker plays it: a UCI-option batch's draw with its run's whole parameter list. */
export type PlayableBatch = Omit<ClaimedBatch, "optionDraw"> & { optionDraw?: OptionDraw };

/** The lists to name in a claim, as they are now (the claim's batch takes its list from these). */
export function knownLists(): ReadonlyMap<number, KeptList> {
  return new Map(lists);
}

/**
 * A claimed batch with its draw's parameter list: the one the claim read (kept for the next
 * claims), or the one kept when the claim left it out as known. A build-mode batch has no draw
 * and passes unchanged. Reports need none: the master applies them to θ (src/master/apply-reports.ts).
 */
export function withOptionList(batch: ClaimedBatch, known: ReadonlyMap<number, KeptList>): PlayableBatch {
  const { optionDraw: draw, ...claimed } = batch;
  if (!draw) return claimed;
  const { names, ...rest } = draw;
  const parameters = draw.parameters ?? known.get(batch.runId)?.parameters;
  if (!parameters)
    throw new Error(`batch ${batch.batchId}: its run's parameter list was left out as known, and it is not`);
  if (draw.signature !== null) {
    lists.delete(batch.runId);
    lists.set(batch.runId, { signature: draw.signature, parameters, names });
    for (const run of lists.keys()) if (lists.size > KEPT_LISTS) lists.delete(run);
  }
  return { ...claimed, optionDraw: { ...rest, parameters } };
}
