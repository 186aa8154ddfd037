/**
 * After a stop, how long the worker may still spend on the database:
 * reporting what it finished, returning the rest.
 */
const STOP_PATIENCE_MS = 2_000;

/**
 * A worker's stop (its `signal`, the name taken over, or a failure): claims and binary fetches
 * end at once (`signal`), `onStop` kills the engines (so the games in flight end, unscored),
 * and database work after it (reports, refusals, the hand-back) has STOP_PATIENCE_MS (`patience`).
 */
export class WorkerStop {
  private readonly stopping = new AbortController();
  private readonly patient = new AbortController();
  private patienceTimer: NodeJS.Timeout | undefined;
  readonly signal = this.stopping.signal;
  readonly patience = this.patient.signal;

  constructor(
    /** The stop asked of the worker from outside. */
    private readonly outer: AbortSignal | undefined,
    private readonly onStop: () => void,
  ) {}

  get stopped(): boolean {
    return this.signal.aborted;
  }

  /** Stops with the outer signal, at once if it has already ended. */
  follow(): void {
    this.outer?.addEventListener("abort", this.begin, { once: true });
    if (this.outer?.aborted) this.begin();
  }

  readonly begin = (): void => {
    if (this.stopped) return;
    this.stopping.abort();
    this.patienceTimer = setTimeout(() => this.patient.abort(), STOP_PATIENCE_MS);
    this.onStop();
  };

  /** Done with the outer signal and the patience's timer. */
  release(): void {
    clearTimeout(this.patienceTimer);
    this.outer?.removeEventListener("abort", this.begin);
  }
}
