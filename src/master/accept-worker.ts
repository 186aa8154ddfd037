import type postgres from "postgres";
import { planThenCommit } from "../db/dry-run.js";
import { restoreHeldBatches } from "../db/fold.js";
import { lockOpenIteration } from "../db/iteration-lock.js";
import { optionRunOf, setRunTheta } from "../db/option-run.js";
import { heldReports, type HeldReport } from "../db/recorded-batches.js";
import { runLeaseOwner, type RunLeaseOwner } from "../db/runs.js";
import { lockRunTheta, recordDecision } from "../db/worker-decisions.js";
import { retakeSteps, rewriteChain } from "./recorded-theta.js";
import type { InsertedBatch, Values } from "../types/spsa.js";

/**
 * `spsa workers accept NAME --name RUN` (docs/bad-workers.md): the operator's acceptance, and the
 * worker's held batches given back, in one transaction, during the run or after it:
 *
 * - build mode: each held batch goes back into its iteration's counters (in an iteration not
 *   stepped yet, the open batch its games were given out again in goes, unless a worker has
 *   claimed it), then every completed iteration's step is taken again in order from θ₀, as
 *   spsa undo takes them (src/master/recorded-theta.ts);
 * - UCI-option mode: each held batch goes back into the carrier's counters and into the chain of
 *   applied batches at the place of its report (before the first applied batch reported after it),
 *   and the chain is replayed from θ₀ with it, as spsa undo replays it without a batch.
 *
 * The run's row is locked first, then each iteration's fold lock, as spsa undo takes them: a
 * master running the run waits for the acceptance and goes on from the θ it wrote.
 */

export interface AcceptPlan {
  mode: "build" | "options";
  worker: string;
  /** The held batches given back, and their games. */
  batches: number;
  games: number;
  /** Build mode: games given back to iterations not stepped yet (counted, no step taken again for them). */
  countedGames: number;
  /** Build mode: completed iterations whose steps are taken again. */
  replayedSteps: number;
  /** The run's θ as spsa_run holds it before (what the master last wrote to its params file). */
  current: Values;
  thetaBefore: Values;
  thetaAfter: Values;
  /** A master that has the run's lease now (it writes its own params file from the database). */
  master: RunLeaseOwner | undefined;
}

export type AcceptOutcome = AcceptPlan & { applied: boolean };

/**
 * Records the acceptance and gives the worker's held batches back, committed only when `commit`
 * (called under the run's lock with everything already written in the transaction) says so;
 * else every row is rolled back (a dry run), the decision too.
 */
export async function acceptWorker(
  sql: postgres.Sql,
  run: { id: number; name: string },
  decision: { worker: string; reason: string; who: string },
  commit: (plan: AcceptPlan) => boolean = () => true,
): Promise<AcceptOutcome> {
  return planThenCommit(sql, (tx) => planAccept(tx, run, decision), commit);
}

async function planAccept(
  tx: postgres.TransactionSql,
  run: { id: number; name: string },
  decision: { worker: string; reason: string; who: string },
): Promise<AcceptPlan> {
  // The run's row first: no step of a master moves θ between what this reads and what it writes.
  const { initial, current } = await lockRunTheta(tx, run.id);
  const { worker } = decision;
  await recordDecision(tx, {
    runId: run.id,
    workerName: worker,
    decision: "accepted",
    reason: decision.reason,
    who: decision.who,
  });
  const optionRun = await optionRunOf(tx, run.id);
  const held = await heldReports(tx, run.id, worker, optionRun?.names);
  const owner = await runLeaseOwner(tx, run.id);
  const restored = { batches: 0, games: 0 };
  let countedGames = 0;
  let replayedSteps = 0;
  let thetaBefore = current;
  let theta = current;
  let applied: number | undefined;
  if (held.length > 0 && optionRun) {
    await lockOpenIteration(tx, optionRun.iterationId);
    Object.assign(
      restored,
      await restoreHeldBatches(
        tx,
        optionRun.iterationId,
        held.map((h) => h.batchId),
        false,
      ),
    );
    const chain = await rewriteChain(tx, optionRun, { removed: () => false, inserted: chainPlaces(held) });
    ({ thetaBefore, theta, applied } = chain);
  } else if (held.length > 0) {
    const byIteration = new Map<number, HeldReport[]>();
    for (const h of held) byIteration.set(h.iterationId, [...(byIteration.get(h.iterationId) ?? []), h]);
    for (const [iterationId, batches] of byIteration) {
      // An iteration not stepped yet counts the games and plays fewer; a stepped one is replayed below.
      const open = await lockOpenIteration(tx, iterationId);
      const moved = await restoreHeldBatches(
        tx,
        iterationId,
        batches.map((b) => b.batchId),
        open,
      );
      restored.batches += moved.batches;
      restored.games += moved.games;
      if (open) countedGames += moved.games;
    }
    ({ theta, replayedSteps } = await retakeSteps(tx, run.id, initial, current));
  }
  // A parameter the replay does not move keeps its θ.
  theta = { ...current, ...theta };
  if (held.length > 0) await setRunTheta(tx, run.id, theta, applied);
  return {
    mode: optionRun ? "options" : "build",
    worker,
    ...restored,
    countedGames,
    replayedSteps,
    current,
    thetaBefore,
    thetaAfter: theta,
    master: owner?.lapsed === false ? owner : undefined,
  };
}

/**
 * The held batches that go into the chain, each before the first applied batch reported after it,
 * in the order of those places (a batch reported after every applied one: at the end), then of
 * their reports.
 */
function chainPlaces(held: readonly HeldReport[]): InsertedBatch[] {
  const placed = held.flatMap((h) => (h.chain ? [h.chain] : []));
  const at = (b: InsertedBatch) => b.before ?? Number.MAX_SAFE_INTEGER;
  // A stable sort: batches of one place keep the order they were reported in.
  return placed.sort((x, y) => at(x) - at(y));
}
