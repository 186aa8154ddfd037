import { once } from "node:events";
import { EngineError } from "../core/errors.js";
import { killEngine, spawnEngine, type SpawnedEngine } from "../play/engine-spawn.js";
import { START_FEN } from "../play/position.js";
import { setoptionLine } from "../play/uci-lines.js";

/** What `evalbatch` prints per position: static evaluation, quiescence score, or both. */
export type EvalMode = "static" | "qsearch" | "both";

/** The game runner's cap (src/play/engine-process.ts): a longer line is an engine gone wrong. */
const MAX_LINE = 1 << 20;
/** Answer lines held beyond those being waited for; past this, reading stops until they are taken. */
const QUEUE_SLACK = 4096;
/** Lines of a `uci` reply read before giving up on its `uciok` (minnow prints a few hundred). */
const MAX_UCI_LINES = 100_000;
const MAX_PROBE_LINES = 64;
/** Longest wait for the next answer line: a batch is answered line by line, each in milliseconds. */
export const DEFAULT_READ_TIMEOUT_MS = 60_000;

/**
 * One engine process speaking the `evalbatch` protocol (engines/minnow/README.md, "Batch
 * evaluation"): `setoption` lines, then `evalbatch MODE`, one FEN per line and `end`; the
 * engine answers one line per FEN, in order. `info` lines (a reply to an unknown option
 * or command) are skipped so they cannot shift the answers.
 */
export class BatchEngine {
  private pending = "";
  private lines: string[] = [];
  private wanted = 0;
  private wake: (() => void) | undefined;
  private exited = false;
  /** Why the engine was stopped (a line too long), for the read that is waiting. */
  private failure: string | undefined;
  private paused = false;
  private readonly sent = new Map<string, number>();
  /** Whether the engine answers `evalbatch MODE again` (see `probeAgain`). */
  private canRescore = false;
  /** The FENs the engine holds from its last batch (by identity), for `again`. */
  private held: readonly string[] | undefined;

  private constructor(
    private readonly path: string,
    private readonly spawned: SpawnedEngine,
    private readonly readTimeoutMs: number,
  ) {
    // An engine that closed its input (or died) fails the write: the read that follows reports it.
    spawned.child.stdin?.on("error", () => {});
    spawned.output.on("close", () => {
      this.exited = true;
      this.wake?.();
    });
  }

  static async start(path: string, readTimeoutMs = DEFAULT_READ_TIMEOUT_MS): Promise<BatchEngine> {
    // Output can only arrive after this function returns to the event loop, by then the engine exists.
    const holder: { engine?: BatchEngine } = {};
    const spawned = await spawnEngine(path, [], { onText: (text) => holder.engine?.receive(text) });
    const engine = new BatchEngine(path, spawned, readTimeoutMs);
    holder.engine = engine;
    try {
      await once(spawned.child, "spawn"); // rejects with the child's 'error' (no such file, not executable)
    } catch (error) {
      throw new EngineError(`${path}: cannot start the engine: ${(error as Error).message}`);
    }
    await engine.probeAgain();
    return engine;
  }

  /**
   * `evalbatch MODE again` re-scores the engine's last batch without reading FENs (minnow
   * has it; it is optional). One FEN, then `again` and an empty line: an engine that has
   * it answers twice before `readyok`, one that reads the empty line as an empty batch
   * answers once.
   */
  private async probeAgain(): Promise<void> {
    this.write(`evalbatch static\n${START_FEN}\nend\nevalbatch static again\n\nisready\n`);
    let answers = 0;
    for (;;) {
      const [line] = await this.read(1, "the evalbatch probe", true);
      if (line === "readyok") break;
      // minnow answers twice (once without `again`); an engine without evalbatch may answer each of the
      // probe's lines ("Unknown command", as Stockfish does). More is an engine printing without end.
      if (++answers > MAX_PROBE_LINES)
        throw this.fail(
          `answered the evalbatch probe with more than ${MAX_PROBE_LINES} lines ("${line?.slice(0, 80)}")`,
        );
    }
    this.canRescore = answers === 2;
  }

  /** Whether the engine re-scores a batch it holds (the tuner's positions stay put). */
  get rescores(): boolean {
    return this.canRescore;
  }

  /** The engine's UCI options (names as printed), read from its `uci` reply. */
  async optionNames(): Promise<string[]> {
    return (await this.optionLines()).flatMap((line) => /^option name (.+?) type /.exec(line)?.[1] ?? []);
  }

  /** The `option …` lines of the engine's `uci` reply. */
  async optionLines(): Promise<string[]> {
    this.write("uci\n");
    const lines: string[] = [];
    let seen = 0;
    for (;;) {
      const [line] = await this.read(1, "uciok", true);
      if (line === "uciok") return lines;
      if (line?.startsWith("option ")) lines.push(line);
      if (++seen > MAX_UCI_LINES) throw this.fail(`printed more than ${MAX_UCI_LINES} lines without uciok`);
    }
  }

  /** Sends `setoption` for the options whose value differs from what this engine has. */
  setOptions(values: ReadonlyMap<string, number>): void {
    let text = "";
    for (const [name, value] of values) {
      if (this.sent.get(name) === value) continue;
      this.sent.set(name, value);
      text += `${setoptionLine(name, value)}\n`;
    }
    if (text !== "") this.write(text);
  }

  /** Scores of `fens` from white's view; for `both`, [static, qsearch] pairs flattened. */
  async evaluate(fens: readonly string[], mode: EvalMode): Promise<Int32Array> {
    const perLine = mode === "both" ? 2 : 1;
    const scores = new Int32Array(fens.length * perLine);
    if (fens.length === 0) return scores;
    if (this.canRescore && this.held === fens) this.write(`evalbatch ${mode} again\n`);
    else this.write(`evalbatch ${mode}\n${fens.join("\n")}\nend\n`);
    this.held = fens;
    const lines = await this.read(fens.length, "evalbatch", false);
    lines.forEach((line, i) => {
      // One score per line is the tuner's hot path: Number() refuses "1 2" and "none" alike.
      const parts = perLine === 1 ? [line] : line.split(" ");
      for (let k = 0; k < perLine; k++) {
        const value = Number(parts[k]);
        if (parts.length !== perLine || !Number.isInteger(value))
          throw new EngineError(`${this.path}: evalbatch answered "${line}" for ${fens[i]}`);
        scores[i * perLine + k] = value;
      }
    });
    return scores;
  }

  async close(): Promise<void> {
    if (this.exited) return;
    const closed = once(this.spawned.output, "close");
    this.spawned.child.stdin?.end("quit\n");
    await closed;
  }

  private write(text: string): void {
    if (this.failure !== undefined) throw new EngineError(`${this.path}: ${this.failure}`);
    if (this.exited) throw new EngineError(`${this.path}: the engine exited`);
    this.spawned.child.stdin?.write(text);
  }

  private receive(text: string): void {
    if (this.failure !== undefined) return;
    const before = this.lines.length;
    // Only the new text is searched for newlines: a long line costs its length once, not once per chunk.
    let start = 0;
    for (let end = text.indexOf("\n"); end !== -1; end = text.indexOf("\n", start)) {
      const line = (this.pending + text.slice(start, end)).trimEnd();
      this.pending = "";
      start = end + 1;
      if (line !== "" && !line.startsWith("info ")) this.lines.push(line);
    }
    this.pending += text.slice(start);
    if (this.pending.length > MAX_LINE) return this.stop(`printed a line longer than ${MAX_LINE / (1 << 20)} MiB`);
    this.flow();
    if (this.lines.length > before) this.wake?.();
  }

  /** Reading stops while the queue is full, so an engine that floods lines blocks instead of growing it. */
  private flow(): void {
    const full = this.lines.length >= this.wanted + QUEUE_SLACK;
    if (full !== this.paused) {
      this.paused = full;
      if (full) this.spawned.output.pause();
      else this.spawned.output.resume();
    }
  }

  /** Kills the engine for `reason` and returns the error to throw. */
  private fail(reason: string): EngineError {
    this.stop(reason);
    return new EngineError(`${this.path}: ${reason}`);
  }

  /** Kills the engine for `reason`; the waiting read (or the next one) throws it. */
  private stop(reason: string): void {
    this.failure = reason;
    this.pending = "";
    this.lines = [];
    this.paused = false;
    this.spawned.output.resume(); // flowing again, so that EOF is seen and close() returns
    killEngine(this.spawned.child);
    this.wake?.();
  }

  /** Waits for `count` answer lines (or, `untilLine`, one line at a time), each within the read timeout. */
  private async read(count: number, what: string, untilLine: boolean): Promise<string[]> {
    this.wanted = count;
    this.flow();
    while (this.lines.length < count) {
      if (this.failure !== undefined) throw new EngineError(`${this.path}: ${this.failure} during ${what}`);
      if (this.exited) throw new EngineError(`${this.path}: the engine exited during ${what}`);
      let timer: NodeJS.Timeout | undefined;
      const answered = await new Promise<boolean>((resolve) => {
        this.wake = () => resolve(true);
        timer = setTimeout(() => resolve(false), this.readTimeoutMs);
      });
      clearTimeout(timer);
      this.wake = undefined;
      if (!answered) this.stop(`answered nothing for ${this.readTimeoutMs / 1000} s`);
    }
    const out = untilLine ? this.lines.splice(0, 1) : this.lines.splice(0, count);
    this.wanted = 0;
    this.flow();
    return out;
  }
}
