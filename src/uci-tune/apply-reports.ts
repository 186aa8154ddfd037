import type postgres from "postgres";
import type { Values } from "../spsa/math.js";
import { lastReportedBatches, lockUnappliedReports, optionRunOf, recordApplied, setRunTheta } from "../db/perturbations.js";
import { applyBatch, batchStepScales, batchWindow, paramsAt } from "./batch-math.js";

/** Reports applied per transaction: a long backlog moves θ in several short steps. */
const FOLD_LIMIT = 500;

/**
 * The UCI-option master's fold: moves θ by every reported batch not applied yet, in the order
 * they were reported, each once, and records per batch the θ it was applied to, the θ after,
 * and its place in the chain (applied_number). θ has this one writer, so reports never wait
 * for each other and a replay of applyBatch over the recorded rows gives the same chain; a
 * fold killed midway rolls back whole and the next one redoes it. Returns the reports applied.
 */
export async function applyReports(sql: postgres.Sql, runId: number): Promise<number> {
  const run = await optionRunOf(sql, runId);
  if (!run) throw new Error(`run ${runId} has no option settings`);
  let total = 0;
  for (;;) {
    const applied = await sql.begin(async (tx) => {
      const { theta: start, applied: before, reports } = await lockUnappliedReports(tx, runId, FOLD_LIMIT);
      let theta: Values = start;
      for (const [i, report] of reports.entries()) {
        const counts = { plusWins: report.plusWins, minusWins: report.minusWins, draws: report.draws };
        // Adaptive gains from the batches applied before this one (this transaction's included).
        const adaptive = run.gains.adaptive && run.gains.adaptive.mode !== "off";
        const recent = adaptive ? await lastReportedBatches(tx, runId, batchWindow(run.gains, run.gamesPerIteration, report.games)) : [];
        const scale = batchStepScales(run.parameters, recent, run.gains, run.gamesPerIteration);
        const result = applyBatch(paramsAt(run.parameters, theta), report, counts, run.gains, run.gamesPerIteration, scale);
        const after = { ...theta, ...result.newValues };
        await recordApplied(tx, { batchId: report.batchId, appliedNumber: before + i + 1, report, elo: result.elo, thetaApplied: theta, thetaAfter: after });
        theta = after;
      }
      if (reports.length > 0) await setRunTheta(tx, runId, theta);
      return reports.length;
    });
    total += applied;
    if (applied < FOLD_LIMIT) return total;
  }
}
