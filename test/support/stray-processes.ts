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
      if (cmdline.includes(dir) || cwd === dir || cwd.startsWith(`${dir}/`)) found.push(`${pid} (cwd ${cwd}): ${cmdline}`);
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
