import { spawn, type ChildProcess } from "node:child_process";
import { closeSync, constants, openSync, rmSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { Socket, type OnReadOpts, type SocketConstructorOpts } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { execa } from "execa";
import { findProgram, isExecutable } from "../core/find-file.js";

export interface SpawnedEngine {
  /** stdin is a pipe; stdout goes to `output`; stderr is ignored. */
  child: ChildProcess;
  /** The engine's stdout. `pause()` really stops reading (see `spawnEngine`); emits `close` at EOF. */
  output: Socket;
}

/** Receives the engine's output: each chunk as latin1 (UCI is ASCII), with the monotonic time it was read. */
export interface OutputSink {
  onText(text: string, readAt: number): void;
}

/** One read buffer for every engine: each chunk is decoded before its callback returns. */
const readBuffer = Buffer.allocUnsafe(64 * 1024);

/**
 * Variables an engine never gets: the database's (libpq's PG*, DATABASE_URL), this tool's, and
 * anything named like a secret.
 */
const WITHHELD = /^(DATABASE_URL$|PG|SPSA_)|TOKEN|PASSW|SECRET|CREDENTIAL/i;

/**
 * The environment an engine runs with: ours without what could reach the database or another secret
 * (an engine is someone else's code).
 */
export function engineEnvironment(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).filter(
      (entry): entry is [string, string] => entry[1] !== undefined && !WITHHELD.test(entry[0]),
    ),
  );
}

/**
 * Where util-linux's `setpriv` is (Essential on Debian, in util-linux everywhere on Linux), if
 * it takes `--pdeathsig` (util-linux 2.33 and later): checked once, by running it.
 */
let deathSignalTool: Promise<string | undefined> | undefined;

function setprivWithDeathSignal(): Promise<string | undefined> {
  deathSignalTool ??= (async () => {
    if (process.platform !== "linux") return undefined;
    for (const tool of ["/usr/bin/setpriv", "/bin/setpriv"]) {
      const probe = await execa(tool, ["--pdeathsig", "KILL", "--", "true"], {
        reject: false,
        stdio: "ignore",
        timeout: 10_000,
      });
      if (probe.exitCode === 0) return tool;
    }
    return undefined;
  })();
  return deathSignalTool;
}

/** Engines alive now: killed with their process group when this process exits (see spawnEngine). */
const running = new Set<ChildProcess>();
let killedOnExit = false;

function track(child: ChildProcess): void {
  if (!killedOnExit) process.on("exit", killRunningEngines);
  killedOnExit = true;
  running.add(child);
  const forget = () => running.delete(child);
  child.once("exit", forget);
  child.once("error", forget);
}

function killRunningEngines(): void {
  for (const child of running) killEngine(child);
}

/**
 * Kills an engine and whatever it started: it leads a process group of its own (spawnEngine).
 * Nothing once its exit is seen (its pid may then be another process's).
 */
export function killEngine(child: ChildProcess): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {
    child.kill("SIGKILL");
  }
}

/**
 * Spawns an engine with its stdout on a FIFO that is read through a socket with `onread`.
 * A child's own stdout stream would do, but it cannot stop reading (pausing it only stops
 * the 'data' events; the pipe is still read on every write, which is the costly part), and
 * it allocates a Buffer and runs the stream machinery per chunk. Node has no `pipe()`, so
 * the pipe is a FIFO made by `mkfifo` and unlinked once both ends are open.
 * Everything after `mkfifo` is synchronous, so the caller, resuming from `await`, can add
 * its listeners before any event of the child is emitted.
 *
 * The engine leads a process group of its own (`detached`: setsid), so a terminal's Ctrl-C,
 * which goes to its foreground group, reaches this process and not the engines: a stop ends
 * the games itself and never sees an engine it did not kill die (docs/reliability.md). It must
 * not outlive this process either: on Linux it is started through `setpriv --pdeathsig KILL`,
 * so the kernel kills it when this process dies, even by kill -9 (the death signal is kept
 * across `exec`, and it follows the thread that spawned, Node's main thread, which lives as
 * long as the process). Without setpriv, the engines still running are killed with their
 * groups when this process exits, and after a kill -9 an engine reads EOF and its writes fail
 * (UCI engines quit on EOF). A program that cannot be found or run is spawned directly, so
 * Node's own error (ENOENT, EACCES) says why.
 */
export async function spawnEngine(path: string, args: readonly string[], sink: OutputSink): Promise<SpawnedEngine> {
  const env = engineEnvironment(process.env);
  const tool = await setprivWithDeathSignal();
  const file = findProgram(path, env.PATH);
  const [command, argv] =
    tool && file && isExecutable(file) ? [tool, ["--pdeathsig", "KILL", "--", file, ...args]] : [path, [...args]];
  const dir = await mkdtemp(join(tmpdir(), "uci-"));
  try {
    const fifo = join(dir, "stdout");
    await execa("mkfifo", ["-m", "600", fifo]);
    // The read end first, non-blocking, so that opening the write end does not wait for a reader.
    const readFd = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    let child: ChildProcess;
    try {
      const writeFd = openSync(fifo, constants.O_WRONLY);
      try {
        child = spawn(command, argv, { stdio: ["pipe", writeFd, "ignore"], env, detached: true });
      } finally {
        closeSync(writeFd); // the child has its own copy: EOF comes when it exits
      }
    } catch (error) {
      closeSync(readFd);
      throw error;
    }
    track(child);
    // `onread` is a constructor option since Node 12 (documented there since Node 22); @types/node
    // 20 lists it only for connect().
    const options: SocketConstructorOpts & { onread: OnReadOpts } = {
      fd: readFd,
      readable: true,
      writable: false,
      onread: {
        buffer: readBuffer,
        callback: (bytes) => {
          sink.onText(readBuffer.toString("latin1", 0, bytes), performance.now());
          return true;
        },
      },
    };
    const output = new Socket(options);
    output.on("error", () => {}); // a read error ends like EOF: `close` follows
    output.resume(); // flowing, so that EOF is seen and `close` emitted
    return { child, output };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
