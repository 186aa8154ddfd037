import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";

/** Folders never copied into a build tree: each tree has its own target folder. */
const SKIPPED = new Set(["target", ".git"]);

/**
 * Makes `dest` a copy of the engine crate at `source`, writing only files whose content
 * differs so that cargo's fingerprints of unchanged files stay valid and rebuilds stay
 * incremental. Files gone from the source are removed from the copy.
 */
export function syncTree(source: string, dest: string): void {
  mkdirSync(dest, { recursive: true });
  const wanted = new Set<string>();
  for (const entry of readdirSync(source, { withFileTypes: true })) {
    if (SKIPPED.has(entry.name)) continue;
    wanted.add(entry.name);
    const from = join(source, entry.name);
    const to = join(dest, entry.name);
    if (entry.isDirectory()) {
      syncTree(from, to);
    } else if (entry.isFile() && !sameContent(from, to)) {
      copyFileSync(from, to);
    }
  }
  for (const name of readdirSync(dest)) {
    if (!SKIPPED.has(name) && !wanted.has(name)) rmSync(join(dest, name), { recursive: true, force: true });
  }
}

function sameContent(a: string, b: string): boolean {
  if (!existsSync(b) || statSync(a).size !== statSync(b).size) return false;
  return readFileSync(a).equals(readFileSync(b));
}
