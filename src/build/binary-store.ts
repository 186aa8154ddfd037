import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type postgres from "postgres";
import { insertBinary, storedBinary } from "../db/binaries.js";
import { SpsaError } from "../errors.js";
import { copyFileAtomic, writeFileAtomic } from "../fs/write-atomic.js";

export function sha256(content: Buffer): string {
  return createHash("sha256").update(content).digest("hex");
}

export function sha256OfFile(path: string): string {
  return sha256(readFileSync(path));
}

/**
 * Puts a binary at `dest` atomically, so a worker never sees a half-written binary, and a
 * binary in use is never overwritten ("Text file busy").
 */
export function placeAtomically(source: string, dest: string): void {
  mkdirSync(dirname(dest), { recursive: true });
  copyFileAtomic(source, dest, { mode: 0o755 });
}

/** Stores a binary in the database by sha256, so a remote worker needs only the database URL. */
export async function storeBinary(sql: postgres.Sql, path: string): Promise<string> {
  const content = readFileSync(path);
  const hash = sha256(content);
  await insertBinary(sql, hash, content);
  return hash;
}

/**
 * A local, verified copy of the binary with this hash: the master's path if this machine
 * has it (a shared folder works too), else a cached copy fetched from the database.
 */
export async function obtainBinary(sql: postgres.Sql, hash: string, preferredPath: string, cacheDir: string): Promise<string> {
  if (existsSync(preferredPath) && sha256OfFile(preferredPath) === hash) return preferredPath;
  const cached = join(cacheDir, hash, "engine");
  if (existsSync(cached) && sha256OfFile(cached) === hash) return cached;
  const row = await storedBinary(sql, hash);
  if (!row) throw new SpsaError(`engine binary ${hash.slice(0, 12)} is neither at ${preferredPath} nor in the database`);
  if (sha256(row.content) !== hash) throw new SpsaError(`engine binary ${hash.slice(0, 12)} in the database is corrupt`);
  mkdirSync(dirname(cached), { recursive: true });
  writeFileAtomic(cached, row.content, { mode: 0o755 });
  return cached;
}
