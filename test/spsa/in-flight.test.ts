import { describe, expect, it } from "vitest";
import { allowedStaleness, mayOpen, slowBuildWarning, stalenessBound, stalenessOf, TAIL_GAMES_PER_SLOT } from "../../src/spsa/in-flight.js";

const measured = { gamesPerIteration: 64, buildSeconds: 0.6, gamesPerSecond: 15, maxStaleness: 8 };

describe("allowedStaleness", () => {
  it("is 0 with a bound of 0 (the barrier), whatever the fleet", () => {
    expect(allowedStaleness({ ...measured, slots: 64, maxStaleness: 0 })).toBe(0);
  });

  it("is 1 before a build and a game rate are measured, or with no slot seen", () => {
    expect(allowedStaleness({ ...measured, slots: 64, buildSeconds: undefined })).toBe(1);
    expect(allowedStaleness({ ...measured, slots: 64, gamesPerSecond: undefined })).toBe(1);
    expect(allowedStaleness({ ...measured, slots: 0 })).toBe(1);
  });

  it("covers every slot's share of the tail and the games played during a build, in whole iterations", () => {
    // 2 slots: 10 + 9 games ahead fit in one iteration; 8 slots: 40 + 9 too.
    expect(allowedStaleness({ ...measured, slots: 2 })).toBe(1);
    expect(allowedStaleness({ ...measured, slots: 8 })).toBe(1);
    // 16 slots: 80 + 9 games: two iterations; 64 slots: 320 + 9: six.
    expect(allowedStaleness({ ...measured, slots: 16 })).toBe(2);
    expect(allowedStaleness({ ...measured, slots: 64 })).toBe(Math.ceil((64 * TAIL_GAMES_PER_SLOT + 9) / 64));
    expect(allowedStaleness({ ...measured, slots: 64 })).toBe(6);
    // A 35 s build at 15 games per second: 525 more games, nine iterations, capped at the bound.
    expect(allowedStaleness({ ...measured, slots: 8, buildSeconds: 35 })).toBe(8);
    expect(allowedStaleness({ ...measured, slots: 8, buildSeconds: 35, maxStaleness: 20 })).toBe(Math.ceil((8 * TAIL_GAMES_PER_SLOT + 525) / 64));
  });

  it("never exceeds the bound and grows with the slots", () => {
    let last = 0;
    for (const slots of [1, 2, 4, 8, 16, 32, 64, 128, 1024]) {
      const d = allowedStaleness({ ...measured, slots, maxStaleness: 3 });
      expect(d).toBeGreaterThanOrEqual(Math.max(1, last));
      expect(d).toBeLessThanOrEqual(3);
      last = d;
    }
  });
});

describe("mayOpen and stalenessOf", () => {
  it("counts the iterations before k whose step is not applied", () => {
    expect(stalenessOf(1, 0)).toBe(0);
    expect(stalenessOf(5, 4)).toBe(0);
    expect(stalenessOf(5, 2)).toBe(2);
  });

  it("opens k only within the allowed staleness", () => {
    expect(mayOpen(5, 4, 0, 0)).toBe(true);
    expect(mayOpen(5, 3, 0, 0)).toBe(false);
    expect(mayOpen(5, 3, 1, 0)).toBe(true);
    expect(mayOpen(5, 2, 1, 0)).toBe(false);
    expect(mayOpen(5, 2, 2, 0)).toBe(true);
  });

  it("keeps the iterations after the curvature pilot waiting until every pilot iteration is applied", () => {
    // Pilot of 1: iteration 2 waits for 1 even with staleness allowed; iteration 1 opens at once.
    expect(mayOpen(1, 0, 2, 1)).toBe(true);
    expect(mayOpen(2, 0, 2, 1)).toBe(false);
    expect(mayOpen(2, 1, 2, 1)).toBe(true);
    // Pilot of 3: its iterations may overlap each other, the fourth waits for all three.
    expect(mayOpen(3, 1, 2, 3)).toBe(true);
    expect(mayOpen(4, 2, 2, 3)).toBe(false);
    expect(mayOpen(5, 3, 2, 3)).toBe(true);
  });
});

describe("stalenessBound", () => {
  it("is the configured bound for plain SPSA, and 0 where the next draw needs θ after every step", () => {
    expect(stalenessBound({ maxStaleness: 2, schedule: "standard", momentum: 0 })).toBe(2);
    expect(stalenessBound({ maxStaleness: 2, schedule: "self-correcting", momentum: 0 })).toBe(0);
    expect(stalenessBound({ maxStaleness: 2, schedule: "standard", momentum: 0.5 })).toBe(0);
  });
});

describe("slowBuildWarning", () => {
  it("says nothing while an iteration's games outlast its build, or before a rate is measured", () => {
    expect(slowBuildWarning({ gamesPerIteration: 64, buildSeconds: 0.6, gamesPerSecond: 15 })).toBeUndefined();
    expect(slowBuildWarning({ gamesPerIteration: 64, buildSeconds: 35, gamesPerSecond: undefined })).toBeUndefined();
  });

  it("names the games played during a build and an even games_per_iteration that covers them", () => {
    const line = slowBuildWarning({ gamesPerIteration: 64, buildSeconds: 35, gamesPerSecond: 3.7 });
    expect(line).toMatch(/about 130 games while .* built \(35\.0 s\), more than its 64/);
    expect(line).toMatch(/games_per_iteration 130 or more/);
  });
});
