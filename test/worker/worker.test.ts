import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sha256OfFile } from "../../src/build/binary-store.js";
import { returnToPool } from "../../src/db/batches.js";
import type { Database } from "../../src/db/connection.js";
import { outsideDelayPolicy } from "../../src/play/outside-delay.js";
import { START_FEN } from "../../src/play/index.js";
import { createRunnerPlayer } from "../../src/worker/runner-player.js";
import { runWorker, type WorkerOptions } from "../../src/worker/worker.js";
import { useMigratedDatabase } from "../support/database.js";
import { seedIteration } from "../support/iterations.js";
import { waitFor } from "../support/processes.js";

const TIMED = fileURLToPath(new URL("../fixtures/engines/timed.mjs", import.meta.url));

/**
 * The worker loop in-process on a real database, playing real games with a fixture engine
 * that spends its movetime like a real one, so a batch lasts seconds, not milliseconds.
 */
describe("the worker loop", () => {
  const database = useMigratedDatabase(6);
  const dir = mkdtempSync(join(tmpdir(), "spsa-worker-"));
  const engine = { path: join(dir, "engine"), sha256: "" };
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  beforeAll(() => {
    writeFileSync(engine.path, `#!/bin/sh\nexec node ${TIMED} '{}'\n`);
    chmodSync(engine.path, 0o755);
    engine.sha256 = sha256OfFile(engine.path);
  });

  function worker(name: string, extra: Partial<WorkerOptions> = {}) {
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
      cacheDir: join(dir, "cache"),
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

  const iterationOf = async (runName: string) => {
    const [row] = await database.sql<{ games_played: number; games_claimed: number; results: number }[]>`
      select games_played, games_claimed, plus_wins + minus_wins + draws as results
      from spsa_iteration i join spsa_run r on r.id = i.run_id where r.name = ${runName}`;
    return row;
  };
  const batchesOf = (runName: string) =>
    database.sql<{ id: number; worker_name: string; games: number; status: string; reported: boolean; pairs: number }[]>`
      select b.id, b.worker_name, b.games, b.status, b.reported_at is not null as reported,
        coalesce((select sum(p::int) from jsonb_array_elements_text(b.pairs) p), 0)::int as pairs
      from spsa_batch b join spsa_iteration i on i.id = b.iteration_id join spsa_run r on r.id = i.run_id
      where r.name = ${runName} order by b.id`;

  it("claims an iteration's games in batches, reports each once, and stops when no work is left", async () => {
    await seedIteration(database.sql, { runName: "plain", targetGames: 4, engine });
    const { done, lines } = worker("w-plain");
    expect(await done, lines.join("\n")).toEqual({ games: 4, batches: 2, refused: 0 });
    expect(await iterationOf("plain")).toEqual({ games_played: 4, games_claimed: 4, results: 4 });
    const batches = await batchesOf("plain");
    expect(batches.map(({ worker_name, games, status, reported, pairs }) => ({ worker_name, games, status, reported, pairs }))).toEqual([
      { worker_name: "w-plain", games: 2, status: "done", reported: true, pairs: 1 },
      { worker_name: "w-plain", games: 2, status: "done", reported: true, pairs: 1 },
    ]);
  });

  it("a batch taken from it while it plays is refused on report, and its games are played again and counted once", async () => {
    await seedIteration(database.sql, { runName: "taken", targetGames: 2, engine });
    const { done, lines } = worker("w-taken");
    let batchId = 0;
    await waitFor(async () => {
      batchId = (await batchesOf("taken"))[0]?.id ?? 0;
      return batchId > 0;
    }, 60_000, "the worker's first claim");
    // What expiry or another process of the name does: the games go back to the pool.
    expect(await returnToPool(database.sql, database.sql`id = ${batchId}`)).toEqual({ batches: 1, games: 2 });

    expect(await done, lines.join("\n")).toEqual({ games: 2, batches: 1, refused: 1 });
    expect(lines).toContain(`batch ${batchId} was refused: its lease expired and its games went back to the pool`);
    expect(await iterationOf("taken")).toEqual({ games_played: 2, games_claimed: 2, results: 2 });
    const batches = await batchesOf("taken");
    expect(batches.map(({ games, status, reported }) => ({ games, status, reported }))).toEqual([
      { games: 2, status: "expired", reported: false },
      { games: 2, status: "done", reported: true },
    ]);
  });
});
