import { describe, expect, it } from "vitest";
import { lockOpenIteration } from "../../src/db/iteration-lock.js";
import { lockRunTheta } from "../../src/db/worker-decisions.js";
import { topUpDraws } from "../../src/master/draw-pool.js";
import { useMigratedDatabase } from "../support/database.js";
import { registerTestWorker } from "../support/iterations.js";
import { waitFor } from "../support/processes.js";
import { openPlayedOptionRun } from "../support/played-run.js";

/**
 * The run's row before the carrier's fold lock, in every transaction that takes both: an undo or
 * an acceptance (the run's row, then the fold lock: src/master/undo-worker.ts) and the master's
 * draw, whose inserts reference the run's row. CI once lost a master to "deadlock detected" when
 * a draw held the fold lock and waited for the row an undo held while it waited for the fold lock.
 */

describe("lock order of a UCI-option run", () => {
  const database = useMigratedDatabase(4);

  it("a draw that starts while an undo holds the run's row waits for the undo, and neither is aborted", async () => {
    const sql = database.sql;
    const target = 64;
    const { run, optionRun } = await openPlayedOptionRun(sql, { name: "lock-order", seed: "lock-order", target });
    await registerTestWorker(sql, "h1");
    let draw: Promise<unknown> | undefined;
    // The undo's locks in its order (beginUndo, then lockOpenIteration), with a draw started in between.
    await sql.begin(async (tx) => {
      await lockRunTheta(tx, run.id);
      // A deadlock aborts one of the two: the draw's error is the test's failure, not an unhandled rejection.
      draw = topUpDraws(sql, { ...optionRun, seed: run.seed }, target, 8).catch((error: unknown) => error);
      await waitFor(
        async () =>
          (
            await sql<{ waiting: number }[]>`
              select count(*)::int as waiting
              from pg_stat_activity
              where datname = current_database()
                and pid <> pg_backend_pid()
                and wait_event_type = 'Lock'`
          )[0]!.waiting > 0,
        20_000,
        "the draw to wait for a lock",
      );
      expect(await lockOpenIteration(tx, optionRun.iterationId)).toBe(true);
    });
    expect(await draw).toBeGreaterThan(0);
  }, 30_000);
});
