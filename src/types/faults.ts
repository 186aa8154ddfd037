/**
 * The faults counted per engine: the one list that the match summary, the worker's batch
 * counts and the database's counters (columns plus_<counter> and minus_<counter> of
 * spsa_iteration, see src/db/fault-columns.ts) are derived from.
 *
 * A new kind of fault is an entry in FAULTS, the place in src/play/game.ts that detects it, and, when
 * it needs a counter of its own, an entry in FAULT_COUNTERS and its two columns in
 * src/db/schema.ts (then `npx drizzle-kit generate`).
 */

/** Each counter, with the words for it in messages. */
export const FAULT_COUNTERS = {
  crashes: "crashes",
  timeLosses: "time losses",
  illegalMoves: "illegal moves",
  delayLosses: "time losses to delays outside the engine",
} as const;

export type FaultCounter = keyof typeof FAULT_COUNTERS;

/** Each kind of fault: the counter it adds to, and the PGN Termination of a game it decides. */
export const FAULTS = {
  crash: { counter: "crashes", termination: "abandoned" },
  timeout: { counter: "timeLosses", termination: "time forfeit" }, // the engine's own overrun
  illegal: { counter: "illegalMoves", termination: "rules infraction" },
  garbage: { counter: "illegalMoves", termination: "rules infraction" }, // an unparsable move
  startup: { counter: "crashes", termination: "abandoned" }, // no uciok/readyok, or the binary would not run
  // A time loss to a delay outside the engine (a busy machine): no engine fault. Games record it as a timeout.
  delay: { counter: "delayLosses", termination: "time forfeit" },
} as const satisfies Record<string, { counter: FaultCounter; termination: string }>;

export type CountedFault = keyof typeof FAULTS;

/** What went wrong with a side in a game, as the game records it (an outside delay is a `timeout` there). */
export type FaultKind = Exclude<CountedFault, "delay"> | "none";

/** The counters of engine faults: all but the time losses to outside delays. */
export type EngineFaultCounter = Exclude<FaultCounter, "delayLosses">;

export const ENGINE_FAULT_COUNTERS = (Object.keys(FAULT_COUNTERS) as FaultCounter[]).filter(
  (c): c is EngineFaultCounter => c !== "delayLosses",
);

/** One engine's faults, by kind. */
export type FaultCounts = Record<CountedFault, number>;

export function noFaults(): FaultCounts {
  return Object.fromEntries(Object.keys(FAULTS).map((kind) => [kind, 0])) as FaultCounts;
}

/** Counts by counter: the kinds that share one are summed. */
export function byCounter(counts: FaultCounts): Record<FaultCounter, number> {
  const sums = Object.fromEntries(Object.keys(FAULT_COUNTERS).map((counter) => [counter, 0])) as Record<
    FaultCounter,
    number
  >;
  for (const kind of Object.keys(FAULTS) as CountedFault[]) sums[FAULTS[kind].counter] += counts[kind];
  return sums;
}
