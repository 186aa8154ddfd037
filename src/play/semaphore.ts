/** Limits how many tasks run at once; waiters are served in order. The limit can change while tasks run. */
export class Semaphore {
  private readonly waiting: (() => void)[] = [];
  private running = 0;

  constructor(private limit: number) {}

  /** A lower limit takes effect as running tasks finish; a higher one starts waiters at once. */
  setLimit(limit: number): void {
    this.limit = limit;
    this.startWaiters();
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running < this.limit) this.running++;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await task();
    } finally {
      this.running--;
      this.startWaiters();
    }
  }

  private startWaiters(): void {
    while (this.running < this.limit && this.waiting.length > 0) {
      this.running++;
      this.waiting.shift()!();
    }
  }
}
