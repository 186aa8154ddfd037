import { randomUUID } from "node:crypto";
import { closeSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, utimesSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { withFileLock } from "../core/lock-file.js";
import { processExists } from "../core/process-exists.js";
import { writeFileAtomic } from "../core/write-atomic.js";

/**
 * How much a worker's engine cache keeps: binaries and their bytes (`[worker] engine_cache_files`,
 * `engine_cache_mb`).
 */
export interface CacheBounds {
  files: number;
  bytes: number;
}

/**
 * A binary of the cache is named by its sha256; a temp file of a write killed midway by that and 12
 * hex digits (writeFileAtomic).
 */
const BINARY = /^[0-9a-f]{64}$/;
const TEMP = /^[0-9a-f]{64}\.[0-9a-f]{12}\.tmp$/;
/** A temp file this old is left by a killed write (a write takes seconds). */
const STALE_TEMP_MS = 60 * 60_000;
/** One empty file per binary, its mtime the binary's last use: the order of eviction, kept across restarts. */
const USED = ".used";
/** One file per worker process: the binaries its batches in flight use. */
const IN_USE = ".in-use";
const LOCK = ".lock";
const LOCK_TIMEOUT_MS = 60_000;

interface InUse {
  host: string;
  pid: number;
  hashes: string[];
}

/**
 * A worker's engine cache (`<home>/engine-cache`, docs/signing.md): the binaries it hashed, by
 * sha256, bounded by count and bytes. When it holds more, the least recently used go first, but
 * never one a batch in flight may still start (the runner keeps engine processes across batches
 * and starts one again from its path after a crash): each process sharing the folder lists what
 * its batches use in a file of its own, and a list whose process is gone no longer counts.
 * Marking and evicting take the folder's lock, so a binary is either marked before an eviction
 * looks (and kept) or evicted before it is marked (and fetched again). The order of use is kept
 * in marker files beside the binaries, never in their own times: the no-rehash check of a cached
 * binary (binary-store.ts) keys on its mtime and ctime. Everything survives a restart; nothing
 * of it is flushed to disk (a power cut costs a few downloads at most), so a batch pays a lock
 * and two small writes.
 */
export class EngineCache {
  /** This process's batches in flight, per binary. */
  private readonly uses = new Map<string, number>();
  private readonly inUseFile: string;

  constructor(
    readonly dir: string,
    private readonly bounds: CacheBounds,
  ) {
    this.inUseFile = join(dir, IN_USE, `${process.pid}-${randomUUID()}.json`);
  }

  /**
   * Marks a batch's binaries as in use until the returned function is called (when the batch is
   * over), and as used now; call before obtaining them.
   */
  async use(hashes: readonly string[]): Promise<() => void> {
    await this.locked(() => {
      for (const hash of hashes) this.uses.set(hash, (this.uses.get(hash) ?? 0) + 1);
      this.writeInUse();
    });
    for (const hash of hashes) this.touch(hash);
    let done = false;
    // No lock: letting go of a binary can only make it evictable.
    return () => {
      if (done) return;
      done = true;
      for (const hash of hashes) {
        const left = (this.uses.get(hash) ?? 1) - 1;
        if (left > 0) this.uses.set(hash, left);
        else this.uses.delete(hash);
      }
      this.writeInUse();
    };
  }

  /**
   * Whether every one of these binaries is in the cache (then obtaining them adds nothing, and
   * nothing needs evicting).
   */
  holds(hashes: readonly string[]): boolean {
    return hashes.every((hash) => lstatSync(join(this.dir, hash), { throwIfNoEntry: false })?.isFile() ?? false);
  }

  /**
   * Removes binaries, least recently used first and none in use, until the cache is within its
   * bounds (binaries in use may keep it above them); also temp files of writes killed long ago.
   * Returns the sha256s removed.
   */
  async evict(): Promise<string[]> {
    return this.locked(() => {
      const inUse = this.inUseEverywhere();
      const binaries: { hash: string; size: number; used: number }[] = [];
      for (const name of readdirSync(this.dir)) {
        const stat = lstatSync(join(this.dir, name), { throwIfNoEntry: false });
        if (!stat?.isFile()) continue;
        if (TEMP.test(name) && Date.now() - stat.mtimeMs > STALE_TEMP_MS) rmSync(join(this.dir, name), { force: true });
        const used = lstatSync(join(this.dir, USED, name), { throwIfNoEntry: false })?.mtimeMs;
        if (BINARY.test(name)) binaries.push({ hash: name, size: stat.size, used: used ?? stat.mtimeMs });
      }
      binaries.sort((a, b) => a.used - b.used || a.hash.localeCompare(b.hash));
      let files = binaries.length;
      let bytes = binaries.reduce((sum, b) => sum + b.size, 0);
      const removed: string[] = [];
      for (const binary of binaries) {
        if (files <= this.bounds.files && bytes <= this.bounds.bytes) break;
        if (inUse.has(binary.hash)) continue;
        rmSync(join(this.dir, binary.hash), { force: true });
        rmSync(join(this.dir, USED, binary.hash), { force: true });
        removed.push(binary.hash);
        files--;
        bytes -= binary.size;
      }
      // Markers of binaries removed by other means.
      const kept = new Set(binaries.map((b) => b.hash));
      for (const name of readdirOrNone(join(this.dir, USED)))
        if (!kept.has(name)) rmSync(join(this.dir, USED, name), { force: true });
      return removed;
    });
  }

  /**
   * What batches in flight use: this process's, and those of every live process sharing the folder
   * (their lists of a dead process are removed).
   */
  private inUseEverywhere(): Set<string> {
    const inUse = new Set(this.uses.keys());
    const folder = join(this.dir, IN_USE);
    for (const name of readdirOrNone(folder)) {
      const file = join(folder, name);
      const list = readJson<InUse>(file);
      if (!list || typeof list.pid !== "number" || !Array.isArray(list.hashes)) continue;
      // A list from another host (a cache folder shared over the network) cannot be checked: it counts.
      if (list.host === hostname() && !processExists(list.pid)) {
        rmSync(file, { force: true });
        continue;
      }
      for (const hash of list.hashes) inUse.add(hash);
    }
    return inUse;
  }

  private writeInUse(): void {
    if (this.uses.size === 0) {
      rmSync(this.inUseFile, { force: true });
      return;
    }
    mkdirSync(join(this.dir, IN_USE), { recursive: true, mode: 0o700 });
    const list: InUse = { host: hostname(), pid: process.pid, hashes: [...this.uses.keys()] };
    writeFileAtomic(this.inUseFile, JSON.stringify(list), { durable: false });
  }

  /** The binary's marker gets the time now, to the microsecond (two uses in one millisecond keep their order). */
  private touch(hash: string): void {
    const marker = join(this.dir, USED, hash);
    const now = (performance.timeOrigin + performance.now()) / 1000;
    try {
      utimesSync(marker, now, now);
    } catch {
      mkdirSync(join(this.dir, USED), { recursive: true, mode: 0o700 });
      closeSync(openSync(marker, "a", 0o600));
      utimesSync(marker, now, now);
    }
  }

  private locked<T>(work: () => T): Promise<T> {
    return withFileLock(join(this.dir, LOCK), LOCK_TIMEOUT_MS, async () => work());
  }
}

function readdirOrNone(folder: string): string[] {
  try {
    return readdirSync(folder);
  } catch {
    return [];
  }
}

/** A list this cache wrote (atomically), or undefined if it is missing or not what it wrote. */
function readJson<T>(file: string): T | undefined {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as T;
  } catch {
    return undefined;
  }
}
