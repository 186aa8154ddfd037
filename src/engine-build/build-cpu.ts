import { readFileSync } from "node:fs";

/** /proc's clock ticks per second (USER_HZ), 100 on every Linux architecture Node runs on. */
const TICKS_PER_SECOND = 100;

/**
 * CPU seconds (user and system) of this process's children that ended and were waited for:
 * cargo, and through it every rustc and linker it waited for. What the master's builds cost,
 * read from /proc/self/stat (its cutime and cstime); undefined where there is no /proc.
 */
export function endedChildrenCpuSeconds(): number | undefined {
  let text: string;
  try {
    text = readFileSync("/proc/self/stat", "utf8");
  } catch {
    return undefined;
  }
  // The fields after the command name, which may hold spaces and parentheses: state is the 3rd
  // field of the line, cutime and cstime the 16th and 17th.
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  const ticks = Number(fields[13]) + Number(fields[14]);
  return Number.isFinite(ticks) ? ticks / TICKS_PER_SECOND : undefined;
}
