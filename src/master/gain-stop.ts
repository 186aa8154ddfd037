import type postgres from "postgres";
import { playedGainBlocks } from "../db/gain-blocks.js";
import { endCarrierEarly, type CarrierProgress } from "../db/option-run.js";
import { DEFAULT_GAIN_OPTIONS, nothingLeftToGain, readGain } from "../spsa/gain-so-far.js";
import { stopLine } from "../spsa/gain-text.js";
import type { GainConfig } from "../types/config.js";

/**
 * The stop rule in a UCI-option master (docs/gain-so-far.md): after each poll that counted new
 * games, the run's gain blocks read again; once the rest of the budget is projected within
 * ±stop_below with 95 % confidence, the master says so in one line (once per master), and with
 * stop_early ends the run: no more draws, the carrier's target cut to the games given out
 * (endCarrierEarly), so it completes with its result as a run at its budget does.
 */
export class GainStop {
  private seen = -1;
  private said = false;
  private ended = false;

  constructor(
    private readonly run: { runId: number; iterationId: number; name: string; gainShare?: number },
    private readonly config: GainConfig,
    private readonly log: (line: string) => void,
  ) {}

  /** After a poll's fold, before its draws: true when this call ended the run early. */
  async check(sql: postgres.Sql, carrier: CarrierProgress): Promise<boolean> {
    if ((this.run.gainShare ?? 0) === 0 || this.ended || carrier.gamesPlayed === this.seen) return false;
    this.seen = carrier.gamesPlayed;
    const blocks = await playedGainBlocks(sql, this.run.runId);
    const reading = readGain(blocks, carrier.gamesPlayed, carrier.targetGames, DEFAULT_GAIN_OPTIONS);
    if (!reading?.rest || !nothingLeftToGain(reading, this.config.stopBelow)) return false;
    if (!this.said)
      this.log(`run "${this.run.name}": ${stopLine(reading.rest, this.config.stopBelow, this.config.stopEarly)}`);
    this.said = true;
    if (!this.config.stopEarly) return false;
    const target = await endCarrierEarly(sql, this.run.iterationId);
    if (target === undefined) return false;
    this.ended = true;
    this.log(
      `run "${this.run.name}": ended early at ${target} of its ${carrier.targetGames} games: ` +
        `it completes once the games in flight are in`,
    );
    return true;
  }
}
