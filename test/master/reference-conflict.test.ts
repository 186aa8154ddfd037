import { describe, expect, it } from "vitest";
import { referenceConflict } from "../../src/master/reference.js";

const SHA = "a".repeat(64);
const run = (reference: string | null, referenceSha256: string | null = null) => ({
  name: "r",
  reference,
  referenceSha256,
});

describe("a resumed run's reference", () => {
  it("continues with the reference it was started with: none, start, or a file of the same bytes wherever it is", () => {
    expect(referenceConflict(run(null), undefined, undefined)).toBeUndefined();
    expect(referenceConflict(run("start", SHA), "start", undefined)).toBeUndefined();
    expect(referenceConflict(run("/a/engine", SHA), "/b/moved-engine", SHA)).toBeUndefined();
    // Not recorded yet (the master was killed before): the kind must match, the file is taken now.
    expect(referenceConflict(run("/a/engine"), "/a/engine", "b".repeat(64))).toBeUndefined();
  });

  it("refuses another reference as another run, saying which and how to start over", () => {
    const fresh = "; a different reference is a different run: start it over with --fresh, or use another --name";
    expect(referenceConflict(run(null), "start", undefined)).toBe(
      `run "r" plays plus against minus, without a reference engine${fresh}`,
    );
    expect(referenceConflict(run("start", SHA), undefined, undefined)).toBe(
      `run "r" plays against a reference engine (θ₀ built at the run's start (reference = "start")); set it again${fresh}`,
    );
    expect(referenceConflict(run("start", SHA), "/e", SHA)).toBe(
      `run "r" plays against θ₀ built at the run's start (reference = "start"), not /e${fresh}`,
    );
    expect(referenceConflict(run("/e"), "start", undefined)).toBe(
      `run "r" plays against /e, not θ₀ built at the run's start (reference = "start")${fresh}`,
    );
    expect(referenceConflict(run("/e", SHA), "/e", "b".repeat(64))).toBe(
      `run "r" plays against the engine of sha256 aaaaaaaaaaaa, and /e now has sha256 bbbbbbbbbbbb${fresh}`,
    );
  });
});
