import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { sha256OfFile } from "../../src/engine-build/binary-store.js";
import { findRun } from "../../src/db/run-status.js";
import { startDashboard } from "../../src/dashboard/server.js";
import { readRunStatus, type RunStatus } from "../../src/status/snapshot.js";
import { renderStatus } from "../../src/status/render.js";
import { useMigratedDatabase } from "../support/database.js";
import { seedIteration } from "../support/iterations.js";
import { waitFor } from "../support/processes.js";
import { inProcessWorker } from "../support/worker-loop.js";

const TIMED = fileURLToPath(new URL("../fixtures/engines/timed.mjs", import.meta.url));

/**
 * A worker in the middle of its first batch of a run, nothing reported yet: spsa status and the
 * dashboard name it and what it plays, as the newcomer wanted ("no worker has played in this
 * run yet" while one was playing).
 */
describe("a worker playing its first batch of a run", () => {
  const database = useMigratedDatabase(4);
  const dir = mkdtempSync(join(tmpdir(), "spsa-playing-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("is named by spsa status and the dashboard from its claim, with its batch, before any report", async () => {
    const { sql } = database;
    const path = join(dir, "engine");
    writeFileSync(path, `#!/bin/sh\nexec node ${TIMED} '{}'\n`);
    chmodSync(path, 0o755);
    const { iteration } = await seedIteration(sql, {
      runName: "first",
      targetGames: 4,
      engine: { path, sha256: sha256OfFile(path) },
    });
    // Half a second a move: a game of random moves lasts far longer than the looks below.
    await sql`update spsa_iteration set timelow_ms = 500, timehigh_ms = 500 where id = ${iteration.id}`;
    // As a master holding the run: without one, the waiting line would ask for a master.
    await sql`update spsa_run set master_session = 's', master_host = 'box', master_pid = 1, master_since = now(),
      master_seen_at = now(), master_expires_at = now() + interval '1 hour' where name = 'first'`;
    const run = (await findRun(sql, "first"))!;

    const before = await readRunStatus(sql, run, { samples: 2 });
    expect(before.workers).toEqual([]);
    expect(before.waiting).toBe("no worker has claimed games of iteration 1 yet: start one with compete --spsa");

    const stop = new AbortController();
    const { done, lines } = inProcessWorker(database, dir, "w-first", { signal: stop.signal, concurrency: 1 });
    try {
      // The worker's log says which batch it starts: the event to look at the screens on.
      let started: RegExpExecArray | null = null;
      await waitFor(
        async () => {
          started =
            lines
              .map((line) => /^worker w-first: starts batch (\d+) \(2 games, run first, iteration 1\)$/.exec(line))
              .find(Boolean) ?? null;
          return started !== null;
        },
        60_000,
        "the worker's first batch",
      );
      const batchId = Number(started![1]);
      const [row] = await sql<{ status: string; reported: boolean }[]>`
        select status, reported_at is not null as reported from spsa_batch where id = ${batchId}`;
      expect(row).toEqual({ status: "claimed", reported: false });

      const status = await readRunStatus(sql, run, { samples: 2 });
      expect(status.games.total).toBe(0);
      expect(status.workers).toHaveLength(1);
      expect(status.workers[0]).toMatchObject({
        name: "w-first",
        games: 0,
        concurrency: 1,
        verdict: "nothing reported yet",
        playing: { batchIds: [batchId], games: 2, iterations: [1] },
      });
      // It holds games: the run does not wait for a worker.
      expect(status.waiting).toBeNull();
      const text = renderStatus(status);
      expect(text).not.toContain("no worker has played in this run yet");
      expect(text).not.toContain("waiting:");
      expect(text.split("\n")).toContainEqual(
        expect.stringMatching(/^w-first +\S+ +1 +0 +- +0 +0 +0 +- +- +0\.0 +- +- +- +0 +nothing reported yet$/),
      );
      expect(text.split("\n")).toContainEqual(
        expect.stringMatching(
          new RegExp(`^  w-first: playing batch ${batchId} \\(2 games of iteration 1\\) for \\d+s$`),
        ),
      );

      const dashboard = await startDashboard({ sql, host: "127.0.0.1", port: 0 });
      try {
        const detail = (await (await fetch(`${dashboard.url}api/runs/first`)).json()) as { status: RunStatus };
        expect(detail.status.workers.map((w) => [w.name, w.games, w.playing?.batchIds])).toEqual([
          ["w-first", 0, [batchId]],
        ]);
      } finally {
        await dashboard.close();
      }
    } finally {
      stop.abort();
      await done;
    }
    // Stopped, it gave its batch back: nothing is playing, and nobody has played.
    const after = await readRunStatus(sql, run, { samples: 2 });
    expect(after.workers).toEqual([]);
  }, 120_000);
});
