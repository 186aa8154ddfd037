import { describe, expect, it } from "vitest";
import { claimBatch, expireLeases, reportBatch, type BatchReport } from "../../src/db/batches.js";
import { insertOptionRun } from "../../src/db/perturbations.js";
import { applyReports } from "../../src/uci-tune/apply-reports.js";
import { scheduleStep } from "../../src/uci-tune/batch-math.js";
import { drawOnClaim } from "../../src/uci-tune/hooks.js";
import { useMigratedDatabase } from "../support/database.js";
import { clean, crowdOfWorkers, registerTestWorker, seedIteration } from "../support/iterations.js";
import { expectConsistentRun } from "../support/options-run.js";

describe("UCI-option mode: draws without a lock, θ moved by the master alone", () => {
  const database = useMigratedDatabase(4);

  it("keeps θ one replayable chain with 20 connections drawing, reporting and expiring while the master applies", async () => {
    const sql = database.sql;
    const target = 240;
    const gamesPerIteration = 16;
    const { run, iteration } = await seedIteration(sql, { runName: "async", targetGames: target, batchSize: 4 });
    const parameters = { X: { min: 0, max: 10, step: 1, type: "float" as const, frozen: false, option: "X", optionScale: undefined } };
    const gains = { a: 2, c: 1, A: 2, alpha: 0.602, gamma: 0.101, maxIterations: target / gamesPerIteration };
    await insertOptionRun(sql, { runId: run.id, iterationId: iteration.id, enginePath: "/x", engineSha256: "x", parameters, gains, gamesPerIteration });
    const names = Array.from({ length: 20 }, (_, i) => `async-${i}`);
    for (const name of names) await registerTestWorker(sql, name);
    let applying = true;
    const master = (async () => {
      while (applying) {
        await applyReports(sql, run.id);
        await new Promise((resolve) => setTimeout(resolve, 3));
      }
    })();
    let late = 0;
    const w = (name: string) => names.indexOf(name);
    try {
      await crowdOfWorkers(
        database.url,
        names,
        iteration.id,
        (db, name, round) => claimBatch(db, name, 2 + 2 * ((w(name) + round) % 3), 60, drawOnClaim),
        async (db, name, batch, round) => {
          expect(batch.plusOptions).toBeDefined();
          const kind = (w(name) + round) % 3;
          const wins = kind === 0 ? batch.games : kind === 1 ? 0 : batch.games / 2;
          const report: BatchReport = { batchId: batch.batchId, workerName: name, wins, losses: batch.games - wins, draws: 0, pairs: [0, 0, batch.games / 2, 0, 0], ...clean() };
          if ((w(name) * 5 + round) % 9 === 0) {
            // A dead worker: its lease runs out, its draw is dropped and its late report refused.
            await db`update spsa_batch set lease_expires_at = now() - interval '1 second' where id = ${batch.batchId}`;
            await expireLeases(db);
            expect(await reportBatch(db, report)).toBe("refused");
            late++;
          } else {
            expect(await reportBatch(db, report)).toBe("accepted");
          }
        },
      );
    } finally {
      applying = false;
      await master;
    }
    await applyReports(sql, run.id);
    expect(late).toBeGreaterThan(0);

    const [{ seed } = { seed: "" }] = await sql<{ seed: string }[]>`select seed from spsa_run where id = ${run.id}`;
    // Every draw as the formulas give it from its θ before, every reported one applied once, one chain to the run's θ.
    const final = await expectConsistentRun(sql, "async", seed);
    expect(final.X).not.toBe(1);
    const rows = await sql<{ applied: number | null; status: string; k: number; before: number; games: number }[]>`
      select p.applied_number as applied, b.status, p.k, b.games_before as before, p.games
      from spsa_perturbation p join spsa_batch b on b.id = p.batch_id where p.run_id = ${run.id} order by p.applied_number`;
    const done = rows.filter((r) => r.status === "done");
    expect(done.map((r) => r.applied)).toEqual(done.map((_, i) => i + 1));
    expect(done.reduce((n, r) => n + r.games, 0)).toBe(target);
    // Each draw's place in the schedule is its batch's place in the iteration, however many were drawn before.
    for (const r of rows) expect(r.k).toBe(scheduleStep(r.before, gamesPerIteration, gains.maxIterations));
  }, 120_000);
});
