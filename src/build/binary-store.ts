import { createHash, type KeyObject } from "node:crypto";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type postgres from "postgres";
import { insertBinary, storedBinary } from "../db/binaries.js";
import { SpsaError } from "../errors.js";
import { copyFileAtomic, writeFileAtomic } from "../fs/write-atomic.js";
import { verifyBinary, type BinarySubject } from "../signing/binary-signature.js";

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

/** A binary an iteration names: what the master signed, its signature, and where the master put it. */
export interface SignedBinary extends BinarySubject {
  signature: string | null;
  path: string;
}

/** The master did not sign this binary for this iteration and side with a key the worker trusts: it must not run. */
export class UntrustedBinaryError extends SpsaError {
  /** No key at all is the worker's setup to fix, as bad input: exit status 2. */
  override readonly exitCode: number;
  constructor(
    readonly binary: SignedBinary,
    /** The worker trusts no key at all: nothing could ever pass. */
    readonly noTrustedKey: boolean,
  ) {
    super(
      noTrustedKey
        ? "no trusted master key to check the engine binaries against: print the master's key with `spsa key` on its machine and pin it with `compete --spsa --trust KEY` or [worker] trusted_keys in config.toml"
        : `refused the ${binary.variant} binary of iteration ${binary.iterationNumber} (run id ${binary.runId}, sha256 ${binary.sha256.slice(0, 12)}): ` +
            `${binary.signature ? "its signature is not from a trusted master key for this run, iteration and side" : "it is not signed"}`,
    );
    this.exitCode = noTrustedKey ? 2 : 1;
  }
}

/**
 * A local copy of the binary, to execute: the only way a worker gets one, so nothing runs
 * that the master did not sign (its signature over the hash, run, iteration and side must
 * verify with a trusted key) and whose bytes do not have that hash. The master's path if
 * this machine has it (a shared folder works too), else a cached copy fetched from the database.
 */
export async function obtainBinary(sql: postgres.Sql, binary: SignedBinary, trustedKeys: readonly KeyObject[], cacheDir: string): Promise<string> {
  if (!verifyBinary(trustedKeys, binary, binary.signature)) throw new UntrustedBinaryError(binary, trustedKeys.length === 0);
  const { sha256: hash, path: preferredPath } = binary;
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
