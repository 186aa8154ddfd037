import { renameSync, writeFileSync } from "node:fs";

/** Writes a state file via a temp file and a rename, so a crash never leaves it half-written. */
export function writeFileAtomic(path: string, content: string): void {
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, content);
  renameSync(temp, path);
}
