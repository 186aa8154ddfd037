import type postgres from "postgres";
import { runGainGames } from "../db/gain-blocks.js";
import { DEFAULT_GAIN_OPTIONS, nothingLeftToGain, readGain } from "../spsa/gain-so-far.js";
import { stopLine } from "../spsa/gain-text.js";
import type { GainConfig } from "../types/config.js";

/**
 * The stop rule in a master (docs/gain-so-far.md), either mode: after games were counted, the
 * run's gain games read again (runGainGames); once the rest of the budget is projected within
 * ±stop_below with 95 % confidence, the master says so in one line (once per master), and with
 * stop_early ends the run through `end`: no more draws (UCI-option mode: the carrier's target cut
 * to the games given out) or iterations (build mode), so it completes with its result as a run at
 * its budget does. The reading is the database's, so a restarted master decides the same.
 */
export class GainStop {
  private seen = -1;
  private said = false;
  private ended = false;

  constructor(
    private readonly run: { runId: number; name: string; gainShare: number },
    private readonly config: GainConfig,
    private readonly log: (line: string) => void,
    /** Ends the run early; the games it ends at (undefined: it was not ended, e.g. already complete). */
    private readonly end: (sql: postgres.Sql) => Promise<number | undefined>,
  ) {}

  /** After games were counted, before more are drawn: true when this call ended the run early. */
  async check(sql: postgres.Sql): Promise<boolean> {
    if (this.run.gainShare === 0 || this.ended) return false;
    const games = await runGainGames(sql, this.run.runId);
    if (games.played === this.seen) return false;
    this.seen = games.played;
    const reading = readGain(games.blocks, games.played, games.target, DEFAULT_GAIN_OPTIONS);
    if (!reading?.rest || !nothingLeftToGain(reading, this.config.stopBelow)) return false;
    if (!this.said)
      this.log(`run "${this.run.name}": ${stopLine(reading.rest, this.config.stopBelow, this.config.stopEarly)}`);
    this.said = true;
    if (!this.config.stopEarly) return false;
    const target = await this.end(sql);
    if (target === undefined) return false;
    this.ended = true;
    this.log(
      `run "${this.run.name}": ended early at ${target} of its ${games.target} games: ` +
        `it completes once the games in flight are in`,
    );
    return true;
  }
}
