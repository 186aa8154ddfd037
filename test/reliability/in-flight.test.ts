import { copyFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  expectExactCounts,
  expectRunFinal,
  iterationsOf,
  replayTheta,
  startMaster,
  startWorker,
} from "../support/processes.js";
import { useRunFixture } from "../support/run-fixture.js";

const ITERATIONS = 8;

describe("build mode with iterations in flight, three workers", () => {
  // Batches of 4, so the curvature pilot runs (iteration 1 plays θ+ and θ− each against θ₀).
  const fixture = useRunFixture({ iterations: ITERATIONS, games: 8, batchSize: 4, timelow: 0.005, timehigh: 0.01 });

  // The bound covers cargo building sixteen engines on a busy machine; nothing waits for it.
  it(
    "opens most iterations before the one before them completes, plays them at once, and counts every game once",
    { timeout: 900_000 },
    async () => {
      const { setup, env, sql } = fixture;
      const initialParams = join(setup.dir, "initial-params.toml");
      copyFileSync(setup.paramsFile, initialParams);
      const workers = ["a", "b", "c"].map((name) => startWorker(setup, env, name));
      try {
        const master = await startMaster(setup, env, "in-flight", ["--seed", "f"]);
        expect(master.exitCode, master.all).toBe(0);
        // Games reported while the master built the next iteration are folded at once: its rate
        // counts from that fold, not from 0, so no progress line claims thousands of games a minute.
        const rates = [...(master.all ?? "").matchAll(/([\d.]+) games\/min/g)].map((m) => Number(m[1]));
        expect(rates.length).toBeGreaterThan(0);
        expect(Math.max(...rates), master.all).toBeLessThan(5_000);
      } finally {
        for (const worker of workers) worker.kill("SIGTERM");
        await Promise.all(workers);
      }

      const rows = await iterationsOf(sql, "in-flight");
      expect(rows.map((r) => r.iteration_number)).toEqual(Array.from({ length: ITERATIONS }, (_, i) => i + 1));
      expectExactCounts(rows, expect);
      // Opened before the iteration before it completed, and recorded so: iteration 2 waits for the
      // curvature pilot (iteration 1), the others need not wait for anything.
      const overlapping = rows.filter((row, i) => i > 0 && row.created_at < rows[i - 1]!.completed_at!);
      expect(overlapping.length).toBeGreaterThan((ITERATIONS - 2) / 2);
      expect(overlapping.map((r) => r.iteration_number)).not.toContain(2);
      for (const row of overlapping)
        expect(row.staleness, `iteration ${row.iteration_number}`).toBeGreaterThanOrEqual(1);
      expect(rows[1]?.staleness).toBe(0);
      // Games of an iteration claimed (so started) before the step of the one before it was applied:
      // played at once. (Whether one is also reported before that step depends on the machine's load.)
      const [early] = await sql<{ n: number }[]>`
      select count(distinct i.id)::int as n from spsa_iteration i
        join spsa_iteration before on before.run_id = i.run_id and before.iteration_number = i.iteration_number - 1
        join spsa_batch b on b.iteration_id = i.id and b.status = 'done'
      where b.claimed_at < before.completed_at`;
      expect(early?.n).toBeGreaterThan(0);
      // For docs/in-flight.md: what this run did.
      console.info(
        `in flight: ${overlapping.length} of ${ITERATIONS - 1} iterations opened before the one before them completed (staleness ${rows.map((r) => r.staleness).join(" ")}); ${early?.n} had games claimed before that step`,
      );
      // Each step moved θ after the one before it; each perturbation was drawn from the θ it recorded.
      const final = replayTheta(setup, initialParams, "f", rows, expect);
      await expectRunFinal(sql, setup, "in-flight", final, expect);
    },
  );
});
