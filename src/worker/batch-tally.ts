import type { BatchReport } from "../db/batches.js";
import type { EngineFaults, PlusMinus } from "../types/engines.js";
import { noFaults, type CountedFault, type FaultCounts } from "../types/faults.js";
import { PairTally } from "../play/match-tally.js";
import type { PairResult } from "../play/runner.js";

/** A batch's counts as the worker reports them (reportBatch adds the batch and the worker). */
export type BatchCounts = Omit<BatchReport, "batchId" | "workerName">;

/**
 * What a worker counts of a batch: plus against minus in game pairs, or in reference mode
 * (docs/reference-mode.md) θ+'s pairs against the reference and θ−'s, a PairTally each, each
 * from the tuned engine's side (it is each pair's first engine).
 */
export class BatchTally {
  /** Plus against minus, or θ+ against the reference. */
  private readonly plus = new PairTally();
  /** Reference mode: θ− against the reference. */
  private readonly minus: PairTally | undefined;

  constructor(reference: boolean) {
    this.minus = reference ? new PairTally() : undefined;
  }

  /** A pair of plus against minus, or in reference mode of `side` against the reference. */
  add(pair: PairResult, side: PlusMinus = "plus"): void {
    const tally = side === "minus" ? this.minus : this.plus;
    if (!tally) throw new Error("a pair of minus against the reference in a plus-against-minus batch");
    tally.add(pair);
  }

  private get tallies(): PairTally[] {
    return this.minus ? [this.plus, this.minus] : [this.plus];
  }

  get replays(): number {
    return sum(this.tallies.map((t) => t.replays));
  }

  get replayLimitPairs(): number {
    return sum(this.tallies.map((t) => t.replayLimitPairs));
  }

  /** Each engine's faults: plus and minus, and in reference mode the reference's (its own in θ+'s and θ−'s games). */
  get faults(): EngineFaults {
    if (!this.minus) return this.plus.faults;
    return [this.plus.faults[0], this.minus.faults[0], addFaults(this.plus.faults[1], this.minus.faults[1])];
  }

  /** Games lost to delays outside the engines, every engine's. */
  get delayLosses(): number {
    return sum(this.faults.map((f) => f.delay));
  }

  /**
   * The report: plus-vs-minus counts, or in reference mode both sides' wins, draws and losses
   * against the reference, with no plus-against-minus games and both sides' pairs together.
   */
  counts(): BatchCounts {
    const { minus } = this;
    if (!minus) return this.plus.counts();
    const side = (t: PairTally) => ({ wins: t.wins, draws: t.draws, losses: t.losses });
    return {
      wins: 0,
      losses: 0,
      draws: 0,
      pairs: this.plus.pairs.map((n, i) => n + (minus.pairs[i] ?? 0)) as BatchCounts["pairs"],
      faults: [{ ...this.plus.faults[0] }, { ...minus.faults[0] }, addFaults(this.plus.faults[1], minus.faults[1])],
      replays: this.replays,
      replayLimitPairs: this.replayLimitPairs,
      reference: { plus: side(this.plus), minus: side(minus) },
    };
  }
}

function addFaults(a: FaultCounts, b: FaultCounts): FaultCounts {
  const total = noFaults();
  for (const kind of Object.keys(total) as CountedFault[]) total[kind] = a[kind] + b[kind];
  return total;
}

const sum = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0);
