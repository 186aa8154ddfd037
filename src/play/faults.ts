import type { GameResult } from "./game.js";
import { plural } from "../core/plural.js";
import {
  byCounter,
  ENGINE_FAULT_COUNTERS,
  FAULT_COUNTERS,
  type CountedFault,
  type EngineFaultCounter,
  type FaultCounts,
  type FaultKind,
} from "../types/faults.js";

/** How a side's fault in `game` is counted, if it had one: a time loss to an outside delay is told apart. */
export function countedFault(kind: FaultKind, game: Pick<GameResult, "timeForfeit">): CountedFault | undefined {
  if (kind === "none") return undefined;
  return kind === "timeout" && game.timeForfeit?.cause === "outside" ? "delay" : kind;
}

/** Engine faults of all kinds (time losses to outside delays are none). */
export function engineFaults(counts: FaultCounts): number {
  const sums = byCounter(counts);
  return ENGINE_FAULT_COUNTERS.reduce((sum, counter) => sum + sums[counter], 0);
}

/** One of each engine fault counter, in words: "1 crash", as FAULT_COUNTERS says many. */
const ONE_FAULT: Record<EngineFaultCounter, string> = {
  crashes: "crash",
  timeLosses: "time loss",
  illegalMoves: "illegal move",
};

/** Engine faults by kind, only the kinds seen: "1 crash, 2 time losses"; "none" without any. */
export function describeFaultKinds(kinds: Readonly<Record<EngineFaultCounter, number>>): string {
  const seen = ENGINE_FAULT_COUNTERS.filter((counter) => kinds[counter] > 0);
  if (seen.length === 0) return "none";
  return seen.map((counter) => plural(kinds[counter], ONE_FAULT[counter], FAULT_COUNTERS[counter])).join(", ");
}

/**
 * What to do about time losses to delays outside the engines (a busy machine): fewer games at
 * once while there are several (`concurrency` above 1, or unknown: the workers of a run), else
 * only less other load helps the clock; a node or depth limit makes the games immune to it.
 */
export function delayRemedy(concurrency: number | undefined): string {
  const limit = "or tune at a node or depth limit ([time_control] nodes or depth), which no delay can cost";
  if (concurrency === 1) return `at -c 1 only less other load on the machine helps, ${limit}`;
  return `${concurrency === undefined ? "lower the workers' -c" : "lower -c"} or the machine's other load, ${limit}`;
}
