import type postgres from "postgres";
import { foldIteration, type UnfoldedBatch } from "../db/fold.js";
import { dropUnplayedValues } from "../db/draw-pool-rows.js";
import { lastReportedBatches, recordApplied } from "../db/applied-chain.js";
import { optionRunOf, setRunTheta, type OptionRunRow } from "../db/option-run.js";
import { thetaArray } from "../db/stored-values.js";
import { pilotFactor } from "../db/option-pilot.js";
import { currentTheta, writesTheta, type CachedTheta } from "./cached-theta.js";
import { paramsAt } from "../spsa/option-batches.js";
import { BatchSteps, batchWindow } from "../spsa/batch-step.js";
import type { Values } from "../types/spsa.js";

/** Batches folded per transaction: a long backlog moves θ in several short steps. */
const FOLD_LIMIT = 500;

/** A reported batch whose draw has not moved θ yet. */
type Unapplied = UnfoldedBatch & { ak: number; plus: Values; minus: Values };
const unapplied = (b: UnfoldedBatch): b is Unapplied =>
  b.status === "done" && !b.applied && !b.pilot && b.ak !== null && b.plus !== null && b.minus !== null;

/**
 * What a fold's transaction applied: its batches (count), θ after the `applied` batches so far, and
 * whether the run's row holds it.
 */
interface Applied {
  count: number;
  applied: number;
  theta: Values;
  written: boolean;
}

/**
 * The UCI-option master's fold (src/db/fold.ts foldIteration, with its steps): moves θ by every
 * reported batch not applied yet, in the order they were reported, each once, records per batch
 * its result, its step scale and its place in the chain (applied_number; at every theta_every-th
 * place θ after it), drops the values it played (the replay draws them again:
 * src/spsa/option-chain.ts), and adds the batches to the carrier iteration's counters, all in one
 * transaction. θ has this one writer, so reports never wait for each other and a replay of the
 * recorded rows (BatchSteps, src/spsa/batch-step.ts) gives the same chain; a fold killed midway
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
  cached?: CachedTheta,
): Promise<number> {
  // The master passes the run it holds: a large run's parameter list is not read again at every poll.
  const run = typeof runOrId === "number" ? await optionRunOf(sql, runOrId) : runOrId;
  if (!run) throw new Error(`run ${String(runOrId)} has no option settings`);
  let total = 0;
  await foldIteration<Applied | undefined>(sql, run.iterationId, {
    runId: run.runId,
    reopen: false,
    steps: {
      limit: FOLD_LIMIT,
      names: run.names,
      apply: async (tx, batches) => {
        const toApply = batches.filter(unapplied);
        const after = toApply.length > 0 ? await applyInOrder(tx, run, toApply, cached) : undefined;
        await dropUnplayedValues(tx, run.runId);
        return after;
      },
      // Cached once the fold committed: a rolled back fold leaves the cached θ as it was.
      committed: (after) => {
        if (!after) return;
        cached?.keep(after.applied, after.theta, after.written);
        total += after.count;
      },
    },
  });
  return total;
}

/** In the fold's transaction: θ moved by each batch in turn, each recorded as the next place of the chain. */
async function applyInOrder(
  tx: postgres.TransactionSql,
  run: OptionRunRow,
  toApply: readonly Unapplied[],
  cached: CachedTheta | undefined,
): Promise<Applied> {
  const { runId } = run;
  const adaptive = run.gains.adaptive !== undefined && run.gains.adaptive.mode !== "off";
  const { theta: start, applied: before } = await currentTheta(tx, run, cached);
  // The adaptive gains of each batch come from the batches applied before it: read once, then
  // carried along as this transaction applies more; raised by the curvature pilot's factor
  // once it is measured (src/master/option-pilot.ts).
  const longestWindow = Math.max(...toApply.map((b) => batchWindow(run.gains, run.gamesPerIteration, b.games)));
  const recent = adaptive ? await lastReportedBatches(tx, runId, before, longestWindow) : [];
  const factor = adaptive && (run.pilotGames ?? 0) > 0 ? await pilotFactor(tx, runId) : undefined;
  const steps = new BatchSteps(run, factor, recent);
  let theta: Values = start;
  for (const [i, report] of toApply.entries()) {
    const result = { plusWins: report.plusWins, minusWins: report.minusWins, draws: report.draws };
    const { update, scale } = steps.step(paramsAt(run, theta), {
      ...report,
      result,
      drawNumber: report.drawNumber ?? report.batchId,
    });
    // Every parameter's new value: θ whole, without copying the old one.
    theta = update.newValues;
    const appliedNumber = before + i + 1;
    const stored = appliedNumber % run.thetaEvery === 0 ? thetaArray(run.names, theta) : null;
    await recordApplied(tx, {
      batchId: report.batchId,
      appliedNumber,
      report,
      elo: update.elo,
      stepScale: scale ?? 1,
      thetaAfter: stored,
    });
  }
  const last = before + toApply.length;
  const written = writesTheta(run, cached, last) || toApply.some((_, i) => (before + i + 1) % run.thetaEvery === 0);
  if (written) await setRunTheta(tx, runId, theta, last);
  return { count: toApply.length, applied: last, theta, written };
}
