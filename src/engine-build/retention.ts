import { readdirSync, rmdirSync, rmSync } from "node:fs";
import { join, resolve, sep } from "node:path";
import type postgres from "postgres";
import { lockHeld } from "../core/lock-file.js";
import { playablePaths, pruneBinaries, reclaimBinarySpace } from "../db/binaries.js";

/**
 * What is kept of the engines a master builds (docs/reliability.md, "Disk"): a binary's bytes,
 * in the database and in output_dir, only while something can still run it (an iteration a
 * worker can still play, an active run's reference, an active UCI-option run's engine; see
 * pruneBinaries). After that its row keeps the sha256 and size, the iterations keep their
 * signatures, and the bytes go. Every sweep starts from what the database says, so a master
 * killed midway finishes the work at its next sweep; a worker checks every binary's sha256
 * before it runs it, so nothing half-removed is ever run.
 */

/**
 * The folders of a tuning run's builds in `<output_dir>/<run>/`: an iteration's `<k>/`,
 * `reference/` (θ₀, or reference mode's), `options/` (a UCI-option run's engine).
 */
const RUN_BUILD = /^(\d+|reference|options)$/;
/** Kept while the run is active: the master builds them once and every iteration of the run may name them. */
const RUN_LONG = /^(reference|options)$/;
/** A verification's builds (`spsa verify`, the ship check): `<output_dir>/verify/<run>-<ms>/`. */
const VERIFICATION_BUILD = /-\d+$/;

/** Where a verification of `runName` builds its engines. */
export function verificationFolder(outputDir: string, runName: string, stamp: number): string {
  return join(outputDir, "verify", `${runName}-${stamp}`);
}

/**
 * The lock a verification holds on its folder from its build until its games are opened
 * (withFileLock): no sweep removes the folder meanwhile.
 */
export function buildingLock(folder: string): string {
  return `${folder}.lock`;
}

export interface SweepResult {
  folders: string[];
  binaries: number;
  bytes: number;
}

/**
 * Removes the build folders nothing can run any more, then the database's bytes of the binaries
 * nothing can run (pruneBinaries). `run`: its master sweeps its run's folder too (`over`: the run
 * is complete, so its reference and engine go as well), except the folders of the iterations it
 * is building (`building`: their binaries are not named in the database yet); a verification's
 * folder being built (its lock held) is left alone. `between` runs after the folders went, before
 * the database's bytes (a crash point for the tests).
 */
export async function sweepBuilds(
  sql: postgres.Sql,
  outputDir: string,
  run: { name: string; over: boolean; building?: readonly number[] } | undefined,
  between?: () => void,
): Promise<SweepResult> {
  const playable = (await playablePaths(sql)).map((path) => resolve(path));
  const named = (folder: string) => playable.some((path) => path.startsWith(resolve(folder) + sep));
  const folders: string[] = [];
  const remove = (folder: string) => {
    rmSync(folder, { recursive: true, force: true });
    folders.push(folder);
  };
  if (run) {
    const runFolder = join(outputDir, run.name);
    for (const name of entries(runFolder)) {
      if (!RUN_BUILD.test(name) || (RUN_LONG.test(name) && !run.over) || run.building?.includes(Number(name))) continue;
      if (!named(join(runFolder, name))) remove(join(runFolder, name));
    }
    removeIfEmpty(runFolder);
  }
  const verifications = join(outputDir, "verify");
  for (const name of entries(verifications)) {
    const folder = join(verifications, name);
    if (VERIFICATION_BUILD.test(name) && !named(folder) && !lockHeld(buildingLock(folder))) remove(folder);
    // The lock of a verification killed while it built.
    else if (name.endsWith(".lock") && VERIFICATION_BUILD.test(name.slice(0, -".lock".length)) && !lockHeld(folder))
      rmSync(folder, { force: true });
  }
  if (folders.length > 0) between?.();
  const pruned = await pruneBinaries(sql);
  // Frees the pruned bytes' pages for the next binaries at once (autovacuum would, within minutes).
  if (pruned.binaries > 0) await reclaimBinarySpace(sql);
  return { folders, ...pruned };
}

function entries(folder: string): string[] {
  try {
    return readdirSync(folder);
  } catch {
    return [];
  }
}

function removeIfEmpty(folder: string): void {
  try {
    rmdirSync(folder);
  } catch {
    // Not empty, or gone.
  }
}
