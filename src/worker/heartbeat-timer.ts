import { heartbeatInterval } from "../core/holder.js";

/**
 * When a worker beats: a third of the shortest lease it claimed. Leases are the master's (each
 * iteration's settings), so a batch with a shorter lease than any before makes it beat faster.
 */
export class HeartbeatTimer {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private intervalMs: number,
    private readonly beat: () => void,
  ) {}

  start(): void {
    this.timer = setInterval(this.beat, this.intervalMs);
  }

  /** Beats often enough for a claimed batch's lease. */
  fitLease(leaseSeconds: number): void {
    const ms = heartbeatInterval(leaseSeconds);
    if (ms >= this.intervalMs) return;
    this.intervalMs = ms;
    clearInterval(this.timer);
    this.start();
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
