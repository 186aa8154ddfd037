import { describe, expect, it } from "vitest";
import { iterationLine } from "../../src/master/finish-iteration.js";
import { drawnBehind } from "../../src/master/open-iteration.js";
import { describePilot } from "../../src/master/pilot.js";
import { PILOT_MAX_FACTOR } from "../../src/spsa/pilot.js";

/** The master's log lines a newcomer reads in the first hour (issue 57): each term said, not left to guess. */
describe("the master's lines in plain words", () => {
  const againstTheStart = {
    plus: { plusWins: 2, minusWins: 5, draws: 1 },
    minus: { plusWins: 3, minusWins: 3, draws: 2 },
  };

  it("says an Elo at the cap is capped, by what, and that the games measured more", () => {
    expect(iterationLine(4, { plusWins: 8, minusWins: 0, draws: 0 }, 400, 400, "minus")).toBe(
      "iteration 4: +8 -0 =0, Elo 400.0 (plus vs minus; capped at ±400 by [spsa] elo_cap, the games measured more)",
    );
    expect(iterationLine(4, { plusWins: 5, minusWins: 3, draws: 0 }, 87.5, 400, "minus")).toBe(
      "iteration 4: +5 -3 =0, Elo 87.5 (plus vs minus)",
    );
  });

  it("names the curvature pilot's iteration and its opponent θ₀, not a reference the run does not have", () => {
    expect(iterationLine(1, againstTheStart, -137, 400, "θ₀")).toBe(
      "iteration 1 (curvature pilot): θ+ +2 -5 =1, θ− +3 -3 =2 vs θ₀, " + "Elo of θ+ over θ− -137.0 (each against θ₀)",
    );
    expect(iterationLine(1, againstTheStart, -400, 400, "θ₀")).toBe(
      "iteration 1 (curvature pilot): θ+ +2 -5 =1, θ− +3 -3 =2 vs θ₀, " +
        "Elo of θ+ over θ− -400.0 (each against θ₀; " +
        "capped at ±400 by [spsa] elo_cap, the games measured more)",
    );
    // A reference-mode run's line is as before.
    expect(iterationLine(2, againstTheStart, -137, 400, "reference")).toBe(
      "iteration 2: θ+ +2 -5 =1, θ− +3 -3 =2 vs reference, Elo -137.0 (θ+ vs reference − θ− vs reference)",
    );
  });

  it("says why the pilot chose its step factor, what a curvature too large to measure means, and where it lifts the floor", () => {
    const unlifted = { floor: 0.1667 };
    expect(describePilot({ curvature: 8.654, error: 10.24, saturated: false, factor: 1.72 }, unlifted)).toBe(
      "curvature pilot: total curvature 8.65 ± 20.48 Elo per step²; steps × 1.72 from here on " +
        `(θ+ and θ− lost little to θ₀: flat enough for longer steps, at most × ${PILOT_MAX_FACTOR})`,
    );
    // With adapt_lift the least scale rises too: 0.1667 · 1.72^1.5 = 0.38.
    expect(
      describePilot({ curvature: 8.654, error: 10.24, saturated: false, factor: 1.72 }, { ...unlifted, lift: 1.5 }),
    ).toBe(
      "curvature pilot: total curvature 8.65 ± 20.48 Elo per step²; steps × 1.72 from here on, the least " +
        `scale 0.38 instead of 0.1667 (θ+ and θ− lost little to θ₀: flat enough for longer steps, at most × ${PILOT_MAX_FACTOR})`,
    );
    expect(describePilot({ curvature: 120, error: 10, saturated: false, factor: 1 }, { ...unlifted, lift: 1.5 })).toBe(
      "curvature pilot: total curvature 120.00 ± 20.00 Elo per step²; steps × 1.00 from here on " +
        "(θ+ and θ− lost too much to θ₀ for longer steps: the default length)",
    );
    expect(describePilot({ curvature: 900, error: 300, saturated: true, factor: 1 }, unlifted)).toBe(
      "curvature pilot: total curvature too large to measure (θ+ or θ− lost over 250 Elo to θ₀); " +
        "steps × 1.00 from here on (the default length)",
    );
  });

  it("says what an iteration drawn in flight lacked, for one iteration and for several", () => {
    expect(drawnBehind(3, 1)).toBe("drawn from θ before iteration 2's step, which was still playing");
    expect(drawnBehind(7, 3)).toBe("drawn from θ before the steps of iterations 4–6, which were still playing");
  });
});
