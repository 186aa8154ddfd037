import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { performance } from "node:perf_hooks";
import { EngineError } from "../errors.js";
import { isScoredInfo, parseInfo, type SearchInfo } from "./uci-info.js";

/** An engine to run: a binary, its arguments, and UCI options sent with `setoption`. */
export interface EngineSpec {
  /** Shown in results, PGN and the summary. */
  name: string;
  path: string;
  args?: readonly string[];
  options?: Readonly<Record<string, string | number | boolean>>;
}

export interface EngineTimeouts {
  /** For `uciok` after `uci`. */
  uciMs: number;
  /** For `readyok` after `isready`. */
  readyMs: number;
  /** For the process to exit after `quit`, before it is killed. */
  quitMs: number;
}

export const DEFAULT_ENGINE_TIMEOUTS: EngineTimeouts = { uciMs: 10_000, readyMs: 10_000, quitMs: 1_000 };

export type SearchOutcome =
  /** `stopped`: the answer came only after the stall timeout sent `stop`. */
  | { kind: "bestmove"; move: string | undefined; elapsedMs: number; info: SearchInfo; stopped: boolean }
  | { kind: "crash"; elapsedMs: number }
  /** No `bestmove` after the stall timeout, nor within the grace period after `stop`. */
  | { kind: "hang"; elapsedMs: number };

interface Search {
  started: number;
  stopped: boolean;
  lastInfo: string | undefined;
  resolve: (outcome: SearchOutcome) => void;
}

interface Waiter {
  done: (line: string) => boolean;
  resolve: () => void;
  reject: (error: Error) => void;
}

/** A line longer than this without a newline is garbage; dropping it bounds memory. */
const MAX_PARTIAL_LINE = 1 << 20;

/**
 * One UCI engine process. Output is split into lines incrementally; while searching, only
 * `bestmove` and the last scored `info` line are kept, and the clock stops at the time the
 * chunk holding `bestmove` arrived (monotonic), before any parsing.
 */
export class EngineProcess {
  private readonly child: ChildProcessWithoutNullStreams;
  private partial = "";
  private search: Search | undefined;
  private waiter: Waiter | undefined;
  private exited = false;
  private readonly closed: Promise<void>;

  private constructor(
    readonly spec: EngineSpec,
    private readonly timeouts: EngineTimeouts,
  ) {
    this.child = spawn(spec.path, spec.args ?? [], { stdio: ["pipe", "pipe", "ignore"] }) as unknown as ChildProcessWithoutNullStreams;
    // latin1 skips the UTF-8 decoder: UCI is ASCII, and a stray byte can only garble text we ignore.
    this.child.stdout.on("data", (chunk: Buffer) => this.onData(chunk.toString("latin1"), performance.now()));
    this.child.stdin.on("error", () => {}); // EPIPE after a crash: the close handler reports it
    this.closed = new Promise((resolve) => {
      const onGone = (error?: unknown) => {
        if (!this.exited) this.onExit(error instanceof Error ? error.message : "the engine exited");
        resolve();
      };
      this.child.once("close", () => onGone());
      this.child.once("error", onGone); // e.g. spawn ENOENT: the message says why
    });
  }

  /** Spawns the engine and runs `uci`, `setoption`s and `isready`; throws EngineError on failure. */
  static async start(spec: EngineSpec, timeouts: EngineTimeouts = DEFAULT_ENGINE_TIMEOUTS): Promise<EngineProcess> {
    const engine = new EngineProcess(spec, timeouts);
    try {
      await engine.request("uci", (line) => line.trim() === "uciok", timeouts.uciMs, "uciok");
      const options = Object.entries(spec.options ?? {}).map(([name, value]) => `setoption name ${name} value ${value}`);
      await engine.request([...options, "isready"].join("\n"), (line) => line.trim() === "readyok", timeouts.readyMs, "readyok");
    } catch (error) {
      engine.kill();
      throw error;
    }
    return engine;
  }

  get alive(): boolean {
    return !this.exited;
  }

  /** `ucinewgame` then `isready`; throws EngineError if the engine does not answer. */
  async newGame(): Promise<void> {
    await this.request("ucinewgame\nisready", (line) => line.trim() === "readyok", this.timeouts.readyMs, "readyok");
  }

  /**
   * Sends `position` and `go`, then waits for `bestmove`. After `stallMs` without it the
   * engine gets `stop`, and after `graceMs` more the search counts as hung.
   */
  go(position: string, go: string, stallMs: number, graceMs: number): Promise<SearchOutcome> {
    return new Promise((resolve) => {
      if (this.exited) return resolve({ kind: "crash", elapsedMs: 0 });
      let timer: NodeJS.Timeout | undefined;
      const search: Search = {
        started: 0,
        stopped: false,
        lastInfo: undefined,
        resolve: (outcome) => {
          clearTimeout(timer);
          this.search = undefined;
          resolve(outcome);
        },
      };
      this.search = search;
      timer = setTimeout(() => {
        search.stopped = true;
        this.write("stop");
        timer = setTimeout(() => search.resolve({ kind: "hang", elapsedMs: performance.now() - search.started }), graceMs);
      }, stallMs);
      search.started = performance.now();
      this.write(`${position}\n${go}`);
    });
  }

  /** `quit`, then a kill if the engine has not exited within the quit timeout. */
  async quit(): Promise<void> {
    if (this.exited) return;
    this.write("quit");
    const timer = setTimeout(() => this.kill(), this.timeouts.quitMs);
    await this.closed;
    clearTimeout(timer);
  }

  kill(): void {
    if (!this.exited) this.child.kill("SIGKILL");
  }

  private write(text: string): void {
    if (!this.exited && this.child.stdin.writable) this.child.stdin.write(`${text}\n`);
  }

  /** Writes a command and resolves when `done` accepts a line; rejects on timeout or exit. */
  private request(command: string, done: (line: string) => boolean, timeoutMs: number, expected: string): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (this.exited) return reject(new EngineError(`${this.spec.name}: the engine is not running`));
      const timer = setTimeout(() => {
        this.waiter = undefined;
        reject(new EngineError(`${this.spec.name}: no ${expected} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiter = {
        done,
        resolve: () => {
          clearTimeout(timer);
          this.waiter = undefined;
          resolve();
        },
        reject: (error) => {
          clearTimeout(timer);
          this.waiter = undefined;
          reject(error);
        },
      };
      this.write(command);
    });
  }

  private onData(chunk: string, now: number): void {
    let text = chunk;
    if (this.partial !== "") {
      text = this.partial + chunk;
      this.partial = "";
    }
    let start = 0;
    for (let end = text.indexOf("\n"); end !== -1; end = text.indexOf("\n", start)) {
      const line = text.charCodeAt(end - 1) === 13 ? text.slice(start, end - 1) : text.slice(start, end);
      start = end + 1;
      this.onLine(line, now);
    }
    if (start < text.length && text.length - start <= MAX_PARTIAL_LINE) this.partial = text.slice(start);
  }

  private onLine(line: string, now: number): void {
    const search = this.search;
    if (search) {
      if (line.startsWith("bestmove")) {
        const info = search.lastInfo === undefined ? {} : parseInfo(search.lastInfo);
        search.resolve({ kind: "bestmove", move: line.trim().split(/\s+/)[1], elapsedMs: now - search.started, info, stopped: search.stopped });
      } else if (isScoredInfo(line)) {
        search.lastInfo = line;
      }
    } else if (this.waiter?.done(line)) {
      this.waiter.resolve();
    }
  }

  private onExit(why: string): void {
    this.exited = true;
    this.search?.resolve({ kind: "crash", elapsedMs: performance.now() - this.search.started });
    this.waiter?.reject(new EngineError(`${this.spec.name}: ${why}`));
  }
}
