import type postgres from "postgres";
import { planThenCommit } from "../db/dry-run.js";
import { setAsideBatches, type SetAside } from "../db/fold.js";
import { lockOpenIteration } from "../db/iteration-lock.js";
import { optionRunOf, setRunTheta } from "../db/option-run.js";
import { otherReports, workerReports } from "../db/recorded-batches.js";
import { runLeaseOwner, type RunLeaseOwner } from "../db/runs.js";
import { beginUndo, finishUndo, lockRunTheta } from "../db/worker-decisions.js";
import { InputError } from "../core/errors.js";
import { retakeSteps, rewriteChain } from "./recorded-theta.js";
import type { Values } from "../types/spsa.js";

/**
 * `spsa undo --worker` (docs/bad-workers.md): takes a worker's reported results out of a run and
 * recomputes θ from the recorded rows without them, in one transaction:
 *
 * - build mode: the worker's batches leave their iterations' counters (in an iteration not
 *   stepped yet their games are played again), then every completed iteration's step is taken
 *   again in order with its recorded a_k, plus, minus and settings, from θ₀;
 * - UCI-option mode: the worker's batches leave the chain of applied batches (and the carrier's
 *   counters: their games are drawn again), and the chain is applied again without them, each
 *   batch with the values it played (replayed from the rows: src/spsa/option-chain.ts) and its
 *   result; the drawn batches no worker has claimed yet are dropped, as they were drawn around
 *   the old θ.
 *
 * The run's row is locked first, as a master's step locks it (src/db/iterations.ts
 * completeIteration, src/master/apply-reports.ts), then each iteration's fold lock: a master
 * running the run waits for the undo, or the undo for its step, and goes on from the corrected θ.
 */

export interface UndoResult {
  undoId: number;
  mode: "build" | "options";
  batches: number;
  games: number;
  thetaBefore: Values;
  thetaAfter: Values;
}

/** An undo as computed under the run's lock, before it commits: what it takes out and what it leaves. */
export interface UndoPlan extends UndoResult {
  worker: string;
  /** The run's θ as spsa_run holds it before the undo (what the master last wrote to its params file). */
  current: Values;
  /** What θ keeps of the other workers; no batch: the undo takes every game the run holds. */
  others: { batches: number; games: number };
  /** Build mode: the completed iterations whose steps are taken again, and the games opened again to be played. */
  replayedSteps: number;
  reopenedGames: number;
  /** A master that has the run's lease now (it writes its own params file from the database). */
  master: RunLeaseOwner | undefined;
}

/** An undo that ran: committed (`applied`), or rolled back after it was computed (a dry run, or refused). */
export type UndoOutcome = UndoPlan & { applied: boolean };

/**
 * Computes the undo in one transaction and commits it only when `commit` (called under the run's
 * lock, with everything the undo would write already written in the transaction) says so; else
 * every row is rolled back, so a dry run computes exactly what the undo would do and changes
 * nothing. `commit` may throw to refuse, which rolls back too.
 */
export async function undoWorker(
  sql: postgres.Sql,
  run: { id: number; name: string },
  worker: string,
  who: string,
  commit: (plan: UndoPlan) => boolean = () => true,
): Promise<UndoOutcome> {
  return planThenCommit(sql, (tx) => planUndo(tx, run, worker, who), commit);
}

async function planUndo(
  tx: postgres.TransactionSql,
  run: { id: number; name: string },
  worker: string,
  who: string,
): Promise<UndoPlan> {
  // The run's row first: no step of a master moves θ between what this reads and what it writes.
  const { undoId, initial, current } = await beginUndo(tx, run.id, worker, who);
  const others = await otherReports(tx, run.id, worker);
  const owner = await runLeaseOwner(tx, run.id);
  const out = await takeOut(tx, run.id, [worker], { undoId }, { initial, current });
  if (out === null) {
    throw new InputError(
      "--worker",
      `worker "${worker}" has no reported batch in run "${run.name}" that θ still holds (none, or ` +
        `all held or taken out already)`,
    );
  }
  await finishUndo(tx, undoId, out.taken, out.thetaBefore, out.theta);
  return {
    undoId,
    mode: out.mode,
    worker,
    ...out.taken,
    thetaBefore: out.thetaBefore,
    thetaAfter: out.theta,
    current,
    others,
    replayedSteps: out.replayedSteps,
    reopenedGames: out.reopenedGames,
    master: owner?.lapsed === false ? owner : undefined,
  };
}

/**
 * The master's hold of a suspect (docs/bad-workers.md): the batches of `workers` (the suspect and
 * its machine's other names) that θ still holds are held, as its later ones are, and θ is
 * recomputed without them, as spsa undo recomputes it; spsa workers accept gives them back. Taken
 * when the worker is flagged, not at the run's end: the others' batches played while a liar's
 * push stood would pull θ back from it, and an undo at the end keeps that pull and overshoots.
 * Nothing to hold: null, nothing written.
 */
export async function holdReportedBatches(
  sql: postgres.Sql,
  runId: number,
  workers: readonly string[],
): Promise<{ batches: number; games: number; thetaBefore: Values; thetaAfter: Values } | null> {
  return sql.begin(async (tx) => {
    const run = await lockRunTheta(tx, runId);
    const out = await takeOut(tx, runId, workers, { held: true }, run);
    return out && { ...out.taken, thetaBefore: out.thetaBefore, thetaAfter: out.theta };
  });
}

/**
 * Takes the batches of `workers` that θ holds out of the run, marked `mark`, and writes θ
 * recomputed without them, under the run's row lock (taken by the caller, which read θ₀ and θ
 * under it). Null when θ holds none of them.
 */
async function takeOut(
  tx: postgres.TransactionSql,
  runId: number,
  workers: readonly string[],
  mark: SetAside,
  { initial, current }: { initial: Values; current: Values },
) {
  const reports = (await Promise.all(workers.map((w) => workerReports(tx, runId, w)))).flat();
  if (reports.length === 0) return null;
  const optionRun = await optionRunOf(tx, runId);
  const taken = { batches: 0, games: 0 };
  let replayedSteps = 0;
  let reopenedGames = 0;
  let theta: Values;
  let thetaBefore = current;
  let applied: number | undefined;
  if (optionRun) {
    await lockOpenIteration(tx, optionRun.iterationId);
    Object.assign(
      taken,
      await setAsideBatches(
        tx,
        optionRun.iterationId,
        reports.map((r) => r.batchId),
        mark,
        false,
      ),
    );
    // The whole chain from θ₀ (the values its batches played follow from it), and the chain without them.
    const names = new Set(workers);
    const chain = await rewriteChain(tx, optionRun, { removed: (b) => names.has(b.workerName ?? ""), inserted: [] });
    ({ thetaBefore, theta, applied } = chain);
  } else {
    const byIteration = new Map<number, typeof reports>();
    for (const r of reports) byIteration.set(r.iterationId, [...(byIteration.get(r.iterationId) ?? []), r]);
    for (const [iterationId, batches] of byIteration) {
      // An iteration not stepped yet gets the games back to play; a stepped one is replayed below.
      const open = await lockOpenIteration(tx, iterationId);
      const moved = await setAsideBatches(
        tx,
        iterationId,
        batches.map((b) => b.batchId),
        mark,
        open,
      );
      taken.batches += moved.batches;
      taken.games += moved.games;
      if (open) reopenedGames += moved.games;
    }
    ({ theta, replayedSteps } = await retakeSteps(tx, runId, initial, current));
  }
  // A parameter the replay does not move (none of the remaining steps had it) keeps its θ.
  theta = { ...current, ...theta };
  await setRunTheta(tx, runId, theta, applied);
  return {
    mode: optionRun ? ("options" as const) : ("build" as const),
    taken,
    thetaBefore,
    theta,
    replayedSteps,
    reopenedGames,
  };
}
