/**
 * When a worker should play fewer games at once (pure). Games lost or replayed because the
 * machine did not schedule an engine in time mean it runs more games than the machine can
 * serve next to its other load; one game fewer at a time is the remedy that costs least.
 */
export interface DelayGuardOptions {
  /** Games (replays included) seen before judging, so one unlucky batch does not decide. */
  windowGames: number;
  /** Share of those games hit by a delay outside the engine that lowers the concurrency. */
  threshold: number;
}

export const DEFAULT_DELAY_GUARD: DelayGuardOptions = { windowGames: 32, threshold: 0.05 };

export interface Lowering {
  from: number;
  to: number;
  /** "5 of 40 games hit by delays outside the engines", for the log and spsa_worker. */
  reason: string;
}

export class DelayGuard {
  private games = 0;
  private delayed = 0;

  constructor(
    private concurrency: number,
    private readonly options: DelayGuardOptions = DEFAULT_DELAY_GUARD,
  ) {}

  /**
   * Adds a batch: `games` played (replays included), `delayed` of them lost or replayed for a
   * delay outside the engine. Returns the lowering to apply, if the window's share is too high.
   */
  observe(games: number, delayed: number): Lowering | undefined {
    this.games += games;
    this.delayed += delayed;
    if (this.games < this.options.windowGames) return undefined;
    const { games: seen, delayed: hit } = this;
    this.games = 0;
    this.delayed = 0;
    if (this.concurrency <= 1 || hit < this.options.threshold * seen) return undefined;
    const lowering = {
      from: this.concurrency,
      to: this.concurrency - 1,
      reason: `${hit} of ${seen} games hit by delays outside the engines`,
    };
    this.concurrency = lowering.to;
    return lowering;
  }
}
