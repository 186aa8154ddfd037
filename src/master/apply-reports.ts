import type postgres from "postgres";
import { foldBatches, tellWatchers } from "../db/batches.js";
import { lastReportedBatches, lockUnfoldedBatches, optionRunOf, recordApplied, setRunTheta, type UnfoldedBatch } from "../db/perturbations.js";
import { holdSetAsideReports } from "../db/worker-decisions.js";
import { applyBatch, batchStepScales, batchWindow, paramsAt } from "../spsa/option-batches.js";
import type { Values, ReportedBatch } from "../types/spsa.js";

/** Batches folded per transaction: a long backlog moves θ in several short steps. */
const FOLD_LIMIT = 500;

/** A reported batch whose draw has not moved θ yet. */
type Unapplied = UnfoldedBatch & { ak: number; plus: Values; minus: Values };
const unapplied = (b: UnfoldedBatch): b is Unapplied => b.status === "done" && !b.applied && b.ak !== null && b.plus !== null && b.minus !== null;

/**
 * The UCI-option master's fold: moves θ by every reported batch not applied yet, in the order
 * they were reported, each once, records per batch the θ it was applied to, the θ after and
 * its place in the chain (applied_number), and adds the batches to the carrier iteration's
 * counters, all in one transaction (src/db/batches.ts foldBatches: a batch is marked folded
 * as it is added). θ has this one writer, so reports never wait for each other and a replay
 * of applyBatch over the recorded rows gives the same chain; a fold killed midway rolls back
 * whole and the next one redoes it. Each transaction reads what its batches need (them, and
 * the adaptive window once), never the whole run. Reports of workers under suspicion or rejected
 * are set aside first, never applied (docs/bad-workers.md). Returns the reports applied.
 */
export async function applyReports(sql: postgres.Sql, runId: number): Promise<number> {
  const run = await optionRunOf(sql, runId);
  if (!run) throw new Error(`run ${runId} has no option settings`);
  const adaptive = run.gains.adaptive !== undefined && run.gains.adaptive.mode !== "off";
  const windowOf = (games: number) => batchWindow(run.gains, run.gamesPerIteration, games);
  let total = 0;
  for (;;) {
    const { applied, folded, moved } = await sql.begin(async (tx) => {
      const hold = () => holdSetAsideReports(tx, runId, run.iterationId, false);
      const { open, theta: start, applied: before, batches } = await lockUnfoldedBatches(tx, run, FOLD_LIMIT, hold);
      if (!open) return { applied: 0, folded: 0, moved: false };
      const toApply = batches.filter(unapplied);
      // The adaptive gains of each batch come from the batches applied before it: read once, then
      // carried along as this transaction applies more.
      const recent: ReportedBatch[] = adaptive && toApply.length > 0 ? await lastReportedBatches(tx, runId, before, Math.max(...toApply.map((b) => windowOf(b.games)))) : [];
      let theta: Values = start;
      for (const [i, report] of toApply.entries()) {
        const counts = { plusWins: report.plusWins, minusWins: report.minusWins, draws: report.draws };
        const scale = batchStepScales(run.parameters, recent.slice(Math.max(0, recent.length - windowOf(report.games))), run.gains, run.gamesPerIteration);
        const result = applyBatch(paramsAt(run.parameters, theta), report, counts, run.gains, run.gamesPerIteration, scale);
        const after = { ...theta, ...result.newValues };
        await recordApplied(tx, { batchId: report.batchId, appliedNumber: before + i + 1, report, elo: result.elo, thetaApplied: theta, thetaAfter: after });
        if (adaptive) recent.push(counts);
        theta = after;
      }
      if (toApply.length > 0) await setRunTheta(tx, runId, theta);
      const moved = await foldBatches(tx, run.iterationId, batches.map((b) => b.batchId));
      return { applied: toApply.length, folded: batches.length, moved };
    });
    if (moved) await tellWatchers(sql, run.iterationId);
    total += applied;
    if (folded < FOLD_LIMIT) return total;
  }
}
