import { operatorName } from "../core/operator.js";
import { InputError } from "../core/errors.js";
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
