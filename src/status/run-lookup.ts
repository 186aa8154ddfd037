import type postgres from "postgres";
import { didYouMean } from "../text/suggest.js";
import { findRun, listRuns, type RunRecord } from "../db/run-status.js";
import { InputError, SpsaError } from "../errors.js";

/**
 * The run a read-only command works on: the named one, or the most recently active tuning
 * run. An unknown name is bad input (exit 2) with the nearest run name suggested.
 */
export async function requireRun(sql: postgres.Sql, name: string | undefined): Promise<RunRecord> {
  const run = await findRun(sql, name);
  if (run) return run;
  const names = (await listRuns(sql)).map((r) => r.name);
  if (name === undefined || names.length === 0) {
    throw new SpsaError(`no tuning run in the database${name === undefined ? "" : ` (looked for "${name}")`}: start one with spsa master or spsa demo`);
  }
  throw new InputError("--name", `no run named "${name}"${didYouMean(name, names)} (runs: ${names.slice(0, 5).join(", ")}${names.length > 5 ? ", …" : ""})`);
}
