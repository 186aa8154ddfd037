import { join } from "node:path";
import type { Database } from "../../src/postgres/connection.js";
import { START_FEN } from "../../src/play/position.js";
import { outsideDelayPolicy } from "../../src/play/outside-delay.js";
import { createRunnerPlayer } from "../../src/worker/runner-player.js";
import { runWorker, type WorkerOptions } from "../../src/worker/worker.js";
import type { MigratedDatabase } from "./database.js";
import { localTrust } from "./signing.js";
import { EngineCache } from "../../src/engine-build/engine-cache.js";
import { privateFolder } from "../../src/core/private-folder.js";
import { DEFAULT_ENGINE_CACHE } from "../../src/config/config.js";

/**
 * The worker loop in-process on a test database, with the real game runner: 2 games at
 * once, batches of 2, binaries cached under `dir`. It ends after a second without work.
 * Returns its summary (once done) and the lines it logged.
 */
export function inProcessWorker(
  database: MigratedDatabase,
  dir: string,
  name: string,
  extra: Partial<WorkerOptions> = {},
) {
  const lines: string[] = [];
  const db: Database = { url: database.url, embedded: false, sql: database.sql, close: async () => {} };
  const player = createRunnerPlayer({ concurrency: 2, marginMs: 500, outsideDelay: outsideDelayPolicy("replay", 4) });
  const options: WorkerOptions = {
    database: db,
    player,
    name,
    concurrency: 2,
    batchSize: 2,
    leaseSeconds: 30,
    openings: [{ fen: START_FEN }],
    cache: new EngineCache(privateFolder(join(dir, "cache"), "engine cache"), DEFAULT_ENGINE_CACHE),
    trustedKeys: localTrust,
    pollIntervalMs: 50,
    // No work for this long ends the loop: how a test (or a script) stops a worker.
    idleExitMs: 1000,
    log: (line) => lines.push(line),
    status: { update: () => {}, done: () => {} } as unknown as WorkerOptions["status"],
    seed: name,
    ...extra,
  };
  const done = runWorker(options).finally(() => player.close());
  return { done, lines };
}
