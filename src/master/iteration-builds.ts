import { endedChildrenCpuSeconds } from "../engine-build/build-cpu.js";

/**
 * The iterations a build-mode master is building (docs/in-flight.md, "The builds"): several at
 * once, in the background, while the master applies steps and folds reports. Each build takes
 * the lowest free build slot (its own plus and minus trees, src/engine-build/engine-builder.ts's
 * treeName), and built iterations are handed back strictly in iteration order, so the database
 * only ever holds iterations 1..latest. Also what the master measures of them: the wall seconds
 * of the last build, and the cores a build used on average.
 */
export class IterationBuilds<T> {
  private readonly entries: Entry<T>[] = [];
  private readonly stop = new AbortController();
  private readonly signal: AbortSignal;
  /** The waits for the next build to end: all resolved together when one does. */
  private waiting: { promise: Promise<void>; resolve: () => void } | undefined;
  /** Wall seconds of the last build to end. */
  lastSeconds: number | undefined;
  private wallSeconds = 0;
  private cpuAtStart: number | undefined;

  constructor(outer: AbortSignal | undefined) {
    this.signal = outer ? AbortSignal.any([outer, this.stop.signal]) : this.stop.signal;
  }

  /** The iterations being built, or built and not handed back yet, in order. */
  get iterations(): number[] {
    return this.entries.map((entry) => entry.k);
  }

  /** Builds still running. */
  get running(): number {
    return this.entries.filter((entry) => entry.outcome === undefined).length;
  }

  /**
   * Mean cores of a build so far: the CPU of the builds' processes over the sum of their wall
   * times (undefined before a build ended, or without /proc).
   */
  get coresPerBuild(): number | undefined {
    const cpu = endedChildrenCpuSeconds();
    if (cpu === undefined || this.cpuAtStart === undefined || this.wallSeconds === 0) return undefined;
    return (cpu - this.cpuAtStart) / this.wallSeconds;
  }

  /** Starts iteration k's build in the lowest free slot; `build` gets the slot and a signal that stops it. */
  start(k: number, build: (slot: number, signal: AbortSignal) => Promise<T>): void {
    // A built iteration waiting for an earlier one to open has left its trees (its binaries are in its own folder).
    const taken = new Set(this.entries.filter((entry) => entry.outcome === undefined).map((entry) => entry.slot));
    let slot = 0;
    while (taken.has(slot)) slot++;
    this.cpuAtStart ??= endedChildrenCpuSeconds();
    const started = performance.now();
    const entry: Entry<T> = { k, slot, outcome: undefined, done: Promise.resolve() };
    entry.done = build(slot, this.signal)
      .then(
        (value) => {
          const seconds = (performance.now() - started) / 1000;
          this.lastSeconds = seconds;
          this.wallSeconds += seconds;
          entry.outcome = { value, seconds };
        },
        (error: unknown) => {
          entry.outcome = { error };
        },
      )
      .finally(() => {
        const waiting = this.waiting;
        this.waiting = undefined;
        waiting?.resolve();
      });
    this.entries.push(entry);
  }

  /**
   * The next iteration in order if it is built, taken out of the set; undefined while it is
   * still building. A failed build (any of them) throws its error: the master stops.
   */
  take(): { k: number; value: T; seconds: number } | undefined {
    const failed = this.entries.find((entry) => entry.outcome !== undefined && "error" in entry.outcome);
    if (failed?.outcome && "error" in failed.outcome) throw failed.outcome.error;
    const first = this.entries[0];
    if (!first?.outcome || !("value" in first.outcome)) return undefined;
    this.entries.shift();
    return { k: first.k, ...first.outcome };
  }

  /**
   * Resolves when a build ends, or at once while take() has something to hand back (the next
   * iteration built, or a build failed). Read from the state, not from a flag a wait consumes:
   * a wait given up (the iteration's games came first) never swallows the end of a build that
   * a later wait is for.
   */
  ended(): Promise<void> {
    const failed = this.entries.some((entry) => entry.outcome !== undefined && "error" in entry.outcome);
    if (failed || this.entries[0]?.outcome !== undefined) return Promise.resolve();
    if (!this.waiting) {
      let resolve = () => {};
      const promise = new Promise<void>((r) => (resolve = r));
      this.waiting = { promise, resolve };
    }
    return this.waiting.promise;
  }

  /** Stops every build still running and waits for it: no cargo outlives the master's loop. */
  async close(): Promise<void> {
    this.stop.abort();
    await Promise.all(this.entries.map((entry) => entry.done));
  }
}

interface Entry<T> {
  k: number;
  slot: number;
  outcome: { value: T; seconds: number } | { error: unknown } | undefined;
  done: Promise<void>;
}
