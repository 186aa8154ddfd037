import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const hasRustc = (() => {
  try {
    execFileSync("rustc", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

/** Compiles source as a library crate with the real rustc; throws with rustc's output if it fails. */
export function compileRustLibrary(source: string): void {
  const dir = mkdtempSync(join(tmpdir(), "spsa-rustc-"));
  try {
    writeFileSync(join(dir, "lib.rs"), source);
    execFileSync("rustc", ["--edition", "2021", "--crate-type", "lib", "--out-dir", dir, join(dir, "lib.rs")], {
      stdio: "pipe",
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
