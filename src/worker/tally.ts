import type { FaultCounts, Pentanomial } from "../db/batches.js";

/** One game's result seen from the plus engine, and the fault that decided it, if any. */
export interface PlusGame {
  outcome: "win" | "loss" | "draw";
  fault?: { side: "plus" | "minus"; kind: "crash" | "time" | "illegal" | "other" };
}

export interface BatchTally {
  plusWins: number;
  minusWins: number;
  draws: number;
  pairs: Pentanomial;
  faults: FaultCounts;
}

export function emptyTally(): BatchTally {
  return {
    plusWins: 0,
    minusWins: 0,
    draws: 0,
    pairs: [0, 0, 0, 0, 0],
    faults: { plusCrashes: 0, minusCrashes: 0, plusTimeLosses: 0, minusTimeLosses: 0, plusIllegalMoves: 0, minusIllegalMoves: 0 },
  };
}

const POINTS = { win: 2, draw: 1, loss: 0 } as const;

/**
 * Adds a game pair (same opening, colours swapped) to a tally: W/L/D per game, and the
 * pair's pentanomial bucket from plus's points (0 = LL … 4 = WW). Faults count as losses
 * for the faulty side (the runner already scored them so) and are counted by kind.
 */
export function addPair(tally: BatchTally, pair: readonly [PlusGame, PlusGame]): void {
  for (const game of pair) {
    if (game.outcome === "win") tally.plusWins++;
    else if (game.outcome === "loss") tally.minusWins++;
    else tally.draws++;
    if (game.fault) countFault(tally.faults, game.fault);
  }
  const bucket = (POINTS[pair[0].outcome] + POINTS[pair[1].outcome]) as 0 | 1 | 2 | 3 | 4;
  tally.pairs[bucket]++;
}

const FAULT_COLUMNS: Record<"crash" | "time" | "illegal", [keyof FaultCounts, keyof FaultCounts]> = {
  crash: ["plusCrashes", "minusCrashes"],
  time: ["plusTimeLosses", "minusTimeLosses"],
  illegal: ["plusIllegalMoves", "minusIllegalMoves"],
};

function countFault(faults: FaultCounts, fault: NonNullable<PlusGame["fault"]>): void {
  if (fault.kind === "other") return;
  const [plusKey, minusKey] = FAULT_COLUMNS[fault.kind];
  faults[fault.side === "plus" ? plusKey : minusKey]++;
}

export function totalFaults(faults: FaultCounts): number {
  return Object.values(faults).reduce((sum, n) => sum + n, 0);
}
