import { operatorName } from "../core/operator.js";
import { InputError, throwProblems } from "../core/errors.js";
import { acceptWorker, type AcceptPlan } from "../master/accept-worker.js";
import { acceptRefusals, describeAccept, type AcceptParams } from "../master/accept-plan.js";
import { syncParamsFile } from "../master/run-setup.js";
import { DEFAULT_PARAMS_FILE } from "./master.js";
import { judgeParamsFile, readParamsDoc, type ParamsDoc } from "./params-rewrite.js";
import { didYouMean } from "../core/suggest.js";
import { printable } from "../core/printable.js";
import { workerReports } from "../db/recorded-batches.js";
import { rateWindowMinutes } from "../db/run-status.js";
import { latestDecisions, recordDecision, runWorkerNames, setAsideCounts } from "../db/worker-decisions.js";
import { openDatabase } from "../postgres/connection.js";
import { requireRun } from "../status/run-lookup.js";
import { readRunWorkers } from "../status/run-workers.js";
import { describeDecision, renderWorkerList } from "../status/workers-list.js";
import { databaseOptionsFrom } from "./database-options.js";

export interface WorkersCommandOptions {
  config?: string;
  /** The run. */
  name: string;
  worker: string;
  decision: "accepted" | "rejected";
  /** The operator's words, kept with the decision. */
  note?: string;
  /** Accept: the run's params file, rewritten when giving back held batches moves θ (as spsa undo's). */
  params?: string;
  /** Accept with held batches: commit; without it a dry run (exit 2), as spsa undo's. */
  yes?: boolean;
  forceParams?: boolean;
  out?: (line: string) => void;
}

/** Names a refusal lists. */
const NAMES_SHOWN = 8;

/**
 * `spsa workers accept|reject NAME --name RUN` (docs/bad-workers.md): an operator's decision about
 * a worker in a run, recorded with who and when. Accepted: the master applies its batches again
 * and does not flag it again in this run. Rejected: its batches stay set aside in this run (take
 * what it reported before out of θ with spsa undo --worker). Says what the decision changes, or
 * that it changes nothing (a worker nobody flagged, a finished run).
 */
export async function workersCommand(options: WorkersCommandOptions): Promise<void> {
  const out = options.out ?? ((line: string) => process.stdout.write(`${line}\n`));
  const database = await openDatabase(databaseOptionsFrom(options.config));
  try {
    const sql = database.sql;
    const run = await requireRun(sql, options.name);
    const known = await runWorkerNames(sql, run.id);
    if (!known.includes(options.worker)) {
      const listed = known.slice(0, NAMES_SHOWN).map(printable).join(", ");
      const more = known.length > NAMES_SHOWN ? `, … (spsa workers --name ${run.name} lists them)` : "";
      throw new InputError(
        `no worker "${printable(options.worker)}" in run "${run.name}"`,
        known.length === 0
          ? "no worker has reported a batch in it"
          : `its workers: ${listed}${more}${didYouMean(options.worker, known)}`,
      );
    }
    const before = (await latestDecisions(sql, run.id)).find((d) => d.workerName === options.worker);
    const reports = await workerReports(sql, run.id, options.worker);
    const held = (await setAsideCounts(sql, run.id)).find((c) => c.workerName === options.worker)?.held ?? 0;
    const who = operatorName();
    if (options.decision === "accepted" && held > 0) {
      await acceptHeld(sql, run, { ...options, who, before }, out);
      return;
    }
    await recordDecision(sql, {
      runId: run.id,
      workerName: options.worker,
      decision: options.decision,
      reason: options.note ?? `${options.decision} by an operator`,
      who,
    });
    out(
      describeDecision({
        runName: run.name,
        status: run.status,
        worker: options.worker,
        decision: options.decision,
        who,
        before: before && { decision: before.decision, at: before.createdAt },
        inTheta: { batches: reports.length, games: reports.reduce((sum, r) => sum + r.games, 0) },
        held,
      }),
    );
  } finally {
    await database.close();
  }
}

/**
 * Accepting a worker whose batches are held gives them back to θ (src/master/accept-worker.ts):
 * as spsa undo, computed in one transaction with the decision, committed with --yes (else a dry
 * run, exit 2) and only if the params file can take θ after it (when θ moves).
 */
async function acceptHeld(
  sql: Parameters<typeof acceptWorker>[0],
  run: { id: number; name: string },
  options: WorkersCommandOptions & { who: string; before: { decision: string; createdAt: Date } | undefined },
  out: (line: string) => void,
): Promise<void> {
  const file = options.params ?? DEFAULT_PARAMS_FILE;
  // Read before the database is touched; needed only if θ moves.
  let doc: ParamsDoc | InputError;
  try {
    doc = readParamsDoc(file);
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    doc = error;
  }
  let params: AcceptParams;
  let refusals: InputError[] = [];
  const commit = (plan: AcceptPlan) => {
    const moves = Object.keys(plan.thetaAfter).some((name) => plan.thetaAfter[name] !== plan.current[name]);
    refusals = acceptRefusals(plan, options.yes ?? false);
    params = undefined;
    if (moves && doc instanceof InputError) refusals.unshift(doc);
    else if (moves && !(doc instanceof InputError)) {
      const verdict = judgeParamsFile(doc, plan, options.forceParams ?? false, run.name);
      params = { file, ...verdict };
      refusals.unshift(...verdict.refusals);
    }
    return refusals.length === 0;
  };
  const outcome = await acceptWorker(
    sql,
    run,
    { worker: options.worker, reason: options.note ?? "accepted by an operator", who: options.who },
    commit,
  );
  const was = options.before
    ? `was ${options.before.decision} since ${options.before.createdAt.toISOString()}`
    : "nobody had flagged it";
  for (const line of describeAccept(outcome, params, { runName: run.name, who: options.who, was })) out(line);
  if (outcome.applied && params?.action.kind === "write") syncParamsFile(file, outcome.thetaAfter, () => {});
  throwProblems(refusals);
}

export interface WorkersListOptions {
  config?: string;
  /** The run; by default the run that started an iteration last. */
  name?: string;
  out?: (line: string) => void;
}

/** `spsa workers [--name RUN]`: the run's workers, their batches and games, and their state. */
export async function workersListCommand(options: WorkersListOptions): Promise<void> {
  const out = options.out ?? ((line: string) => process.stdout.write(`${line}\n`));
  const database = await openDatabase(databaseOptionsFrom(options.config));
  try {
    const run = await requireRun(database.sql, options.name);
    // The list shows no rate: the rate window is the status's for a run of its age.
    const minutes = rateWindowMinutes((Date.now() - run.createdAt.getTime()) / 1000);
    const { workers } = await readRunWorkers(database.sql, run.id, minutes, { keepStale: true });
    for (const line of renderWorkerList(run, workers)) out(line);
  } finally {
    await database.close();
  }
}
