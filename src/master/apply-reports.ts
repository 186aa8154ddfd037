import type postgres from "postgres";
import { foldBatches, tellWatchers } from "../db/batches.js";
import {
  dropUnplayedValues,
  lastReportedBatches,
  lockOptionFold,
  optionRunOf,
  recordApplied,
  setRunTheta,
  thetaArray,
  unfoldedBatches,
  type OptionRunRow,
  type UnfoldedBatch,
} from "../db/option-runs.js";
import { fromSetAsideWorker, holdSetAsideReports } from "../db/worker-decisions.js";
import { currentTheta, writesTheta, type HeldTheta } from "./held-theta.js";
import { applyBatch, batchStepFactor, batchWindow, paramsAt } from "../spsa/option-batches.js";
import { pilotBatchScale } from "../spsa/option-pilot.js";
import { pilotFactor } from "../db/option-pilot.js";
import type { DrawnResult, Values } from "../types/spsa.js";

/** Batches folded per transaction: a long backlog moves θ in several short steps. */
const FOLD_LIMIT = 500;

/** A reported batch whose draw has not moved θ yet. */
type Unapplied = UnfoldedBatch & { ak: number; plus: Values; minus: Values };
const unapplied = (b: UnfoldedBatch): b is Unapplied =>
  b.status === "done" && !b.applied && !b.pilot && b.ak !== null && b.plus !== null && b.minus !== null;

/**
 * The UCI-option master's fold: moves θ by every reported batch not applied yet, in the order
 * they were reported, each once, records per batch its result, its step scale and its place in
 * the chain (applied_number; at every theta_every-th place θ after it), drops the values it
 * played (the replay draws them again: src/spsa/option-chain.ts), and adds the batches to the
 * carrier iteration's counters, all in one transaction (src/db/batches.ts foldBatches: a batch
 * is marked folded as it is added). θ has this one writer, so reports never wait for each other
 * and a replay of applyBatch over the recorded rows gives the same chain; a fold killed midway
 * rolls back whole and the next one redoes it. Each transaction reads what its batches need
 * (them, θ once, and the adaptive window once), never the whole run; a poll with nothing
 * reported reads no θ. The curvature pilot's batches are counted, not applied, and its factor
 * raises the scales of the others (src/master/option-pilot.ts). Reports of workers under
 * suspicion or rejected are set aside first, never applied (docs/bad-workers.md). Returns the
 * reports applied.
 */
export async function applyReports(
  sql: postgres.Sql,
  runOrId: number | OptionRunRow,
  held?: HeldTheta,
): Promise<number> {
  // The master passes the run it holds: a large run's parameter list is not read again at every poll.
  const run = typeof runOrId === "number" ? await optionRunOf(sql, runOrId) : runOrId;
  if (!run) throw new Error(`run ${String(runOrId)} has no option settings`);
  const { runId } = run;
  const adaptive = run.gains.adaptive !== undefined && run.gains.adaptive.mode !== "off";
  const windowOf = (games: number) => batchWindow(run.gains, run.gamesPerIteration, games);
  let total = 0;
  for (;;) {
    const { applied, folded, moved, after } = await sql.begin(async (tx) => {
      const nothing = { applied: 0, folded: 0, moved: false, after: undefined };
      if (!(await lockOptionFold(tx, run))) return nothing;
      // Under the locks: the reports of workers under suspicion are set aside first (src/db/worker-decisions.ts),
      // and one that lands after that statement is skipped, for the next fold to hold.
      await holdSetAsideReports(tx, runId, run.iterationId, false);
      const batches = await unfoldedBatches(tx, run, FOLD_LIMIT, fromSetAsideWorker(tx, runId));
      if (batches.length === 0) return nothing;
      const toApply = batches.filter(unapplied);
      let after: { applied: number; theta: Values; written: boolean } | undefined;
      if (toApply.length > 0) {
        const { theta: start, applied: before } = await currentTheta(tx, run, held);
        // The adaptive gains of each batch come from the batches applied before it: read once, then
        // carried along as this transaction applies more.
        const recent: DrawnResult[] = adaptive
          ? await lastReportedBatches(tx, runId, before, Math.max(...toApply.map((b) => windowOf(b.games))))
          : [];
        // Raised by the curvature pilot's factor once it is measured (src/master/option-pilot.ts).
        const factor = adaptive && (run.pilotGames ?? 0) > 0 ? await pilotFactor(tx, runId) : undefined;
        let theta: Values = start;
        for (const [i, report] of toApply.entries()) {
          const counts = { plusWins: report.plusWins, minusWins: report.minusWins, draws: report.draws };
          const scale = pilotBatchScale(
            batchStepFactor(
              recent.slice(Math.max(0, recent.length - windowOf(report.games))),
              run.gains,
              run.gamesPerIteration,
            ),
            run.gains,
            factor,
          );
          const result = applyBatch(paramsAt(run, theta), report, counts, run.gains, run.gamesPerIteration, scale);
          // Every parameter's new value: θ whole, without copying the old one.
          theta = result.newValues;
          const appliedNumber = before + i + 1;
          const stored = appliedNumber % run.thetaEvery === 0 ? thetaArray(run.names, theta) : null;
          await recordApplied(tx, {
            batchId: report.batchId,
            appliedNumber,
            report,
            elo: result.elo,
            stepScale: scale ?? 1,
            thetaAfter: stored,
          });
          if (adaptive) recent.push({ ...counts, drawNumber: report.drawNumber ?? report.batchId });
        }
        const last = before + toApply.length;
        const written = writesTheta(run, held, last) || toApply.some((_, i) => (before + i + 1) % run.thetaEvery === 0);
        if (written) await setRunTheta(tx, runId, theta, last);
        after = { applied: last, theta, written };
      }
      await dropUnplayedValues(tx, runId);
      const moved = await foldBatches(
        tx,
        run.iterationId,
        batches.map((b) => b.batchId),
      );
      return { applied: toApply.length, folded: batches.length, moved, after };
    });
    // Held once the fold committed: a rolled back fold leaves the held θ as it was.
    if (after) held?.hold(after.applied, after.theta, after.written);
    if (moved) await tellWatchers(sql, run.iterationId);
    total += applied;
    if (folded < FOLD_LIMIT) return total;
  }
}
