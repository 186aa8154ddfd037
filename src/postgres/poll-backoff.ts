import { setTimeout as sleep } from "node:timers/promises";

/** The first wait after activity: a new iteration or the last report of one is seen this soon. */
export const FIRST_POLL_MS = 100;
/**
 * A worker's longest wait between claims while idle: 1,000 idle workers then poll some 270 times a
 * second in all (docs/scaling-out.md).
 */
export const WORKER_IDLE_POLL_CAP_MS = 5_000;

/**
 * The wait after `idlePolls` polls that found nothing new: doubling from FIRST_POLL_MS up to
 * `capMs`, jittered to 50–100 %.
 */
export function pollDelay(idlePolls: number, capMs: number, random: () => number = Math.random): number {
  const ceiling = Math.min(capMs, FIRST_POLL_MS * 2 ** Math.max(0, idlePolls));
  return ceiling * (0.5 + random() / 2);
}

/**
 * Waits between polls of the database, in place of LISTEN/NOTIFY: LISTEN needs a session of
 * its own (a second connection), which a pooler in transaction mode does not keep. Waits are
 * short after activity and grow while nothing happens, so an idle fleet does not hammer the
 * server; the jitter keeps workers that went idle together from polling together.
 */
export class PollBackoff {
  private idlePolls = 0;

  constructor(
    private readonly capMs: number,
    private readonly random: () => number = Math.random,
  ) {}

  /** Something happened: the next wait is short again. */
  reset(): void {
    this.idlePolls = 0;
  }

  /** The next wait, counting this poll as one that found nothing. */
  next(): number {
    return pollDelay(this.idlePolls++, this.capMs, this.random);
  }

  /** Sleeps for the next wait; `signal` ends it at once (rejecting with an AbortError). */
  async wait(signal?: AbortSignal): Promise<void> {
    await sleep(this.next(), undefined, { signal });
  }
}
