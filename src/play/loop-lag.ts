import { loadavg, availableParallelism } from "node:os";
import { performance } from "node:perf_hooks";

/**
 * How late the runner's own event loop runs, sampled by a timer: when the runner itself is
 * held up, a move it measures as too slow may not have been. The period is coarse because
 * every wakeup costs CPU (src/play/README.md, performance notes), and the timer runs only
 * while a timed search is in flight: at a node or depth limit no move can be too slow, and
 * the loop need not wake at all.
 */
export class LoopLag {
  private readonly late: { at: number; lateMs: number }[] = [];
  private timer: NodeJS.Timeout | undefined;
  private expected = 0;
  private timedSearches = 0;

  constructor(
    private readonly periodMs = 50,
    private readonly keepMs = 30_000,
  ) {}

  /** A timed search starts: sample until it ends (call the returned function then). */
  hold(): () => void {
    this.timedSearches++;
    this.start();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.timedSearches--;
    };
  }

  private start(): void {
    if (this.timer) return;
    this.expected = performance.now() + this.periodMs;
    this.timer = setInterval(() => this.sample(), this.periodMs);
    this.timer.unref();
  }

  /** Stops sampling now (the runner closes). */
  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Whether the timer is running (a timed search is in flight, or ended less than a period ago). */
  get sampling(): boolean {
    return this.timer !== undefined;
  }

  /** The longest lateness seen since `since` (performance.now() time). */
  lateMsSince(since: number): number {
    let worst = 0;
    for (let i = this.late.length - 1; i >= 0 && this.late[i]!.at >= since; i--)
      worst = Math.max(worst, this.late[i]!.lateMs);
    return worst;
  }

  private sample(): void {
    const now = performance.now();
    const lateMs = now - this.expected;
    this.expected = now + this.periodMs;
    // Only real lateness is kept, so the list stays short on an idle machine.
    if (lateMs >= 1) this.late.push({ at: now, lateMs });
    while (this.late.length > 0 && this.late[0]!.at < now - this.keepMs) this.late.shift();
    // Stopped one period after the last timed search, not at once: between the plies of a
    // game at a clock the timer keeps running, so a search shorter than the period is sampled.
    if (this.timedSearches === 0) this.stop();
  }
}

/** More runnable processes than cores over the last minute. */
export function machineOverloaded(): boolean {
  return loadavg()[0]! > availableParallelism();
}
