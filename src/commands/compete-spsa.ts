import { hostname } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../postgres/connection.js";
import { spsaHome } from "../core/home.js";
import {
  DEFAULT_BATCH_SIZE,
  DEFAULT_BOOK_PLIES,
  DEFAULT_ENGINE_CACHE,
  DEFAULT_LEASE_SECONDS,
  DEFAULT_MARGIN_MS,
  DEFAULT_OUTSIDE_DELAY,
} from "../config/config.js";
import { WORKER_IDLE_POLL_CAP_MS } from "../postgres/poll-backoff.js";
import { InputError } from "../core/errors.js";
import { privateFolder } from "../core/private-folder.js";
import { EngineCache } from "../engine-build/engine-cache.js";
import { defaultConcurrency, measureLoad } from "../worker/default-concurrency.js";
import { runWorker, type WorkerSummary } from "../worker/worker.js";
import { createRunnerPlayer, loadOpenings } from "../worker/runner-player.js";
import { parsePublicKey } from "../signing/binary-signature.js";
import { signingKeyPath, trustedKeys } from "../signing/key-file.js";
import { optionalConfig } from "./database-options.js";

export interface WorkerCommandOptions {
  /** config.toml: optional on a worker machine (the database URL can come from DATABASE_URL). */
  config?: string;
  /** Games at once; default: defaultConcurrency's rule on the load measured at start. */
  concurrency?: number;
  /** A master runs in this process (the demo): the default leaves a core for it. */
  masterBeside?: boolean;
  batchSize?: number;
  name?: string;
  /** Take the name even from a live worker. */
  force?: boolean;
  book?: string;
  /** Stop after this many games. */
  games?: number;
  /** Stop after this many seconds without work. */
  idleExit?: number;
  seed?: string;
  /** UCI options of this machine's engines (`--option`): threads, tablebases, … */
  engineOptions?: Readonly<Record<string, string>>;
  /** Master public keys given with --trust, besides [worker] trusted_keys and this machine's master's key. */
  trust?: readonly string[];
  log?: (line: string) => void;
  signal?: AbortSignal;
}

/** `compete --spsa`: plays games for SPSA iterations until stopped. */
export async function workerCommand(options: WorkerCommandOptions): Promise<WorkerSummary> {
  const config = optionalConfig(options.config);
  if (options.concurrency !== undefined && (!Number.isInteger(options.concurrency) || options.concurrency < 1)) {
    throw new InputError("-c/--concurrency", `must be a positive integer, got ${options.concurrency}`);
  }
  const batchSize = options.batchSize ?? config?.games.batchSize ?? DEFAULT_BATCH_SIZE;
  if (!Number.isInteger(batchSize) || batchSize < 2 || batchSize % 2 !== 0) {
    throw new InputError("--batch-size", `must be an even integer >= 2, got ${batchSize}`);
  }
  const openings = loadOpenings(options.book ?? config?.games.book, config?.games.bookPlies ?? DEFAULT_BOOK_PLIES);
  const chosen =
    options.concurrency === undefined
      ? defaultConcurrency(await measureLoad(), options.masterBeside ?? false)
      : undefined;
  const concurrency = options.concurrency ?? chosen!.concurrency;
  const pinned = [
    ...(options.trust ?? []).map((key) => parsePublicKey(key, "--trust")),
    ...(config?.worker.trustedKeys ?? []).map((key) => parsePublicKey(key, `${config?.file}: [worker].trusted_keys`)),
  ];
  // One connection: a fleet's count is its process count (docs/scaling-out.md).
  const database = await openDatabase({ configUrl: config?.database.url, max: 1, applicationName: "spsa-worker" });
  const player = createRunnerPlayer({
    concurrency,
    marginMs: config?.timeControl.marginMs ?? DEFAULT_MARGIN_MS,
    outsideDelay: config?.outsideDelay ?? DEFAULT_OUTSIDE_DELAY,
    engineOptions: options.engineOptions,
  });
  try {
    // Checked here, so a planted folder stops the worker before it claims, and again at each use (obtainBinary);
    // after the database opened, so an unusable home is said as the database's error. Older
    // versions' `binaries` folder is no longer used.
    const cache = new EngineCache(
      privateFolder(join(spsaHome(), "engine-cache"), "engine cache"),
      config?.worker.engineCache ?? DEFAULT_ENGINE_CACHE,
    );
    // Within its bounds from the start (they may have been lowered since the last run).
    await cache.evict();
    return await runWorker({
      database,
      player,
      name: options.name ?? `${hostname()}-${process.pid}`,
      force: options.force,
      concurrency,
      concurrencyNote: chosen?.note,
      batchSize,
      leaseSeconds: config?.games.leaseSeconds ?? DEFAULT_LEASE_SECONDS,
      openings,
      cache,
      trustedKeys: trustedKeys(pinned, signingKeyPath(config)),
      pollIntervalMs: WORKER_IDLE_POLL_CAP_MS,
      maxGames: options.games,
      idleExitMs: options.idleExit === undefined ? undefined : options.idleExit * 1000,
      seed: options.seed,
      log: options.log,
      signal: options.signal,
    });
  } finally {
    await player.close();
    // After a stop, what the database did not answer within the worker's patience is given up on.
    await database.close(options.signal?.aborted ? 0 : 5);
  }
}
