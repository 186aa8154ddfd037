import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { EngineCache } from "../../src/engine-build/engine-cache.js";
import { sha256 } from "../../src/engine-build/binary-store.js";
import { privateFolder } from "../../src/core/private-folder.js";
import { ROOT } from "../support/cli.js";
import { outputSoFar, waitFor } from "../support/processes.js";

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** A cache folder holding `sizes.length` binaries of these sizes, named by their sha256 as obtainBinary names them. */
function cacheWith(sizes: number[]): { dir: string; hashes: string[] } {
  const parent = mkdtempSync(join(tmpdir(), "spsa-cache-"));
  folders.push(parent);
  const dir = privateFolder(join(parent, "engine-cache"), "engine cache");
  const hashes = sizes.map((size, i) => {
    const content = Buffer.alloc(size, i + 1);
    const hash = sha256(content);
    writeFileSync(join(dir, hash), content, { mode: 0o700 });
    return hash;
  });
  return { dir, hashes };
}

const cached = (dir: string) =>
  readdirSync(dir)
    .filter((name) => /^[0-9a-f]{64}$/.test(name))
    .sort();

/** Another worker process on the cache (the built module, as `compete --spsa` runs it): marks `hashes` in use and waits, or evicts once. */
function otherProcess(dir: string, action: "hold" | "evict", hashes: string[], files: number) {
  const script = `
    const { EngineCache } = await import(${JSON.stringify(join(ROOT, "dist/engine-build/engine-cache.js"))});
    const cache = new EngineCache(${JSON.stringify(dir)}, { files: ${files}, bytes: 1e12 });
    if (${JSON.stringify(action)} === "hold") { await cache.use(${JSON.stringify(hashes)}); console.log("holding"); setInterval(() => {}, 1000); }
    else console.log(JSON.stringify(await cache.evict()));`;
  return execa("node", ["--input-type=module", "-e", script], { reject: false, all: true });
}

describe("the engine cache", () => {
  it("evicts the least recently used first, by use and not by file times, down to its count", async () => {
    const { dir, hashes } = cacheWith([10, 10, 10, 10]);
    const [a, b, c, d] = hashes as [string, string, string, string];
    // d was never used: its file's time (an hour ago) places it.
    utimesSync(join(dir, d), new Date(Date.now() - 3_600_000), new Date(Date.now() - 3_600_000));
    const cache = new EngineCache(dir, { files: 2, bytes: 1e9 });
    const before = statSync(join(dir, a));
    for (const hash of [a, b, c, a]) (await cache.use([hash]))();
    // The binaries' own times are untouched: the worker's no-rehash check keys on them.
    expect(statSync(join(dir, a)).ctimeMs).toBe(before.ctimeMs);
    expect(statSync(join(dir, a)).mtimeMs).toBe(before.mtimeMs);
    expect(await cache.evict()).toEqual([d, b]);
    expect(cached(dir)).toEqual([a, c].sort());
  });

  it("evicts down to its bytes too", async () => {
    const { dir, hashes } = cacheWith([400, 300, 200]);
    const cache = new EngineCache(dir, { files: 10, bytes: 600 });
    for (const hash of hashes) (await cache.use([hash]))();
    // 900 bytes: the oldest (400) goes, 500 are left.
    expect(await cache.evict()).toEqual([hashes[0]]);
    expect(cached(dir)).toEqual([hashes[1], hashes[2]].sort());
  });

  it("never evicts a binary a batch in flight uses, in this process or another sharing the folder, until that process is gone", async () => {
    const { dir, hashes } = cacheWith([10, 10, 10, 10]);
    const [a, b, c, d] = hashes as [string, string, string, string];
    const cache = new EngineCache(dir, { files: 1, bytes: 1e9 });
    for (const hash of hashes) (await cache.use([hash]))();
    // a is the least recently used: a batch here plays it; b is the next: another worker's batch plays it.
    const done = await cache.use([a]);
    const other = otherProcess(dir, "hold", [b], 1);
    const printed = outputSoFar(other);
    await waitFor(async () => printed().includes("holding"), 30_000, "the other worker's mark");
    expect(await cache.evict()).toEqual([c, d]);
    // Over its bound while both are in use; once the batch is over and the other worker is killed -9, the older of them goes.
    expect(cached(dir)).toEqual([a, b].sort());
    done();
    other.kill("SIGKILL");
    await other;
    expect(await cache.evict()).toEqual([a]);
    expect(cached(dir)).toEqual([b]);
    expect(readdirSync(join(dir, ".in-use"))).toEqual([]);
  });

  it("survives a restart: a new worker process keeps the binaries and evicts in the order of use it finds", async () => {
    const { dir, hashes } = cacheWith([10, 10, 10]);
    const [a, b, c] = hashes as [string, string, string];
    const first = new EngineCache(dir, { files: 3, bytes: 1e9 });
    for (const hash of [b, c, a]) (await first.use([hash]))();
    expect(await first.evict()).toEqual([]);
    // A restart with a bound lowered to 2 (compete --spsa evicts at its start).
    const restarted = await otherProcess(dir, "evict", [], 2);
    expect(restarted.exitCode, restarted.all).toBe(0);
    expect(JSON.parse(restarted.stdout)).toEqual([b]);
    expect(cached(dir)).toEqual([a, c].sort());
    expect(existsSync(join(dir, b))).toBe(false);
  });
});
