import { valuesOf, type Param } from "../params/params.js";
import { markRunComplete } from "../db/runs.js";
import { readThetaAfter } from "../db/iterations.js";
import { tailAverage } from "../spsa/trajectory.js";
import type { Values } from "../types/spsa.js";
import { describeShipCheck } from "../verification/ship-text.js";
import { sweepRun, syncParamsFile, type MasterContext, type MasterSummary } from "./run-setup.js";
import { runShipCheck } from "./ship-check.js";
import { finishTransfers } from "./transfer.js";

/**
 * Ends a run whose `iterations` are all applied: its transfers finished, the run marked
 * complete, its final θ (averaged with `[spsa] average_tail`) or the ship check's candidate
 * written to params.toml, and every engine swept.
 */
export async function finishRun(
  master: MasterContext,
  params: Param[],
  iterations: number,
  initial: Values,
): Promise<MasterSummary> {
  const { options, run, db, log } = master;
  await finishTransfers(master, params);
  await db.retrying(() => options.lease.transaction((tx) => markRunComplete(tx, run.id)));
  log(`run "${run.name}" complete: ${iterations} iterations`);
  const final = await finalValues(master, params, iterations);
  const shipped = await shipCandidate(master, params);
  // A complete run keeps no engine: the final θ's is rebuilt from θ if ever needed (docs/results.md).
  await sweepRun(master, true);
  return { runName: run.name, iterations, initial, final: shipped ?? final };
}

/**
 * With a ship check (`[ship]`, or one a killed master left running; both modes): its chosen candidate,
 * written to params.toml, and its verdict said; a candidate that did not pass is said as a warning.
 */
export async function shipCandidate(master: MasterContext, params: Param[]): Promise<Values | undefined> {
  const { options, log } = master;
  const check = await runShipCheck(master, params);
  if (!check?.chosenParameters) return undefined;
  log(describeShipCheck(check));
  syncParamsFile(options.paramsFile, check.chosenParameters, () => {});
  log(`${options.paramsFile}: the ship check's candidate (${check.chosen})`);
  if (check.verdict !== "pass")
    log(
      `warning: the shipped candidate did not pass its test against the start θ ` +
        `(${check.verdict ?? "no verdict"}): keep testing before you ship it`,
    );
  return check.chosenParameters;
}

/**
 * What the run hands back: its last θ, or with `[spsa] average_tail` the mean of θ over that
 * share of the last iterations (Polyak–Ruppert), written to params.toml. The database keeps
 * the last θ (spsa_run.current_parameters), so the run's history stays as it was played.
 */
async function finalValues(
  { options, run, db, log }: MasterContext,
  params: Param[],
  iterations: number,
): Promise<Values> {
  const { averageTail } = options.config.spsa;
  if (averageTail === 0 || iterations === 0) return valuesOf(params);
  // θ after each tuner iteration as its step left it (with iterations in flight, the next one's base is older θ).
  const thetas = await db.retrying((sql) => readThetaAfter(sql, run.id));
  const averaged = tailAverage(thetas.length > 0 ? thetas : [valuesOf(params)], averageTail);
  syncParamsFile(options.paramsFile, averaged, () => {});
  const points = Math.max(1, thetas.length);
  log(
    `${options.paramsFile}: θ averaged over the last ` +
      `${Math.max(1, Math.ceil(averageTail * points))} of ${points} iterations ([spsa] ` +
      `average_tail ${averageTail})`,
  );
  return averaged;
}
