import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { obtainBinary, sha256, type SignedBinary } from "../../src/engine-build/binary-store.js";
import { storeFile } from "../support/iterations.js";
import { useMigratedDatabase } from "../support/database.js";
import { localSigningKey, localTrust } from "../support/signing.js";

/** The binary with this hash at `path`, signed as the master signs a run's iteration 1. */
function signed(hash: string, path: string): [SignedBinary, ReturnType<typeof localTrust>] {
  const subject = {
    runUid: "6f1c1f4e-3c8e-4e43-9d2a-1b7c2f0d5a11",
    iterationNumber: 1,
    role: "plus" as const,
    sha256: hash,
  };
  return [{ ...subject, path, signature: localSigningKey().sign(subject) }, localTrust()];
}

describe("a stored binary whose hash does not match", () => {
  const database = useMigratedDatabase(2);
  const dir = mkdtempSync(join(tmpdir(), "spsa-binary-"));
  const built = join(dir, "built", "engine");
  const content = Buffer.from("#!/bin/sh\necho plus engine\n");
  const hash = sha256(content);
  let cacheDir: string;
  let n = 0;
  const cached = () => join(cacheDir, hash);

  beforeAll(async () => {
    writeFileSync(join(dir, "original"), content);
    expect(await storeFile(database.sql, join(dir, "original"))).toBe(hash);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  // Each case starts with an empty cache.
  const freshCache = () => (cacheDir = join(dir, `cache-${n++}`));

  it("at the master's path (rebuilt since): is not used; the database's copy is cached and used", async () => {
    freshCache();
    const path = join(dir, "rebuilt");
    writeFileSync(path, "#!/bin/sh\necho another build\n");
    expect(await obtainBinary(database.sql, ...signed(hash, path), cacheDir)).toBe(cached());
    expect(readFileSync(cached())).toEqual(content);
    expect(readFileSync(path, "utf8")).toBe("#!/bin/sh\necho another build\n");
  });

  it("in the worker's cache (damaged, after it was hashed and used): is fetched again from the database and replaced", async () => {
    freshCache();
    expect(await obtainBinary(database.sql, ...signed(hash, built), cacheDir)).toBe(cached());
    // Used again: hashed, and from then on trusted while it stays the same file.
    expect(await obtainBinary(database.sql, ...signed(hash, built), cacheDir)).toBe(cached());
    writeFileSync(cached(), "truncated");
    expect(await obtainBinary(database.sql, ...signed(hash, built), cacheDir)).toBe(cached());
    expect(sha256(readFileSync(cached()))).toBe(hash);
  });

  it("in the database (corrupt): is refused, and nothing is left in the cache", async () => {
    freshCache();
    await database.sql`update spsa_binary set content = ${Buffer.from("corrupt")} where sha256 = ${hash}`;
    try {
      await expect(obtainBinary(database.sql, ...signed(hash, built), cacheDir)).rejects.toThrow(
        `engine binary ${hash.slice(0, 12)} in the database is corrupt`,
      );
      expect(existsSync(cacheDir) ? readdirSync(cacheDir, { recursive: true }) : []).toEqual([]);
    } finally {
      await database.sql`update spsa_binary set content = ${content} where sha256 = ${hash}`;
    }
  });

  it("anywhere (unknown hash): is refused with both places named", async () => {
    freshCache();
    const unknown = sha256(Buffer.from("never stored"));
    await expect(obtainBinary(database.sql, ...signed(unknown, built), cacheDir)).rejects.toThrow(
      `engine binary ${unknown.slice(0, 12)} is neither at ${built} nor in the database`,
    );
  });
});
