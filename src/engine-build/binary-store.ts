import { createHash, type KeyObject } from "node:crypto";
import { lstatSync, mkdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type postgres from "postgres";
import { insertBinary, lockBinary, storedBinary } from "../db/binaries.js";
import { SpsaError } from "../core/errors.js";
import { privateFolder, readRegularFile } from "../core/private-folder.js";
import { copyFileAtomic, writeFileAtomic } from "../core/write-atomic.js";
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

/**
 * Stores the binaries a transaction is about to name (an iteration's engines, a run's reference)
 * in the database by sha256, so a remote worker needs only the database URL. Each row is locked
 * until the transaction ends (lockBinary: no prune takes the bytes before the name commits);
 * bytes already there are not sent again, and those of a new or pruned binary are read from
 * where the master put it, and checked against its sha256.
 */
export async function storeBinaries(
  tx: postgres.TransactionSql,
  engines: readonly { path: string; sha256: string }[],
): Promise<void> {
  // One order for every transaction, so two storing the same binaries never deadlock.
  const unique = [...new Map(engines.map((engine) => [engine.sha256, engine])).values()].sort((a, b) =>
    a.sha256.localeCompare(b.sha256),
  );
  for (const engine of unique) {
    if ((await lockBinary(tx, engine.sha256))?.stored) continue;
    const content = readRegularFile(engine.path, false, MAX_BINARY_BYTES);
    if (!isIntact(content, engine.sha256)) {
      throw new SpsaError(
        `engine binary ${engine.sha256.slice(0, 12)} is not in the database (its bytes were pruned ` +
          `when nothing could run it any more), and ${engine.path} no longer holds it: build it again`,
      );
    }
    await insertBinary(tx, engine.sha256, content);
  }
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
        ? "no trusted master key to check the engine binaries against: print the master's key with " +
            "`spsa key` on its machine and pin it with `compete --spsa --trust KEY` or [worker] " +
            "trusted_keys in config.toml"
        : `refused the ${binary.role} binary of iteration ${binary.iterationNumber} (run ` +
            `${binary.runUid}, sha256 ${binary.sha256.slice(0, 12)}): ` +
            `${binary.signature ? "its signature is not from a trusted master key for this run, iteration and side (signatures of older versions, spsa-binary-v1, are refused too: docs/signing.md)" : "it is not signed"}`,
    );
    this.exitCode = noTrustedKey ? 2 : 1;
  }
}

/**
 * A file to execute: the only way a worker gets one, so nothing runs that the master did not
 * sign (its signature over the hash, run uid, iteration and side must verify with a trusted
 * key) and whose bytes do not have that hash. And never a path the database names: whoever
 * can write a row and owns that path could swap the file between the hash and the exec
 * (issue 32). The worker executes only files it wrote itself, from the very bytes it hashed,
 * into a folder only it can write (`cacheDir`, named by sha256): the bytes come from the
 * master's path if this machine has it (a shared folder works too), else from the database.
 */
export async function obtainBinary(
  sql: postgres.Sql,
  binary: SignedBinary,
  trustedKeys: readonly KeyObject[],
  cacheDir: string,
): Promise<string> {
  if (!verifyBinary(trustedKeys, binary, binary.signature))
    throw new UntrustedBinaryError(binary, trustedKeys.length === 0);
  const { sha256: hash, path: masterPath } = binary;
  const cached = join(privateFolder(cacheDir, "engine cache"), hash);
  if (cachedIntact(cached, hash)) return cached;
  let content = readRegularFile(masterPath, false, MAX_BINARY_BYTES);
  if (!isIntact(content, hash)) {
    const row = await storedBinary(sql, hash);
    if (!row) throw new SpsaError(`engine binary ${hash.slice(0, 12)} is neither at ${masterPath} nor in the database`);
    // Pruned: nothing could run it any more (its iteration is over), so this batch is no longer needed either.
    if (row.content === null)
      throw new SpsaError(
        `engine binary ${hash.slice(0, 12)} is no longer kept (pruned ` +
          `${row.prunedAt?.toISOString() ?? ""}: its iteration is over)`,
      );
    content = row.content;
    if (!isIntact(content, hash)) throw new SpsaError(`engine binary ${hash.slice(0, 12)} in the database is corrupt`);
  }
  // The bytes just hashed, never a second read: created O_EXCL|O_NOFOLLOW with mode 0700, fsync'd, renamed into place.
  writeFileAtomic(cached, content, { mode: 0o700 });
  return cached;
}

/**
 * A binary larger cannot be in spsa_binary (a bytea holds at most 1 GiB): a larger file at the
 * master's path is not read.
 */
const MAX_BINARY_BYTES = 1024 ** 3;

/** Files of the engine cache this process hashed, by path: what they were then (inode, size, times). */
const hashedCache = new Map<string, string>();

/**
 * The folder's privacy is what closes the race: no one else can write between a hash and the
 * exec, so a cached file need not be hashed before each use. It is hashed once per process
 * and again whenever it changed since, which catches a file damaged by hand or replaced (it
 * would fault every game). Hashing before each use would cost 30 to 50 ms per 10 MB binary
 * per batch on a busy machine, this a stat (bench/signing-bench.mjs, docs/signing.md).
 */
function cachedIntact(path: string, hash: string): boolean {
  let stat;
  try {
    stat = lstatSync(path);
  } catch {
    return false;
  }
  const seen = `${stat.ino}:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}`;
  if (stat.isFile() && hashedCache.get(path) === seen) return true;
  if (!isIntact(readRegularFile(path, true, MAX_BINARY_BYTES), hash)) return false;
  hashedCache.set(path, seen);
  return true;
}

function isIntact(content: Buffer | undefined, hash: string): content is Buffer {
  return content !== undefined && sha256(content) === hash;
}
