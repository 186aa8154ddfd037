import { describe, expect, it } from "vitest";
import { nextBuildAction, type BuildAction, type BuildState } from "../../src/spsa/build-actions.js";

/** A run of 10 iterations, one build at a time, no pilot: iterations 1..3 opened, 1 applied, nothing building. */
const base: BuildState<string, string> = {
  built: undefined,
  latest: 3,
  applied: 1,
  beingBuilt: 0,
  buildsRunning: 0,
  buildsAtOnce: 1,
  maxIterations: 10,
  pilots: 0,
};

/**
 * The action, with the facts asked for answered as a master would read them (`allowed` staleness,
 * `oldest` open iteration), and the questions in the order they were asked.
 */
function decide(
  state: BuildState<string, string>,
  facts: { allowed: number; oldest: string | null },
): { action: BuildAction<string, string>; asked: string[] } {
  const asked: string[] = [];
  let current = state;
  for (;;) {
    const next = nextBuildAction(current);
    if (next.kind === "ask-allowed-staleness") current = { ...current, allowedStaleness: facts.allowed };
    else if (next.kind === "ask-oldest") current = { ...current, oldest: facts.oldest };
    else return { action: next, asked };
    asked.push(next.kind);
  }
}

describe("nextBuildAction", () => {
  it("opens a built iteration first, asking nothing, whatever else is due", () => {
    const built = { ...base, built: "iteration 4", beingBuilt: 1, latest: 10, oldest: "iteration 2" };
    expect(nextBuildAction(built)).toEqual({ kind: "open-built", built: "iteration 4" });
    expect(nextBuildAction({ ...base, built: "iteration 4" })).toEqual({ kind: "open-built", built: "iteration 4" });
  });

  it("asks for the staleness allowed when a build may start, before anything else", () => {
    expect(nextBuildAction(base)).toEqual({ kind: "ask-allowed-staleness" });
    expect(decide(base, { allowed: 6, oldest: "iteration 2" }).asked).toEqual(["ask-allowed-staleness"]);
  });

  it("starts the build of the next iteration, counting those being built as opened, with its staleness", () => {
    // Iterations 1..3 opened and 4 being built: 5 is next, drawn 3 steps behind (2, 3 and 4 not applied).
    const state = { ...base, beingBuilt: 1, buildsRunning: 1, buildsAtOnce: 2, allowedStaleness: 3 };
    expect(nextBuildAction(state)).toEqual({ kind: "start-build", k: 5, staleness: 3 });
    // Before the oldest open iteration's step, which would wait for its games.
    expect(nextBuildAction({ ...state, oldest: "iteration 2" })).toEqual({ kind: "start-build", k: 5, staleness: 3 });
    // The first iteration of a run.
    expect(nextBuildAction({ ...base, latest: 0, applied: 0, allowedStaleness: 1 })).toEqual({
      kind: "start-build",
      k: 1,
      staleness: 0,
    });
  });

  it("starts no build beyond the staleness allowed: it asks for the oldest open iteration and steps it", () => {
    // Iteration 4 would be drawn 2 steps behind; 1 is allowed (0 is the barrier).
    for (const allowed of [0, 1]) {
      const { action, asked } = decide(base, { allowed, oldest: "iteration 2" });
      expect(asked).toEqual(["ask-allowed-staleness", "ask-oldest"]);
      expect(action).toEqual({ kind: "step-oldest", oldest: "iteration 2" });
    }
    expect(decide(base, { allowed: 2, oldest: "iteration 2" }).action).toEqual({
      kind: "start-build",
      k: 4,
      staleness: 2,
    });
  });

  it("waits for every pilot iteration's step before building the iteration after them", () => {
    const pilot = { ...base, latest: 1, applied: 0, pilots: 1 };
    expect(decide(pilot, { allowed: 6, oldest: "iteration 1" }).action).toEqual({
      kind: "step-oldest",
      oldest: "iteration 1",
    });
    // The pilot iterations themselves may overlap.
    const pilots = { ...base, latest: 1, applied: 0, pilots: 2 };
    expect(decide(pilots, { allowed: 6, oldest: "iteration 1" }).action).toEqual({
      kind: "start-build",
      k: 2,
      staleness: 1,
    });
    expect(decide({ ...pilot, applied: 1 }, { allowed: 6, oldest: null }).action).toEqual({
      kind: "start-build",
      k: 2,
      staleness: 0,
    });
  });

  it("reads no slots when no build may start: every iteration opened or being built, or the builds all running", () => {
    const opened = { ...base, latest: 9, beingBuilt: 1, buildsRunning: 1, buildsAtOnce: 4 };
    const full = { ...base, beingBuilt: 2, buildsRunning: 2, buildsAtOnce: 2 };
    for (const state of [opened, full, { ...base, latest: 10 }]) {
      expect(nextBuildAction(state)).toEqual({ kind: "ask-oldest" });
      const { action, asked } = decide(state, { allowed: 6, oldest: "iteration 2" });
      expect(asked).toEqual(["ask-oldest"]);
      expect(action).toEqual({ kind: "step-oldest", oldest: "iteration 2" });
    }
  });

  it("counts a built iteration waiting behind an earlier one as being built, not as a running build", () => {
    // 4 still building, 5 built behind it: a second build may start, for iteration 6.
    const state = { ...base, beingBuilt: 2, buildsRunning: 1, buildsAtOnce: 2, allowedStaleness: 6 };
    expect(nextBuildAction(state)).toEqual({ kind: "start-build", k: 6, staleness: 4 });
  });

  it("steps the oldest open iteration while builds run", () => {
    const building = { ...base, beingBuilt: 1, buildsRunning: 1 };
    expect(nextBuildAction({ ...building, oldest: "iteration 2" })).toEqual({
      kind: "step-oldest",
      oldest: "iteration 2",
    });
  });

  it("waits for the builds when nothing is open", () => {
    const building = { ...base, latest: 1, applied: 1, beingBuilt: 1, buildsRunning: 1 };
    expect(nextBuildAction({ ...building, oldest: null })).toEqual({ kind: "wait-builds" });
    // Also while the next build may not start yet (here: the barrier).
    const barrier = { ...base, latest: 1, applied: 1, beingBuilt: 1, buildsRunning: 1, buildsAtOnce: 2 };
    expect(decide(barrier, { allowed: 0, oldest: null })).toEqual({
      action: { kind: "wait-builds" },
      asked: ["ask-allowed-staleness", "ask-oldest"],
    });
  });

  it("finishes the run when every iteration is opened and applied and nothing is building", () => {
    const done = { ...base, latest: 10, applied: 10 };
    expect(decide(done, { allowed: 6, oldest: null })).toEqual({ action: { kind: "finish" }, asked: ["ask-oldest"] });
    // Never while an iteration is open or being built.
    expect(decide({ ...done, applied: 9 }, { allowed: 6, oldest: "iteration 10" }).action.kind).toBe("step-oldest");
    const building = { ...base, latest: 9, applied: 9, beingBuilt: 1, buildsRunning: 1 };
    expect(decide(building, { allowed: 6, oldest: null }).action.kind).toBe("wait-builds");
  });
});
