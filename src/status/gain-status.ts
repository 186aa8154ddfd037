import {
  DEFAULT_GAIN_OPTIONS,
  nothingLeftToGain,
  readGain,
  type EloInterval,
  type GainBlock,
  type GainReading,
} from "../spsa/gain-so-far.js";
import type postgres from "postgres";
import { runGainGames } from "../db/gain-blocks.js";
import { gainLine } from "../spsa/gain-text.js";
import type { GainConfig } from "../types/config.js";

/**
 * The Elo gained so far as `spsa status` and the dashboard show it (docs/gain-so-far.md): the
 * reading of the run's gain blocks, its interval ends as JSON can hold them, and the stop rule.
 */

/** An Elo interval in JSON: an infinite end (a score of all wins or all losses) is null. */
export interface JsonInterval {
  elo: number;
  low: number | null;
  high: number | null;
}

export interface GainStatus {
  /** θ now against θ₀. */
  gain: JsonInterval;
  /** What the rest of the budget is projected to add; null until there is a projection. */
  rest: JsonInterval | null;
  /** The gain games the gain reads. */
  games: number;
  /** The stop rule ([spsa] stop_below, stop_early) and whether it holds now. */
  stop: { below: number; early: boolean; nothingLeft: boolean };
}

/**
 * The gain of a run whose carrier has `played` of its `target` games, from its played gain blocks;
 * null before any block is in the gain's window.
 */
export function gainStatus(
  blocks: readonly GainBlock[],
  played: number,
  target: number,
  config: GainConfig,
): GainStatus | null {
  const reading = readGain(blocks, played, target, DEFAULT_GAIN_OPTIONS);
  if (!reading) return null;
  return {
    gain: jsonInterval(reading.gain),
    rest: reading.rest ? jsonInterval(reading.rest) : null,
    games: reading.games,
    stop: {
      below: config.stopBelow,
      early: config.stopEarly,
      nothingLeft: nothingLeftToGain(reading, config.stopBelow),
    },
  };
}

/** The reading again from its JSON form (the text's words take infinite ends). */
export function readingOf(status: GainStatus): GainReading {
  return {
    gain: fromJson(status.gain),
    ...(status.rest && { rest: fromJson(status.rest) }),
    games: status.games,
  };
}

export function jsonInterval({ elo, low, high }: EloInterval): JsonInterval {
  return { elo, low: Number.isFinite(low) ? low : null, high: Number.isFinite(high) ? high : null };
}

function fromJson({ elo, low, high }: JsonInterval): EloInterval {
  return { elo, low: low ?? -Infinity, high: high ?? Infinity };
}

/**
 * The gain line of a run as `spsa status` words it, for a file's header (`spsa export`);
 * undefined before a reading.
 */
export async function runGainLine(sql: postgres.Sql, runId: number): Promise<string | undefined> {
  const games = await runGainGames(sql, runId);
  const reading = readGain(games.blocks, games.played, games.target, DEFAULT_GAIN_OPTIONS);
  return reading && gainLine(reading);
}
