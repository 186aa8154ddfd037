import { describe, expect, it } from "vitest";
import { nothingLeftToGain, readGain, type GainBlock } from "../../src/spsa/gain-so-far.js";
import { scoreToElo } from "../../src/spsa/math.js";
import { playGames } from "../../src/simulate/game-model.js";
import { createRng } from "../../src/core/rng.js";

/** A block drawn after `at` games whose θ scored `score` against θ₀ over `games` games, no draws. */
const block = (at: number, score: number, games = 100): GainBlock => {
  const wins = Math.round(score * games);
  return { at, result: { plusWins: wins, minusWins: games - wins, draws: 0 } };
};
/** Blocks every 1,000 games up to `now`, θ's score at each from `score(at)`. */
const blocks = (now: number, score: (at: number) => number, games = 100): GainBlock[] =>
  Array.from({ length: now / 1000 }, (_, i) => block((i + 1) * 1000, score((i + 1) * 1000), games));

describe("the gain so far", () => {
  it("reads nothing before a block is in its window", () => {
    expect(readGain([], 1000, 5000, { window: 0.5, restWindow: 0.5 })).toBeUndefined();
    // The only block was drawn before the last half of the games played so far.
    expect(readGain([block(1000, 0.6)], 4000, 5000, { window: 0.5, restWindow: 0.5 })).toBeUndefined();
  });

  it("reads θ at a constant strength as that strength, its interval around it, and nothing more to come", () => {
    const reading = readGain(
      blocks(10_000, () => 0.6),
      10_000,
      20_000,
      { window: 0.5, restWindow: 0.5 },
    )!;
    expect(reading.games).toBe(600);
    expect(reading.gain.elo).toBeCloseTo(scoreToElo(0.6), 6);
    expect(reading.gain.low).toBeLessThan(reading.gain.elo);
    expect(reading.gain.high).toBeGreaterThan(reading.gain.elo);
    expect(reading.rest!.elo).toBeCloseTo(0, 6);
    expect(reading.rest!.low).toBeLessThan(0);
    expect(reading.rest!.high).toBeGreaterThan(0);
  });

  it("reads a rising θ at the window's mean as a level, at its end as a line, and projects the rise on", () => {
    const rising = (at: number) => 0.5 + 0.05 * Math.log(at / 1000);
    const line = readGain(blocks(10_000, rising, 10_000), 10_000, 20_000, {
      window: 0.5,
      shape: "line",
      restWindow: 0.5,
    })!;
    const level = readGain(blocks(10_000, rising, 10_000), 10_000, 20_000, { window: 0.5, restWindow: 0.5 })!;
    expect(line.gain.elo).toBeCloseTo(scoreToElo(rising(10_000)), 0);
    expect(level.gain.elo).toBeLessThan(line.gain.elo - 5);
    expect(level.rest!.elo).toBeCloseTo(line.rest!.elo, 6);
    expect(line.rest!.elo).toBeCloseTo(scoreToElo(rising(20_000)) - scoreToElo(rising(10_000)), 0);
  });

  it("reads a window of all wins as a lower bound with no projection", () => {
    const reading = readGain(
      blocks(10_000, () => 1),
      10_000,
      20_000,
      { window: 0.5, restWindow: 0.5 },
    )!;
    expect(reading.gain.high).toBe(Infinity);
    expect(reading.gain.low).toBeGreaterThan(300);
    expect(reading.gain.low).toBeLessThan(reading.gain.elo);
    expect(reading.rest).toBeUndefined();
  });

  it("narrows its interval as the square root of the games", () => {
    const width = (games: number) => {
      const { gain } = readGain(
        blocks(10_000, () => 0.55, games),
        10_000,
        20_000,
        { window: 0.5, restWindow: 0.5 },
      )!;
      return gain.high - gain.low;
    };
    expect(width(100) / width(400)).toBeCloseTo(2, 1);
  });

  it("covers θ's true gain 95 % of the time", () => {
    // 400 runs at a true 40 Elo, draws 0.4, 6 blocks of 64 games in the window each.
    const rng = createRng("gain-so-far coverage");
    let covered = 0;
    for (let run = 0; run < 400; run++) {
      const played = Array.from({ length: 12 }, (_, i) => ({ at: (i + 1) * 500, result: playGames(40, 64, 0.4, rng) }));
      const { gain } = readGain(played, 6000, 20_000, { window: 0.5, restWindow: 0.5 })!;
      if (gain.low <= 40 && 40 <= gain.high) covered++;
    }
    expect(covered / 400).toBeGreaterThan(0.92);
    expect(covered / 400).toBeLessThan(0.98);
  });
});

describe("the stop rule", () => {
  const reading = (rest: { elo: number; low: number; high: number } | undefined) => ({
    gain: { elo: 50, low: 40, high: 60 },
    ...(rest && { rest }),
    games: 1000,
  });

  it("stops when the rest's whole interval lies within ±threshold", () => {
    expect(nothingLeftToGain(reading({ elo: 0.5, low: -1.5, high: 1.9 }), 2)).toBe(true);
    expect(nothingLeftToGain(reading({ elo: 0.5, low: -1.5, high: 2.1 }), 2)).toBe(false);
  });

  it("does not stop on a projection confidently below −threshold, nor without one", () => {
    expect(nothingLeftToGain(reading({ elo: -30, low: -50, high: -10 }), 2)).toBe(false);
    expect(nothingLeftToGain(reading(undefined), 2)).toBe(false);
    expect(nothingLeftToGain(undefined, 2)).toBe(false);
  });
});
