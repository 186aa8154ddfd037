import { describe, expect, it } from "vitest";
import { DEFAULT_GAIN } from "../../src/config/config.js";
import { DEFAULT_GAIN_OPTIONS, readGain, type GainBlock } from "../../src/spsa/gain-so-far.js";
import { gainLine, stopLine } from "../../src/spsa/gain-text.js";
import { gainStatus, readingOf } from "../../src/status/gain-status.js";
import { gainLines } from "../../src/status/render.js";

/** A block of 16 games drawn after `at` games, θ scoring `wins` and `draws` of them against θ₀. */
const block = (at: number, wins: number, draws: number): GainBlock => ({
  at,
  result: { plusWins: wins, minusWins: 16 - wins - draws, draws },
});

describe("the gain as spsa status shows it", () => {
  it("is readGain over the blocks, in JSON with an infinite end as null, and reads back to the same words", () => {
    // θ won every game of the last half's blocks: the upper end is infinite.
    const swept = [block(160, 8, 4), block(320, 16, 0), block(480, 16, 0)];
    const status = gainStatus(swept, 640, 5000, DEFAULT_GAIN)!;
    const reading = readGain(swept, 640, 5000, DEFAULT_GAIN_OPTIONS)!;
    expect(reading.gain.high).toBe(Infinity);
    expect(status.gain).toEqual({ elo: reading.gain.elo, low: reading.gain.low, high: null });
    expect(JSON.parse(JSON.stringify(status))).toEqual(status);
    expect(gainLines(status)).toEqual([gainLine(reading)]);
    expect(readingOf(status)).toEqual(reading);
  });

  it("projects the rest once the line has three blocks, and adds the stop line only while the rule holds", () => {
    // Flat at 56 % over 40 blocks: the rest is projected at 0, its interval narrower the fewer games are left.
    const flat = Array.from({ length: 40 }, (_, i) => block(160 * (i + 1), 7, 4));
    const now = 160 * 40 + 16;
    // One more cycle left: within ±2 Elo, so the rule holds at the default threshold (said, playing on).
    const end = readGain(flat, now, now + 160, DEFAULT_GAIN_OPTIONS)!;
    expect(end.rest!.high).toBeLessThan(2);
    const holds = gainStatus(flat, now, now + 160, DEFAULT_GAIN)!;
    expect(holds.stop).toEqual({ below: 2, early: false, nothingLeft: true });
    expect(holds.rest).toEqual(end.rest);
    expect(gainLines(holds)).toEqual([gainLine(end), stopLine(end.rest!, 2, false)]);
    // Three times as many games left as played: the rest cannot be measured that closely; no stop line.
    const far = readGain(flat, now, now * 4, DEFAULT_GAIN_OPTIONS)!;
    expect(far.rest!.high).toBeGreaterThan(2);
    const playsOn = gainStatus(flat, now, now * 4, { ...DEFAULT_GAIN, stopEarly: true })!;
    expect(playsOn.stop).toEqual({ below: 2, early: true, nothingLeft: false });
    expect(gainLines(playsOn)).toEqual([gainLine(far)]);
  });

  it("reads nothing before a block is in the gain's window", () => {
    expect(gainStatus([], 1000, 5000, DEFAULT_GAIN)).toBeNull();
    expect(gainStatus([block(100, 8, 0)], 1000, 5000, DEFAULT_GAIN)).toBeNull();
  });
});
