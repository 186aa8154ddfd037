import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { obtainBinary, sha256, type SignedBinary } from "../../src/engine-build/binary-store.js";
import { foldIteration } from "../../src/db/fold.js";
import { compete } from "../support/cli.js";
import { useMigratedDatabase } from "../support/database.js";
import { seedIteration } from "../support/iterations.js";
import { localSigningKey, localTrust } from "../support/signing.js";

const RANDOM_MOVER = fileURLToPath(new URL("../fixtures/engines/random-mover.mjs", import.meta.url));
const notRoot = process.getuid?.() !== 0;
const reason = "only root can act as another local user (nobody) who owns the folder the row names";
/** The other local user: nobody, as setpriv makes it (no groups). */
const NOBODY = 65534;

/**
 * Issue 32, "run the verified bytes", done for real: someone who can write the database and
 * has an account on the worker's machine names a folder of their own in the row, with the
 * genuine signed binary in it, and swaps in a payload as soon as the worker has read it (the
 * check) and before it runs it. The worker, as root, must run only what it checked.
 */
describe("a worker runs only the bytes it verified", () => {
  const database = useMigratedDatabase(2);
  const dir = mkdtempSync(join(tmpdir(), "spsa-verified-"));
  const attackerDirs: string[] = [];
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
    for (const attacker of attackerDirs) rmSync(attacker, { recursive: true, force: true });
  });
  afterEach(async () => {
    await database.sql`update spsa_run set status = 'stopped'`;
  });

  /** A UCI engine (the random mover) that first appends to `marker`: proof that it ran. */
  const engineScript = (marker: string) => `#!/bin/sh\necho ran >> '${marker}'\nexec node '${RANDOM_MOVER}'\n`;

  /** A worker with its own home (so its own engine cache), trusting the master's key as a second machine does. */
  const worker = (name: string, home: string, games: number) =>
    compete(
      [
        "--spsa",
        "-c",
        "1",
        "--batch-size",
        "2",
        "--games",
        String(games),
        "--idle-exit",
        "1",
        "--name",
        name,
        "--trust",
        localSigningKey().publicKey,
      ],
      {
        env: { DATABASE_URL: database.url, SPSA_HOME: home },
        timeout: 120_000,
      },
    );

  it.skipIf(notRoot)(
    `a payload swapped in after the check never runs: the genuine engine plays every game (skipped unless root: ${reason})`,
    async () => {
      const genuineMarker = join(dir, "genuine.ran");
      const payloadMarker = join(dir, "payload.ran");
      // The attacker's folder, named by the row: theirs, with the genuine binary and the payload in it.
      const attacker = mkdtempSync(join(tmpdir(), "spsa-attacker-"));
      attackerDirs.push(attacker);
      const engine = join(attacker, "engine");
      const payload = join(attacker, "payload");
      const swapped = join(attacker, "swapped");
      const genuine = Buffer.from(engineScript(genuineMarker));
      writeFileSync(engine, genuine, { mode: 0o755 });
      writeFileSync(payload, engineScript(payloadMarker), { mode: 0o755 });
      for (const path of [attacker, engine, payload]) chownSync(path, NOBODY, NOBODY);
      chmodSync(attacker, 0o755);

      // The master signed the genuine binary (its path on the master's machine is the attacker's folder).
      const { iteration } = await seedIteration(database.sql, {
        runName: "swapped",
        targetGames: 4,
        engine: { path: engine, sha256: sha256(genuine) },
      });
      // The attacker sees the worker's read as the file's access time moving (relatime moves it once
      // it is older than the file's change), and swaps the payload in at once, as that user.
      utimesSync(engine, new Date("2000-01-01T00:00:00Z"), new Date());
      const watcher = execa(
        "setpriv",
        [
          `--reuid=${NOBODY}`,
          `--regid=${NOBODY}`,
          "--clear-groups",
          "node",
          "-e",
          SWAP_AFTER_READ,
          engine,
          payload,
          swapped,
        ],
        { reject: false, all: true, timeout: 120_000 },
      );
      try {
        const result = await worker("w-swapped", mkdtempSync(join(dir, "home-")), 4);
        expect(result.exitCode, result.all).toBe(0);
        const attack = await watcher;
        expect(attack.exitCode, attack.all).toBe(0);
      } finally {
        watcher.kill();
      }
      // The swap happened after the worker read the genuine bytes: the row's path now holds the payload.
      expect(readFileSync(swapped, "utf8")).toBe("swapped");
      expect(readFileSync(engine, "utf8")).toContain(payloadMarker);
      expect(existsSync(payloadMarker), "the payload ran").toBe(false);
      // Both engines of every pair were the genuine one (two games per pair, each engine started at least once).
      expect(readFileSync(genuineMarker, "utf8").split("\n").filter(Boolean).length).toBeGreaterThanOrEqual(2);
      await foldIteration(database.sql, iteration.id);
      const [row] = await database.sql<
        { games_played: number }[]
      >`select games_played from spsa_iteration where id = ${iteration.id}`;
      expect(row?.games_played).toBe(4);
    },
  );

  it.skipIf(notRoot)(
    `a worker whose engine cache another user owns stops before it claims, and runs nothing (skipped unless root: ${reason})`,
    async () => {
      const marker = join(dir, "planted-cache.ran");
      const path = join(dir, "planted-cache-engine");
      writeFileSync(path, engineScript(marker), { mode: 0o755 });
      const { iteration } = await seedIteration(database.sql, {
        runName: "planted-cache",
        targetGames: 2,
        engine: { path, sha256: sha256(readFileSync(path)) },
      });
      const home = mkdtempSync(join(dir, "home-"));
      const cache = join(home, "engine-cache");
      mkdirSync(cache, { mode: 0o700 });
      chownSync(cache, NOBODY, NOBODY);
      const result = await worker("w-planted-cache", home, 2);
      expect(result.exitCode, result.all).toBe(2);
      expect(result.stderr.trim()).toBe(
        `error: ${cache}: the engine cache belongs to another user (uid ${NOBODY}, this process runs as 0): remove it (it is made again, 0700) or point SPSA_HOME elsewhere`,
      );
      expect(existsSync(marker)).toBe(false);
      const batches = await database.sql<
        { status: string }[]
      >`select status from spsa_batch where iteration_id = ${iteration.id}`;
      expect(batches.map((b) => b.status)).toEqual(["open"]);
    },
  );
});

/** The attacker, run as nobody: waits for the engine file's first read, then renames the payload over it. */
const SWAP_AFTER_READ = `
const fs = require("node:fs");
const [engine, payload, swapped] = process.argv.slice(1);
const before = fs.statSync(engine).atimeMs;
while (fs.statSync(engine).atimeMs === before);
fs.renameSync(payload, engine);
fs.writeFileSync(swapped, "swapped");
`;

describe("an engine cache that is not the worker's own", () => {
  const database = useMigratedDatabase(1);
  const dir = mkdtempSync(join(tmpdir(), "spsa-cache-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const content = Buffer.from("#!/bin/sh\necho engine\n");
  const hash = sha256(content);
  const source = join(dir, "engine");
  writeFileSync(source, content, { mode: 0o755 });
  const subject = {
    runUid: "6f1c1f4e-3c8e-4e43-9d2a-1b7c2f0d5a11",
    iterationNumber: 1,
    role: "plus" as const,
    sha256: hash,
  };
  const binary = (): SignedBinary => ({ ...subject, path: source, signature: localSigningKey().sign(subject) });
  const obtain = (cache: string) => obtainBinary(database.sql, binary(), localTrust(), cache);

  it("is made 0700 when missing; the binary is written there, 0700, from the bytes hashed", async () => {
    const cache = join(dir, "fresh", "engine-cache");
    expect(await obtain(cache)).toBe(join(cache, hash));
    expect(lstatSync(cache).mode & 0o777).toBe(0o700);
    expect(lstatSync(join(cache, hash)).mode & 0o777).toBe(0o700);
    expect(readFileSync(join(cache, hash))).toEqual(content);
  });

  it("with a wider mode, is refused with the folder named", async () => {
    const cache = join(dir, "wide");
    mkdirSync(cache, { mode: 0o700 });
    chmodSync(cache, 0o755);
    await expect(obtain(cache)).rejects.toThrow(
      `${cache}: the engine cache has mode 755, not 700: remove it (it is made again, 0700) or point SPSA_HOME elsewhere`,
    );
    expect(existsSync(join(cache, hash))).toBe(false);
  });

  it("as a symbolic link (even to a private folder of ours), is refused", async () => {
    const target = join(dir, "target");
    mkdirSync(target, { mode: 0o700 });
    const cache = join(dir, "link");
    symlinkSync(target, cache);
    await expect(obtain(cache)).rejects.toThrow(`${cache}: the engine cache is a symbolic link`);
    expect(existsSync(join(target, hash))).toBe(false);
  });

  it.skipIf(notRoot)(
    `owned by another user, or inside a folder another user owns, is refused (skipped unless root: ${reason})`,
    async () => {
      const theirs = join(dir, "theirs");
      mkdirSync(theirs, { mode: 0o700 });
      chownSync(theirs, NOBODY, NOBODY);
      await expect(obtain(theirs)).rejects.toThrow(
        `${theirs}: the engine cache belongs to another user (uid ${NOBODY}, this process runs as 0)`,
      );
      // Ours and 0700, but the folder above is theirs: they could rename ours away and put theirs in its place.
      const parent = join(dir, "their-home");
      mkdirSync(join(parent, "engine-cache"), { recursive: true, mode: 0o700 });
      chownSync(parent, NOBODY, NOBODY);
      await expect(obtain(join(parent, "engine-cache"))).rejects.toThrow(
        `${join(parent, "engine-cache")}: another user could replace the engine cache: ${parent} belongs to uid ${NOBODY} with mode 700`,
      );
    },
  );
});
