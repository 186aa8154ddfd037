import { availableParallelism } from "node:os";
import { BatchEngine, type EvalMode } from "./batch-engine.js";

/**
 * One batch engine per core, each scoring its own contiguous share of the positions, so
 * a full evaluation takes 1/cores of the time. Option values are sent before each pass
 * (only those that changed).
 */
export class BatchEnginePool {
  private constructor(
    private readonly engines: BatchEngine[],
    private readonly shares: string[][],
  ) {}

  static async start(
    path: string,
    fens: readonly string[],
    processes = availableParallelism(),
  ): Promise<BatchEnginePool> {
    const count = Math.max(1, Math.min(processes, fens.length));
    const engines: BatchEngine[] = [];
    try {
      for (let i = 0; i < count; i++) engines.push(await BatchEngine.start(path));
    } catch (error) {
      await Promise.all(engines.map((e) => e.close()));
      throw error;
    }
    const size = Math.ceil(fens.length / count);
    const shares = engines.map((_, i) => fens.slice(i * size, (i + 1) * size));
    return new BatchEnginePool(engines, shares);
  }

  get size(): number {
    return this.engines.length;
  }

  /** The first engine's option names (they are all the same binary). */
  optionNames(): Promise<string[]> {
    return this.engines[0]!.optionNames();
  }

  /** Every position's score(s) from white's view, in the order given to `start`. */
  async evaluate(options: ReadonlyMap<string, number>, mode: EvalMode): Promise<Int32Array> {
    const parts = await Promise.all(
      this.engines.map((engine, i) => {
        engine.setOptions(options);
        return engine.evaluate(this.shares[i]!, mode);
      }),
    );
    const out = new Int32Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const part of parts) {
      out.set(part, at);
      at += part.length;
    }
    return out;
  }

  async close(): Promise<void> {
    await Promise.all(this.engines.map((e) => e.close()));
  }
}
