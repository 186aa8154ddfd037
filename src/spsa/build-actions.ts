/**
 * What a build-mode master does next (src/master/build-mode.ts, docs/in-flight.md), pure: one
 * decision per turn of its loop, from what it knows then. In this order: open the next
 * iteration if it is built (the database holds iterations 1..latest, never a gap); start building
 * the next one, within the builds allowed at once and the staleness allowed; wait for the oldest
 * open iteration's games and apply its step (steps in iteration order); wait for the builds; or,
 * nothing open and nothing building, finish the run.
 */
import { mayOpen, stalenessOf } from "./in-flight.js";

/**
 * What the master knows at the top of its loop. `Built` and `Open` are its built iteration and
 * its oldest open iteration, handed back untouched in the action. Two facts cost a read and are
 * read only when the decision gets that far (nextBuildAction asks for them): the staleness
 * allowed (the workers' slots) and the oldest open iteration.
 */
export interface BuildState<Built, Open> {
  /** The next iteration in order, built and taken from the builds (undefined: none is ready). */
  built: Built | undefined;
  /** The run's latest iteration opened, and how many have their step applied (always 1..applied). */
  latest: number;
  applied: number;
  /** Iterations being built, or built and waiting for an earlier one to open: they count as opened. */
  beingBuilt: number;
  /** Builds still running, and how many may run at once (buildsAtOnce). */
  buildsRunning: number;
  buildsAtOnce: number;
  /** `[spsa] max_iterations`, and the curvature pilot's iterations (pilotIterations). */
  maxIterations: number;
  pilots: number;
  /** The staleness allowed now (allowedStaleness); undefined until read, when a build may start. */
  allowedStaleness?: number;
  /** The oldest open iteration, null when none is; undefined until read, when nothing opens nor starts. */
  oldest?: Open | null;
}

/** What the master does next. */
export type BuildAction<Built, Open> =
  | { kind: "open-built"; built: Built }
  | { kind: "start-build"; k: number; staleness: number }
  | { kind: "step-oldest"; oldest: Open }
  | { kind: "wait-builds" }
  | { kind: "finish" };

/** A fact nextBuildAction needs read before it decides: the master reads it, sets it in the state and asks again. */
export type BuildQuestion = { kind: "ask-allowed-staleness" } | { kind: "ask-oldest" };

/** The master's next action, or the fact it must read first (docs/in-flight.md). */
export function nextBuildAction<Built, Open>(state: BuildState<Built, Open>): BuildAction<Built, Open> | BuildQuestion {
  // Built iterations open in iteration order, so the database holds iterations 1..latest, never a gap.
  if (state.built !== undefined) return { kind: "open-built", built: state.built };
  // The iterations being built count as opened: their steps are not applied either.
  const k = state.latest + state.beingBuilt + 1;
  // Open the next iteration while earlier ones are played and built, as far ahead as the slots need.
  if (k <= state.maxIterations && state.buildsRunning < state.buildsAtOnce) {
    if (state.allowedStaleness === undefined) return { kind: "ask-allowed-staleness" };
    if (mayOpen(k, state.applied, state.allowedStaleness, state.pilots))
      return { kind: "start-build", k, staleness: stalenessOf(k, state.applied) };
  }
  // Steps are applied in iteration order: the oldest open iteration's is next.
  if (state.oldest === undefined) return { kind: "ask-oldest" };
  if (state.oldest !== null) return { kind: "step-oldest", oldest: state.oldest };
  if (state.beingBuilt > 0) return { kind: "wait-builds" };
  return { kind: "finish" };
}
