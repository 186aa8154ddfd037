import { describe, expect, it } from "vitest";
import {
  allowedStaleness,
  buildsAtOnce,
  mayOpen,
  MIN_CORES_PER_BUILD,
  slowBuildWarning,
  stalenessBound,
  stalenessOf,
  TAIL_GAMES_PER_SLOT,
} from "../../src/spsa/in-flight.js";

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
    expect(allowedStaleness({ ...measured, slots: 8, buildSeconds: 35, maxStaleness: 20 })).toBe(
      Math.ceil((8 * TAIL_GAMES_PER_SLOT + 525) / 64),
    );
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

describe("buildsAtOnce", () => {
  it("is the configured number when set", () => {
    expect(buildsAtOnce({ configured: 3, cores: 64, coresPerBuild: 2 })).toBe(3);
    expect(buildsAtOnce({ configured: 1, cores: 64, coresPerBuild: undefined })).toBe(1);
  });

  it("keeps every core busy with single-core builds: half the cores, one iteration being two engines", () => {
    expect(buildsAtOnce({ configured: "auto", cores: 16, coresPerBuild: 2 })).toBe(8);
    // A build measured at a little more than a core per engine: one more build than fits whole.
    expect(buildsAtOnce({ configured: "auto", cores: 16, coresPerBuild: 2.04 })).toBe(8);
    expect(buildsAtOnce({ configured: "auto", cores: 2, coresPerBuild: 2 })).toBe(1);
    expect(buildsAtOnce({ configured: "auto", cores: 1, coresPerBuild: undefined })).toBe(1);
  });

  it("builds fewer at once when a build uses several cores", () => {
    expect(buildsAtOnce({ configured: "auto", cores: 16, coresPerBuild: 8 })).toBe(2);
    expect(buildsAtOnce({ configured: "auto", cores: 16, coresPerBuild: 32 })).toBe(1);
  });

  it("never counts a build as less than one core per engine: one that got less shared its cores", () => {
    expect(buildsAtOnce({ configured: "auto", cores: 2, coresPerBuild: 0.5 })).toBe(MIN_CORES_PER_BUILD / 2);
    expect(buildsAtOnce({ configured: "auto", cores: 16, coresPerBuild: undefined })).toBe(16 / MIN_CORES_PER_BUILD);
  });
});

describe("slowBuildWarning", () => {
  const pace = {
    gamesPerIteration: 64,
    buildsAtOnce: 1,
    configured: "auto" as const,
    cores: 2,
    coresPerBuild: 2,
    slots: 16,
    maxStaleness: 6,
  };

  it("says nothing while the builds at once outlast the games played during one, or before a rate is measured", () => {
    expect(slowBuildWarning({ ...pace, buildSeconds: 0.6, gamesPerSecond: 15 })).toBeUndefined();
    expect(slowBuildWarning({ ...pace, buildSeconds: 35, gamesPerSecond: undefined })).toBeUndefined();
    // 130 games during a build: two builds at once hold 128, three 192.
    expect(
      slowBuildWarning({ ...pace, buildsAtOnce: 3, cores: 8, buildSeconds: 35, gamesPerSecond: 3.7 }),
    ).toBeUndefined();
  });

  it("names the games played during a build, and what keeps the slots busy: more builds at once and the cores for them, larger iterations, UCI-option mode", () => {
    const line = slowBuildWarning({ ...pace, buildSeconds: 35, gamesPerSecond: 3.7 });
    expect(line).toMatch(
      /about 130 games while .* built \(35\.0 s\), more than the iteration of 64 games built at once \(\[build\] builds_at_once 1 \(auto: 2 cores, 2\.0 per build\)\)/,
    );
    expect(line).toMatch(/\[build\] builds_at_once 3 on a master of 6 cores or more;/);
    expect(line).toMatch(/games_per_iteration 130 or more/);
    expect(line).toMatch(/\[engine\] mode = "options"/);
  });

  it("counts the staleness bound as a limit on the builds at once, and names the bound enough builds need", () => {
    // 64 slots at 15 games a second: 527 games per 35 s build, 9 builds at once, staleness 14 with the slots' tail.
    const line = slowBuildWarning({
      ...pace,
      slots: 64,
      buildsAtOnce: 8,
      cores: 16,
      buildSeconds: 35,
      gamesPerSecond: 15.06,
    });
    expect(line).toMatch(
      /more than the 6 iterations of 64 games built at once \(\[build\] builds_at_once 8 \(auto: 16 cores, 2\.0 per build\), \[spsa\] max_staleness 6\)/,
    );
    expect(line).toMatch(/\[build\] builds_at_once 9 on a master of 18 cores or more with \[spsa\] max_staleness 14;/);
    // 8 builds at once hold 66-game iterations, but six iterations of the bound must hold 527 games and the tail's 320.
    expect(line).toMatch(/games_per_iteration 142 or more/);
    // Enough builds at once already: only the bound.
    const bounded = slowBuildWarning({
      ...pace,
      slots: 64,
      buildsAtOnce: 16,
      cores: 32,
      buildSeconds: 35,
      gamesPerSecond: 15.06,
    });
    expect(bounded).toMatch(/any of these keeps them busy: \[spsa\] max_staleness 14;/);
  });

  it("says how the number was chosen when config.toml sets it", () => {
    expect(slowBuildWarning({ ...pace, configured: 1, buildSeconds: 35, gamesPerSecond: 3.7 })).toMatch(
      /builds_at_once 1 \(set in config\.toml\)/,
    );
  });
});
