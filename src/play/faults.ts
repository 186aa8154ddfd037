import type { GameResult } from "./game.js";
import { byCounter, ENGINE_FAULT_COUNTERS, FAULT_COUNTERS, type CountedFault, type FaultCounts, type FaultKind } from "../types/faults.js";

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

/** "crashes, time losses or illegal moves". */
export function engineFaultWords(): string {
  const words = ENGINE_FAULT_COUNTERS.map((counter) => FAULT_COUNTERS[counter]);
  return words.length < 2 ? words.join("") : `${words.slice(0, -1).join(", ")} or ${words.at(-1)}`;
}
