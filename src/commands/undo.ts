import { operatorName } from "../core/operator.js";
import { InputError, throwProblems } from "../core/errors.js";
import { undoWorker, type UndoPlan } from "../master/undo-worker.js";
import { describeUndo, undoRefusals } from "../master/undo-plan.js";
import { syncParamsFile } from "../master/run-setup.js";
import { openDatabase } from "../postgres/connection.js";
import { requireRun } from "../status/run-lookup.js";
import { databaseOptionsFrom } from "./database-options.js";
import { judgeParamsFile, readParamsDoc, type ParamsVerdict } from "./params-rewrite.js";
import { DEFAULT_PARAMS_FILE } from "./master.js";

export interface UndoCommandOptions {
  config?: string;
  /** The run. */
  name: string;
  worker: string;
  params?: string;
  /** Commit the undo; without it, a dry run: what it would take out, and nothing changed (exit 2). */
  yes?: boolean;
  /** Allowed to take out every game θ holds in the run. */
  allGames?: boolean;
  /** Rewrite --params even if it does not hold the run's θ. */
  forceParams?: boolean;
  out?: (line: string) => void;
}

/**
 * `spsa undo --worker NAME --name RUN` (docs/bad-workers.md#undo): the worker's reported results
 * taken out of the run, θ recomputed from the recorded rows without them and written to the
 * database and the run's params file. Without --yes a dry run: the same undo computed in a
 * transaction that is rolled back, shown, and nothing changed. Safe while a master runs the run:
 * it goes on from the corrected θ.
 */
export async function undoCommand(options: UndoCommandOptions): Promise<void> {
  const out = options.out ?? ((line: string) => process.stdout.write(`${line}\n`));
  const file = options.params ?? DEFAULT_PARAMS_FILE;
  // params.toml is read before the database is touched: a file that cannot take θ changes nothing.
  const doc = readParamsDoc(file);
  const database = await openDatabase(databaseOptionsFrom(options.config));
  try {
    const run = await requireRun(database.sql, options.name);
    let params: ParamsVerdict | undefined;
    let refusals: InputError[] = [];
    // Decided under the run's lock, with the undo written in the transaction: committed only without a refusal.
    const commit = (plan: UndoPlan) => {
      params = judgeParamsFile(doc, plan, options.forceParams ?? false, run.name);
      refusals = [
        ...params.refusals,
        ...undoRefusals(plan, { yes: options.yes ?? false, allGames: options.allGames ?? false, runName: run.name }),
      ];
      return refusals.length === 0;
    };
    const outcome = await undoWorker(database.sql, run, options.worker, operatorName(), commit);
    for (const line of describeUndo(outcome, { file, ...params! }, run.name)) out(line);
    if (outcome.applied && params!.action.kind === "write") syncParamsFile(file, outcome.thetaAfter, () => {});
    throwProblems(refusals);
  } finally {
    await database.close();
  }
}
