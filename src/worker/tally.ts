import { noDelays, type DelayCounts, type FaultCounts } from "../db/batches.js";
import type { Pentanomial } from "../play/stats.js";

/**
 * One game's result seen from the plus engine, and the fault that decided it, if any:
 * `time` is the engine's own overrun, `delay` a time loss to a delay outside the engine.
 */
export interface PlusGame {
  outcome: "win" | "loss" | "draw";
  fault?: { side: "plus" | "minus"; kind: "crash" | "time" | "delay" | "illegal" | "other" };
}

/** A pair as played: its two scored games, and the games replayed after outside delays. */
export interface PlayedPair {
  games: [PlusGame, PlusGame];
  replays: number;
  /** A game was lost to an outside delay after the last allowed replay, and scored. */
  replayLimitReached: boolean;
}

export interface BatchTally {
  plusWins: number;
  minusWins: number;
  draws: number;
  pairs: Pentanomial;
  faults: FaultCounts;
  delays: DelayCounts;
}

export function emptyTally(): BatchTally {
  return {
    plusWins: 0,
    minusWins: 0,
    draws: 0,
    pairs: [0, 0, 0, 0, 0],
    faults: { plusCrashes: 0, minusCrashes: 0, plusTimeLosses: 0, minusTimeLosses: 0, plusIllegalMoves: 0, minusIllegalMoves: 0 },
    delays: noDelays(),
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
    if (game.fault?.kind === "delay") tally.delays[game.fault.side === "plus" ? "plusDelayLosses" : "minusDelayLosses"]++;
    else if (game.fault) countFault(tally.faults, game.fault);
  }
  const bucket = (POINTS[pair[0].outcome] + POINTS[pair[1].outcome]) as 0 | 1 | 2 | 3 | 4;
  tally.pairs[bucket]++;
}

/** Adds the replays of a pair played by the runner. */
export function addReplays(tally: BatchTally, pair: Pick<PlayedPair, "replays" | "replayLimitReached">): void {
  tally.delays.replays += pair.replays;
  if (pair.replayLimitReached) tally.delays.replayLimitPairs++;
}

const FAULT_COLUMNS: Record<"crash" | "time" | "illegal", [keyof FaultCounts, keyof FaultCounts]> = {
  crash: ["plusCrashes", "minusCrashes"],
  time: ["plusTimeLosses", "minusTimeLosses"],
  illegal: ["plusIllegalMoves", "minusIllegalMoves"],
};

function countFault(faults: FaultCounts, fault: NonNullable<PlusGame["fault"]>): void {
  if (fault.kind === "other" || fault.kind === "delay") return;
  const [plusKey, minusKey] = FAULT_COLUMNS[fault.kind];
  faults[fault.side === "plus" ? plusKey : minusKey]++;
}

export function totalFaults(faults: FaultCounts): number {
  return Object.values(faults).reduce((sum, n) => sum + n, 0);
}
