import type { ChildProcess } from "node:child_process";
import type { Socket } from "node:net";
import { performance } from "node:perf_hooks";
import { EngineError } from "../core/errors.js";
import { killEngine, spawnEngine, type OutputSink, type SpawnedEngine } from "./engine-spawn.js";
import { MIN_QUIET_MS, QuietReads, SLICE_BYTES, type QuietPlan } from "./quiet-reads.js";
import { isScoredInfo, parseInfo, type SearchInfo } from "./uci-info.js";
import { setoptionLine } from "./uci-lines.js";

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
  /**
   * `stopped`: the answer came only after the stall timeout sent `stop`. `answerWasWaiting`:
   * it was already in the pipe when reading resumed after a quiet spell, so the engine
   * answered before `elapsedMs` (which is then an upper bound).
   */
  | {
      kind: "bestmove";
      move: string | undefined;
      elapsedMs: number;
      info: SearchInfo;
      stopped: boolean;
      answerWasWaiting: boolean;
    }
  | { kind: "crash"; elapsedMs: number }
  /** No `bestmove` after the stall timeout, nor within the grace period after `stop`. */
  | { kind: "hang"; elapsedMs: number };

export interface GoTiming {
  /** After this long without `bestmove` the engine gets `stop`. */
  stallMs: number;
  /** After `stop`, how long to wait for `bestmove` before the search counts as hung. */
  graceMs: number;
  /** For `go movetime`: the output may then go unread until shortly before the answer is due (see quiet-reads.ts). */
  movetimeMs?: number;
}

interface Search {
  started: number;
  stopped: boolean;
  lastInfo: string | undefined;
  /** Output bytes read since `go`. */
  bytes: number;
  /** Reading has just resumed after a quiet slice: what arrives now was waiting in the pipe. */
  draining: boolean;
  timers: { stall?: NodeJS.Timeout; quiet?: NodeJS.Timeout };
  resolve: (outcome: SearchOutcome) => void;
}

interface Waiter {
  done: (line: string) => boolean;
  resolve: () => void;
  reject: (error: Error) => void;
}

/** The move of a `bestmove` line (one regex instead of a trim and a split per ply). */
const BESTMOVE = /^\S+\s+(\S+)/;
/** A line longer than this without a newline is garbage; dropping it bounds memory. */
const MAX_PARTIAL_LINE = 1 << 20;
/** After the engine exits, how long its output may stay open (a child of the engine holding it) before it is closed. */
const OUTPUT_LINGER_MS = 1000;

/**
 * One UCI engine process. Output is split into lines incrementally; while searching, only
 * `bestmove` and the last scored `info` line are kept, and the clock stops at the time the
 * chunk holding `bestmove` was read (monotonic), before any parsing.
 */
export class EngineProcess {
  private child!: ChildProcess;
  private output!: Socket;
  private closed!: Promise<void>;
  private partial = "";
  private chunks = 0;
  private search: Search | undefined;
  private waiter: Waiter | undefined;
  private exited = false;
  private quiet = false;
  private readonly quietReads = new QuietReads();

  private constructor(
    private currentSpec: EngineSpec,
    private readonly timeouts: EngineTimeouts,
  ) {}

  /** Spawns the engine and runs `uci`, `setoption`s and `isready`; throws EngineError on failure. */
  static async start(spec: EngineSpec, timeouts: EngineTimeouts = DEFAULT_ENGINE_TIMEOUTS): Promise<EngineProcess> {
    const engine = new EngineProcess(spec, timeouts);
    const sink: OutputSink = { onText: (text, readAt) => engine.onText(text, readAt) };
    try {
      engine.attach(await spawnEngine(spec.path, spec.args ?? [], sink));
    } catch (error) {
      throw new EngineError(`${spec.name}: ${(error as Error).message}`, { cause: error });
    }
    try {
      await engine.request("uci", (line) => line.trim() === "uciok", timeouts.uciMs, "uciok");
      const options = Object.entries(spec.options ?? {}).map(([name, value]) => setoptionLine(name, value));
      await engine.request(
        [...options, "isready"].join("\n"),
        (line) => line.trim() === "readyok",
        timeouts.readyMs,
        "readyok",
      );
    } catch (error) {
      engine.kill();
      throw error;
    }
    return engine;
  }

  /** Runs synchronously after `spawnEngine` resolves, so no event of the child is missed. */
  private attach({ child, output }: SpawnedEngine): void {
    this.child = child;
    this.output = output;
    child.stdin?.on("error", () => {}); // EPIPE after a crash: the exit handler reports it
    const gone = new Promise<string>((resolve) => {
      child.once("exit", () => resolve("the engine exited"));
      child.once("error", (error) => resolve(error.message)); // e.g. spawn ENOENT: the message says why
    });
    const eof = new Promise<void>((resolve) => output.once("close", () => resolve()));
    this.closed = gone.then(async (why) => {
      // Read what the engine wrote before it went (a quiet spell may have paused reading).
      this.setQuiet(false);
      const linger = setTimeout(() => output.destroy(), OUTPUT_LINGER_MS);
      await eof;
      clearTimeout(linger);
      if (!this.exited) this.onExit(why);
    });
  }

  get alive(): boolean {
    return !this.exited;
  }

  /** Chunks read from the engine so far: each one is a wakeup of the runner. */
  get reads(): number {
    return this.chunks;
  }

  get spec(): EngineSpec {
    return this.currentSpec;
  }

  /**
   * Between games: sets the options of `spec` (same binary and arguments) whose value differs
   * from what this process was given, and waits for `readyok`, so a process serves another
   * option set without a restart; a UCI-option batch of thousands of options sends only what
   * its draw changed. The caller makes sure `spec` sets every option the old one did, so
   * nothing of the old set lingers.
   */
  async reconfigure(spec: EngineSpec): Promise<void> {
    const before = this.currentSpec.options ?? {};
    const after = spec.options ?? {};
    const lines: string[] = [];
    for (const name in after) if (before[name] !== after[name]) lines.push(setoptionLine(name, after[name]!));
    // Nothing changed (an equal set under another key): no round trip.
    if (lines.length > 0)
      await this.request(
        [...lines, "isready"].join("\n"),
        (line) => line.trim() === "readyok",
        this.timeouts.readyMs,
        "readyok",
      );
    this.currentSpec = spec;
  }

  /** `ucinewgame` then `isready`; throws EngineError if the engine does not answer. */
  async newGame(): Promise<void> {
    await this.request("ucinewgame\nisready", (line) => line.trim() === "readyok", this.timeouts.readyMs, "readyok");
  }

  /**
   * Sends `position` and `go`, then waits for `bestmove`. After `stallMs` without it the
   * engine gets `stop`, and after `graceMs` more the search counts as hung.
   */
  go(position: string, go: string, timing: GoTiming): Promise<SearchOutcome> {
    return new Promise((resolve) => {
      if (this.exited) return resolve({ kind: "crash", elapsedMs: 0 });
      const search: Search = {
        started: 0,
        stopped: false,
        lastInfo: undefined,
        bytes: 0,
        draining: false,
        timers: {},
        resolve: (outcome) => {
          clearTimeout(search.timers.stall);
          clearTimeout(search.timers.quiet);
          this.setQuiet(false);
          this.search = undefined;
          const { movetimeMs } = timing;
          if (outcome.kind === "bestmove" && movetimeMs !== undefined) {
            const { elapsedMs, answerWasWaiting } = outcome;
            this.quietReads.observe({ movetimeMs, elapsedMs, bytes: search.bytes, answerWasWaiting });
          }
          resolve(outcome);
        },
      };
      this.search = search;
      search.timers.stall = setTimeout(() => {
        search.stopped = true;
        this.write("stop");
        search.timers.stall = setTimeout(
          () => search.resolve({ kind: "hang", elapsedMs: performance.now() - search.started }),
          timing.graceMs,
        );
      }, timing.stallMs);
      search.started = performance.now();
      this.write(`${position}\n${go}`);
      const plan = timing.movetimeMs === undefined ? undefined : this.quietReads.plan(timing.movetimeMs);
      if (plan) this.readQuietly(search, plan);
    });
  }

  /**
   * Stops reading until `plan.untilMs` after `go`, draining the pipe every `plan.sliceMs`;
   * a slice that brought more output than planned ends the quiet spell.
   */
  private readQuietly(search: Search, plan: QuietPlan): void {
    const until = search.started + plan.untilMs;
    const sleep = () => {
      const left = until - performance.now();
      if (left < MIN_QUIET_MS) return;
      this.setQuiet(true);
      search.timers.quiet = setTimeout(wake, Math.min(left, plan.sliceMs));
    };
    const wake = () => {
      const before = search.bytes;
      this.setQuiet(false);
      search.draining = true;
      // Output already in the pipe is read in this turn of the event loop, before the check phase.
      setImmediate(() => {
        search.draining = false;
        if (this.search === search && search.bytes - before < SLICE_BYTES) sleep();
      });
    };
    sleep();
  }

  private setQuiet(quiet: boolean): void {
    if (quiet === this.quiet) return;
    this.quiet = quiet;
    if (quiet) this.output.pause();
    else this.output.resume();
  }

  /** `quit`, then a kill if the engine has not exited within the quit timeout. */
  async quit(): Promise<void> {
    if (this.exited) return;
    this.write("quit");
    const timer = setTimeout(() => this.kill(), this.timeouts.quitMs);
    await this.closed;
    clearTimeout(timer);
  }

  /** Kills the engine and anything it started (its process group). */
  kill(): void {
    if (!this.exited) killEngine(this.child);
  }

  private write(text: string): void {
    const stdin = this.child.stdin;
    if (!this.exited && stdin?.writable) stdin.write(`${text}\n`);
  }

  /** Writes a command and resolves when `done` accepts a line; rejects on timeout or exit. */
  private request(
    command: string,
    done: (line: string) => boolean,
    timeoutMs: number,
    expected: string,
  ): Promise<void> {
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

  private onText(chunk: string, now: number): void {
    let text = chunk;
    this.chunks++;
    if (this.search) this.search.bytes += chunk.length;
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
        search.resolve({
          kind: "bestmove",
          move: BESTMOVE.exec(line)?.[1],
          elapsedMs: now - search.started,
          info,
          stopped: search.stopped,
          answerWasWaiting: search.draining,
        });
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
