import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { InputError } from "../core/errors.js";
import { parseRustItems } from "./parser.js";
import type { TypeAlias } from "./rust-types.js";

/**
 * Every module-level `type NAME = …;` in the crate's source folder (`src/`, recursively),
 * so a constant declared as `Score` in the constants file can be followed to `i32` in
 * `types.rs`. A file this parser cannot read is skipped: only the constants file must be
 * readable, the others are only searched, and an alias left unfound is reported on its own.
 */
export function readCrateAliases(srcDir: string): TypeAlias[] {
  return rustFiles(srcDir).flatMap((file) => {
    try {
      return parseRustItems(readFileSync(file, "utf8"), file).aliases;
    } catch (error) {
      if (error instanceof InputError) return [];
      throw error;
    }
  });
}

function rustFiles(dir: string): string[] {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return rustFiles(path);
      return entry.isFile() && entry.name.endsWith(".rs") ? [path] : [];
    });
}
