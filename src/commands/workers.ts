import { operatorName } from "../core/operator.js";
import { InputError } from "../core/errors.js";
import { didYouMean } from "../core/suggest.js";
import { printable } from "../core/printable.js";
import { latestDecisions, recordDecision, runWorkerNames } from "../db/worker-decisions.js";
import { openDatabase } from "../postgres/connection.js";
import { requireRun } from "../status/run-lookup.js";
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

/**
 * `spsa workers accept|reject NAME --name RUN` (docs/bad-workers.md): an operator's decision about
 * a worker in a run, recorded with who and when. Accepted: the master applies its batches again
 * and does not flag it again in this run. Rejected: its batches stay set aside in this run (take
 * what it reported before out of θ with spsa undo --worker).
 */
export async function workersCommand(options: WorkersCommandOptions): Promise<void> {
  const out = options.out ?? ((line: string) => process.stdout.write(`${line}\n`));
  const database = await openDatabase(databaseOptionsFrom(options.config));
  try {
    const run = await requireRun(database.sql, options.name);
    const known = await runWorkerNames(database.sql, run.id);
    if (!known.includes(options.worker)) {
      throw new InputError(
        "NAME",
        `no worker "${printable(options.worker)}" in run ` +
          `"${run.name}"${didYouMean(options.worker, known)}${known.length > 0 ? ` (workers: ${known.slice(0, 8).map(printable).join(", ")}${known.length > 8 ? ", …" : ""})` : ""}`,
      );
    }
    const before = (await latestDecisions(database.sql, run.id)).find((d) => d.workerName === options.worker);
    const who = operatorName();
    await recordDecision(database.sql, {
      runId: run.id,
      workerName: options.worker,
      decision: options.decision,
      reason: options.note ?? `${options.decision} by an operator`,
      who,
    });
    const was = before ? ` (was ${before.decision} since ${before.createdAt.toISOString()})` : "";
    out(
      options.decision === "accepted"
        ? `run "${run.name}": worker ${printable(options.worker)} accepted by ${who}${was}: the ` +
            `master applies its batches again and does not flag it again in this run`
        : `run "${run.name}": worker ${printable(options.worker)} rejected by ${who}${was}: its ` +
            `batches stay set aside in this run; ` +
            `take what it reported before out of θ with spsa undo --worker ` +
            `${printable(options.worker)} --name ${run.name}, and revoke its machine's URL (spsa ` +
            `db worker-url --name MACHINE --revoke)`,
    );
  } finally {
    await database.close();
  }
}
