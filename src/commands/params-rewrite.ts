import { readFileSync } from "node:fs";
import { InputError } from "../core/errors.js";
import { parseToml } from "../core/toml-file.js";
import { paramsFileAction, paramsRefusals, type ParamsFileAction } from "../master/undo-plan.js";
import type { RunLeaseOwner } from "../db/runs.js";
import { updateParamValues } from "../params/params-update.js";
import { thetaMismatches } from "../params/run-theta-file.js";
import type { Values } from "../types/spsa.js";

/**
 * The run's params file as spsa undo and spsa workers accept rewrite it with the θ they
 * recompute (docs/bad-workers.md#undo): read before the database is touched, and judged under
 * the run's lock against θ before the change.
 */

export interface ParamsDoc {
  file: string;
  text: string;
  data: ReturnType<typeof parseToml>;
}

/** Reads and parses the params file; a file that cannot be read is refused, naming --params. */
export function readParamsDoc(file: string): ParamsDoc {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new InputError(
      file,
      `cannot read it (${(error as Error).message}); give the run's parameters file with --params`,
    );
  }
  return { file, text, data: parseToml(file, text) };
}

/** What becomes of the params file, and its refusals (a file that cannot take θ after the change refuses it too). */
export interface ParamsVerdict {
  action: ParamsFileAction;
  mismatches: InputError[];
  refusals: InputError[];
}

export function judgeParamsFile(
  doc: ParamsDoc,
  change: { current: Values; thetaAfter: Values; master: RunLeaseOwner | undefined },
  force: boolean,
  runName: string,
): ParamsVerdict {
  const mismatches = thetaMismatches(doc, change.current, runName);
  const action = paramsFileAction(change, mismatches, force);
  const refusals = paramsRefusals({ action, mismatches }, doc.file, runName);
  if (action.kind === "write") {
    try {
      updateParamValues(doc.text, change.thetaAfter, doc.file);
    } catch (error) {
      if (!(error instanceof InputError)) throw error;
      refusals.unshift(error);
    }
  }
  return { action, mismatches, refusals };
}
