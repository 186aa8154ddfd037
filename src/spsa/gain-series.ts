/**
 * The Elo gained so far over a run, for the dashboard's chart (docs/gain-so-far.md): the gain as
 * `readGain` read it at each gain block's end, the same reading `spsa status` gives at that point,
 * so the chart's last point and the status line agree once the run's games reach it.
 */
import { readGain, type EloInterval, type GainBlock, type GainOptions } from "./gain-so-far.js";

export interface GainPoint {
  /** The run's games at the block's end: the block's `at` and its own games. */
  at: number;
  gain: EloInterval;
  /** The gain games the reading read. */
  games: number;
}

/**
 * The gain at the end of each of `blocks` (in the order drawn) whose end lies after `after`, at most
 * `points` of them: beyond that, evenly spaced ends with the last kept (a run of 100,000 games has
 * 625 blocks; each reading reads every block, so thinning also bounds the work).
 */
export function gainSeries(
  blocks: readonly GainBlock[],
  options: GainOptions,
  { after = -1, points }: { after?: number; points: number },
): GainPoint[] {
  const ends = [...new Set(blocks.map((b) => b.at + b.result.plusWins + b.result.minusWins + b.result.draws))]
    .filter((at) => at > after)
    .sort((a, b) => a - b);
  const chosen =
    ends.length <= points
      ? ends
      : Array.from({ length: points }, (_, i) => ends[Math.round(((i + 1) * ends.length) / points) - 1]!);
  return chosen.flatMap((at) => {
    // A budget of `at` itself: the chart reads the gain, not what the rest would add.
    const reading = readGain(blocks, at, at, options);
    return reading ? [{ at, gain: reading.gain, games: reading.games }] : [];
  });
}
