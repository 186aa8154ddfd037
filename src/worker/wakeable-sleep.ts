/** A sleep that can be cut short: the worker's wait between claims, ended early by a finished batch or a stop. */
export class WakeableSleep {
  private wakeUp: () => void = () => {};

  sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wakeUp = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  /** Ends the sleep under way, if any. */
  wake(): void {
    this.wakeUp();
  }
}
