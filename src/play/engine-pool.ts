import { createHash } from "node:crypto";
import { EngineError } from "../core/errors.js";
import { EngineProcess, type EngineSpec, type EngineTimeouts } from "./engine-process.js";

/**
 * Engines with the same name, binary, arguments and options are interchangeable (a game names its
 * players after their processes, so self-play's two names never share one).
 */
function specKey(spec: EngineSpec): string {
  return JSON.stringify([spec.name, spec.path, spec.args ?? [], optionsKey(spec.options).values]);
}

/** Engines that differ only in their options' values can be reconfigured into each other. */
function shapeKey(spec: EngineSpec): string {
  return JSON.stringify([spec.path, spec.args ?? [], optionsKey(spec.options).names]);
}

/**
 * An option set's names and its names with values, as the SHA-256 of their text, made once per
 * options object: a UCI-option batch's thousands of options are one object for all its games,
 * and every acquire and release names its spec's key (the text itself is hundreds of kilobytes).
 */
const optionKeys = new WeakMap<object, { names: string; values: string }>();
function optionsKey(options: EngineSpec["options"]): { names: string; values: string } {
  if (options === undefined) return { names: "[]", values: "[]" };
  let key = optionKeys.get(options);
  if (key === undefined) {
    // Values in the set's own order: an equal set in another order is a reconfigure that sends nothing.
    key = { names: namesKey(Object.keys(options)), values: digest(JSON.stringify(options)) };
    optionKeys.set(options, key);
  }
  return key;
}

/**
 * Sorted names' digests by the names in their own order, for the few sets of names a runner sees
 * (every batch of a run has the same).
 */
const namesKeys = new Map<string, string>();
function namesKey(names: string[]): string {
  const text = names.join("\n");
  let key = namesKeys.get(text);
  if (key === undefined) {
    key = digest(JSON.stringify(names.sort()));
    if (namesKeys.size >= 16) namesKeys.clear();
    namesKeys.set(text, key);
  }
  return key;
}

function digest(text: string): string {
  return createHash("sha256").update(text).digest("base64");
}

/**
 * Idle engine processes by spec, reused across games and batches: a process is started
 * only when no idle one fits, and one that crashed or was killed is dropped on release,
 * so the next game starts a fresh one.
 */
export class EnginePool {
  private readonly idle = new Map<string, EngineProcess[]>();
  private readonly busy = new Set<EngineProcess>();
  /** After close no engine is started or kept: games still queued fail at once instead of outliving the runner. */
  private closed = false;

  constructor(private readonly timeouts: EngineTimeouts) {}

  /** An engine ready for a new game (`ucinewgame` answered); throws EngineError if it cannot be had. */
  async acquire(spec: EngineSpec): Promise<EngineProcess> {
    if (this.closed) throw new EngineError("the game runner was closed");
    const idle = this.idle.get(specKey(spec));
    let engine = idle?.pop();
    const reused = engine ?? this.takeSameShape(spec);
    if (reused) {
      engine = reused;
      try {
        this.busy.add(engine);
        if (engine.spec !== spec && specKey(engine.spec) !== specKey(spec)) await engine.reconfigure(spec);
        await engine.newGame();
        return engine;
      } catch {
        this.busy.delete(engine);
        engine.kill(); // unresponsive between games: replace it
      }
    }
    engine = await EngineProcess.start(spec, this.timeouts);
    this.busy.add(engine);
    try {
      if (this.closed) throw new EngineError("the game runner was closed while the engine started");
      await engine.newGame();
    } catch (error) {
      this.busy.delete(engine);
      engine.kill();
      throw error;
    }
    return engine;
  }

  /**
   * An idle process of the same binary with other values of the same options (UCI-option
   * tuning gives every batch its own values): reused with `setoption` instead of a restart.
   */
  private takeSameShape(spec: EngineSpec): EngineProcess | undefined {
    const shape = shapeKey(spec);
    if (Object.keys(spec.options ?? {}).length === 0) return undefined;
    for (const [key, list] of this.idle) {
      const engine = list[0];
      if (!engine || shapeKey(engine.spec) !== shape) continue;
      list.shift();
      if (list.length === 0) this.idle.delete(key);
      return engine;
    }
    return undefined;
  }

  release(engine: EngineProcess): void {
    this.busy.delete(engine);
    // A killed engine is alive until its exit is seen: after close it is never kept, alive or not.
    if (this.closed) return engine.kill();
    if (!engine.alive) return;
    const key = specKey(engine.spec);
    const list = this.idle.get(key) ?? [];
    list.push(engine);
    this.idle.set(key, list);
  }

  /** Quits idle engines whose binary is not in `keepPaths` (an SPSA iteration is over). */
  async retire(keepPaths: readonly string[]): Promise<void> {
    const quitting: Promise<void>[] = [];
    for (const [key, list] of this.idle) {
      const kept = list.filter((engine) => keepPaths.includes(engine.spec.path));
      for (const engine of list) if (!kept.includes(engine)) quitting.push(engine.quit());
      if (kept.length === 0) this.idle.delete(key);
      else this.idle.set(key, kept);
    }
    await Promise.all(quitting);
  }

  /** Quits every idle engine and kills busy ones (their games are abandoned). */
  async close(): Promise<void> {
    this.closed = true;
    for (const engine of this.busy) engine.kill();
    await this.retire([]);
  }

  /** Engine processes alive now, idle or busy. */
  get size(): number {
    let idle = 0;
    for (const list of this.idle.values()) idle += list.length;
    return idle + this.busy.size;
  }
}
