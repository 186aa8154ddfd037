import { readdirSync, readFileSync, readlinkSync } from "node:fs";

/**
 * Processes (other than zombies) whose command line names something inside `dir` or whose
 * working folder is inside it: the engines, cargo, build scripts or server a command started
 * from a test's folder. Read from /proc, so a child that escaped its parent is found too.
 */
export function processesInside(dir: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ").trim();
      let cwd = "";
      try {
        cwd = readlinkSync(`/proc/${pid}/cwd`);
      } catch {
        // Another user's process, or it has just ended.
      }
      if (cmdline.includes(dir) || cwd === dir || cwd.startsWith(`${dir}/`))
        found.push(`${pid} (cwd ${cwd}): ${cmdline}`);
    } catch {
      // It ended while being read.
    }
  }
  return found;
}

/**
 * The processes still inside `dir` once those being torn down have had `graceMs` to go (a
 * killed process group ends a moment after its leader). Returns early as soon as none is left.
 */
export async function strayProcesses(dir: string, graceMs = 5000): Promise<string[]> {
  const deadline = Date.now() + graceMs;
  for (;;) {
    const left = processesInside(dir);
    if (left.length === 0 || Date.now() > deadline) return left;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A process as /proc shows it: its id, its parent's, its process group and command line. */
export interface ProcessEntry {
  pid: number;
  ppid: number;
  pgid: number;
  cmdline: string;
}

/** The processes (zombies left out) whose parent is `parent`, from /proc. */
export function childProcesses(parent: number): ProcessEntry[] {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .flatMap((pid) => {
      const entry = processEntry(Number(pid));
      return entry && entry.ppid === parent ? [entry] : [];
    });
}

/** The process, unless it has ended (or is a zombie). */
export function processEntry(pid: number): ProcessEntry | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // pid (comm) state ppid pgrp …: comm may hold spaces and parentheses, so fields count from its last ")".
    const [state, ppid, pgid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (state === "Z") return undefined;
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ").trim();
    return { pid, ppid: Number(ppid), pgid: Number(pgid), cmdline };
  } catch {
    return undefined;
  }
}

/** The processes of `pids` still alive after up to `graceMs` (a killed process takes a moment to go). */
export async function stillAlive(pids: readonly number[], graceMs = 5000): Promise<number[]> {
  const deadline = Date.now() + graceMs;
  for (;;) {
    const alive = pids.filter((pid) => processEntry(pid) !== undefined);
    if (alive.length === 0 || Date.now() > deadline) return alive;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
