import { readFileSync } from "node:fs";
import { operatorName } from "../core/operator.js";
import { InputError } from "../core/errors.js";
import { printable } from "../core/printable.js";
import { undoWorker } from "../master/undo-worker.js";
import { syncParamsFile } from "../master/run-setup.js";
import { updateParamValues } from "../params/params-update.js";
import { openDatabase } from "../postgres/connection.js";
import { requireRun } from "../status/run-lookup.js";
import { databaseOptionsFrom } from "./database-options.js";
import { DEFAULT_PARAMS_FILE } from "./master.js";

export interface UndoCommandOptions {
  config?: string;
  /** The run. */
  name: string;
  worker: string;
  params?: string;
  out?: (line: string) => void;
}

/**
 * `spsa undo --worker NAME --name RUN` (docs/bad-workers.md): the worker's reported results
 * taken out of the run, θ recomputed from the recorded rows without them and written to the
 * database and params.toml. Safe while a master runs the run: it goes on from the corrected θ.
 */
export async function undoCommand(options: UndoCommandOptions): Promise<void> {
  const out = options.out ?? ((line: string) => process.stdout.write(`${line}\n`));
  const paramsFile = options.params ?? DEFAULT_PARAMS_FILE;
  // params.toml is read before the database is touched: a file that cannot take θ changes nothing.
  let text: string;
  try {
    text = readFileSync(paramsFile, "utf8");
  } catch (error) {
    throw new InputError(
      paramsFile,
      `cannot read it (${(error as Error).message}); give the run's parameters file with --params`,
    );
  }
  const database = await openDatabase(databaseOptionsFrom(options.config));
  try {
    const run = await requireRun(database.sql, options.name);
    updateParamValues(text, run.currentParameters, paramsFile);
    const undone = await undoWorker(database.sql, run, options.worker, operatorName());
    out(
      `run "${run.name}": took worker ${printable(options.worker)}'s ${undone.batches} batches ` +
        `(${undone.games} games) out of θ ` +
        `and recomputed θ from the recorded ` +
        `${undone.mode === "build" ? "iterations" : "chain of applied batches"} without them (undo ${undone.undoId})`,
    );
    const moved = Object.keys(undone.thetaAfter)
      .filter((name) => undone.thetaAfter[name] !== undone.thetaBefore[name])
      .sort();
    for (const name of moved) out(`  ${name}: ${undone.thetaBefore[name]} → ${undone.thetaAfter[name]}`);
    if (moved.length === 0) out("  θ is unchanged");
    syncParamsFile(paramsFile, undone.thetaAfter, out);
  } finally {
    await database.close();
  }
}
