import { describe, expect, it } from "vitest";
import { DEFAULT_GAIN_OPTIONS, readGain, type GainBlock } from "../../src/spsa/gain-so-far.js";
import { gainSeries } from "../../src/spsa/gain-series.js";

/** Blocks of 16 games every 160 games from 200 on, as a run at gain_share 0.1 draws them; θ's wins rising. */
const rising = (count: number): GainBlock[] =>
  Array.from({ length: count }, (_, i) => {
    const wins = Math.min(12, 4 + Math.floor(i / 3));
    return { at: 200 + 160 * i, result: { plusWins: wins, minusWins: 12 - wins, draws: 4 } };
  });

describe("the gain over a run, for the dashboard's chart", () => {
  it("reads the gain at each block's end as readGain does there, in the order of the ends", () => {
    const blocks = rising(30);
    const series = gainSeries(blocks, DEFAULT_GAIN_OPTIONS, { points: 400 });
    expect(series.map((p) => p.at)).toEqual(blocks.map((b) => b.at + 16));
    for (const point of series) {
      const reading = readGain(blocks, point.at, point.at, DEFAULT_GAIN_OPTIONS)!;
      expect(point).toEqual({ at: point.at, gain: reading.gain, games: reading.games });
    }
    // The gain climbs with θ's wins: the last point's well above the first's.
    expect(series.at(-1)!.gain.elo).toBeGreaterThan(series[0]!.gain.elo + 100);
  });

  it("keeps a window of all wins open above (an infinite end), not a huge number", () => {
    const blocks = Array.from({ length: 4 }, (_, i) => ({
      at: 160 * i,
      result: { plusWins: 16, minusWins: 0, draws: 0 },
    }));
    const last = gainSeries(blocks, DEFAULT_GAIN_OPTIONS, { points: 400 }).at(-1)!;
    expect(last.gain.high).toBe(Infinity);
    expect(Number.isFinite(last.gain.elo) && Number.isFinite(last.gain.low)).toBe(true);
  });

  it("thins a long run's ends to `points`, evenly, its last kept; a refresh reads only the ends after the page's last", () => {
    const blocks = rising(1000);
    const series = gainSeries(blocks, DEFAULT_GAIN_OPTIONS, { points: 100 });
    expect(series).toHaveLength(100);
    expect(series.at(-1)!.at).toBe(blocks.at(-1)!.at + 16);
    expect(series[0]!.at).toBe(blocks[9]!.at + 16);
    const steps = new Set(series.slice(1).map((p, i) => p.at - series[i]!.at));
    expect(steps).toEqual(new Set([1600]));
    for (const point of series)
      expect(point.gain).toEqual(readGain(blocks, point.at, point.at, DEFAULT_GAIN_OPTIONS)!.gain);
    const after = gainSeries(blocks.slice(0, 12), DEFAULT_GAIN_OPTIONS, { after: blocks[9]!.at + 16, points: 100 });
    expect(after.map((p) => p.at)).toEqual([blocks[10]!.at + 16, blocks[11]!.at + 16]);
  });

  it("has no point without blocks", () => {
    expect(gainSeries([], DEFAULT_GAIN_OPTIONS, { points: 400 })).toEqual([]);
  });
});
