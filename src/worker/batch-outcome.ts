import type { ReportOutcome } from "../db/batches.js";
import { plural } from "../core/plural.js";
import { byCounter, ENGINE_FAULT_COUNTERS, FAULT_COUNTERS, type FaultCounts } from "../types/faults.js";
import { delayRemedy, engineFaults } from "../play/faults.js";
import { ENGINE_ROLES } from "../types/engines.js";
import type { BatchTally } from "./batch-tally.js";
import type { PlayableBatch } from "./option-draw.js";
import type { WorkerSummary } from "./worker-options.js";

/** A reported batch in the summary, and on the log if its lease had expired or it met engine faults or delays. */
export function noteOutcome(
  log: (line: string) => void,
  batch: PlayableBatch,
  tally: BatchTally,
  outcome: ReportOutcome,
  summary: WorkerSummary,
  concurrency: number,
): void {
  if (outcome === "refused") {
    summary.refused++;
    log(`batch ${batch.batchId} was refused: its lease expired and its games went back to the pool`);
    return;
  }
  summary.games += batch.games;
  summary.batches++;
  // Plus and minus, and in reference mode the reference engine.
  const engines = tally.faults.map((counts: FaultCounts, i) => ({ name: ENGINE_ROLES[i]!, counts }));
  const faults = engines.reduce((sum, e) => sum + engineFaults(e.counts), 0);
  if (faults > 0) {
    const side = (counts: FaultCounts) => {
      const sums = byCounter(counts);
      return ENGINE_FAULT_COUNTERS.map((counter) => `${sums[counter]} ${FAULT_COUNTERS[counter]}`).join(", ");
    };
    log(
      `warning: iteration ${batch.iterationNumber} batch ${batch.batchId}: ${faults} engine faults ` +
        `(${engines.map((e) => `${e.name}: ${side(e.counts)}`).join("; ")})`,
    );
  }
  if (tally.replays + tally.delayLosses > 0) {
    const limit =
      tally.replayLimitPairs > 0
        ? `; ${plural(tally.replayLimitPairs, "pair")} ran out of replays: the machine is ` +
          `overloaded (${delayRemedy(concurrency)})`
        : "";
    log(
      `iteration ${batch.iterationNumber} batch ${batch.batchId}: delays outside the engines: ` +
        `${tally.replays} games replayed, ` +
        `${tally.delayLosses} scored as time losses ` +
        `(${engines.map((e) => `${e.name} ${e.counts.delay}`).join(", ")})${limit}`,
    );
  }
}
