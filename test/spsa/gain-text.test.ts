import { describe, expect, it } from "vitest";
import { eloText, gainLine, stopLine } from "../../src/spsa/gain-text.js";

describe("the gain in words", () => {
  it("signs Elo with a real minus and writes an infinite end as ∞", () => {
    expect([
      eloText(38.4),
      eloText(-9.2),
      eloText(-0.2),
      eloText(0.44, 1),
      eloText(Infinity),
      eloText(-Infinity),
    ]).toEqual(["+38", "−9", "+0", "+0.4", "+∞", "−∞"]);
  });

  it("says the gain with its interval and the rest of the budget, or that the rest is not projected yet", () => {
    const gain = { elo: 38.2, low: 21.1, high: 55.4 };
    expect(gainLine({ gain, rest: { elo: 6, low: -9, high: 21 }, games: 512 })).toBe(
      "gained so far: +38 Elo (95 %: +21 … +55) from 512 games of θ against θ₀; the rest of the budget: +6 (−9 … +21)",
    );
    expect(gainLine({ gain: { elo: 400, low: 250, high: Infinity }, games: 32 })).toBe(
      "gained so far: +400 Elo (95 %: +250 … +∞) from 32 games of θ against θ₀; the rest of the budget: not projected yet",
    );
  });

  it("says the stop rule's line with what the master does", () => {
    const rest = { elo: 0.4, low: -1.2, high: 1.9 };
    expect(stopLine(rest, 2, true)).toBe(
      "nothing left to gain: the rest of the budget projected at +0.4 Elo (95 %: −1.2 … +1.9, below 2); stopping (stop_early)",
    );
    expect(stopLine(rest, 2, false)).toMatch(/below 2\); playing on \(stop_early = false\)$/);
  });
});
