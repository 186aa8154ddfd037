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
  private wake = signal();
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
    entry.done = build(slot, this.signal).then(
      (value) => {
        const seconds = (performance.now() - started) / 1000;
        this.lastSeconds = seconds;
        this.wallSeconds += seconds;
        entry.outcome = { value, seconds };
      },
      (error: unknown) => {
        entry.outcome = { error };
      },
    ).finally(() => this.wake.fire());
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

  /** Resolves when a build ends, at once if one ended since the last wake-up. */
  ended(): Promise<void> {
    const wake = this.wake;
    const next = () => {
      if (this.wake === wake) this.wake = signal();
    };
    if (wake.fired) {
      next();
      return Promise.resolve();
    }
    return wake.promise.then(next);
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

/** A one-shot wake-up. */
function signal(): { promise: Promise<void>; fire: () => void; fired: boolean } {
  let fire = () => {};
  const wake = {
    promise: new Promise<void>((resolve) => (fire = resolve)),
    fire: () => {
      wake.fired = true;
      fire();
    },
    fired: false,
  };
  return wake;
}
