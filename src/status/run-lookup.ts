import type postgres from "postgres";
import { didYouMean } from "../core/suggest.js";
import { findRun, listRuns, type RunRecord } from "../db/run-status.js";
import { findTexelRun, type TexelRunRecord } from "../db/texel-runs.js";
import { InputError, SpsaError } from "../core/errors.js";

/**
 * The run a read-only command works on: the named one, or the most recently active tuning
 * run. An unknown name is bad input (exit 2) with the nearest run name suggested.
 */
export async function requireRun(sql: postgres.Sql, name: string | undefined): Promise<RunRecord> {
  const run = await findRun(sql, name);
  if (run) return run;
  const names = (await listRuns(sql)).map((r) => r.name);
  if (name === undefined || names.length === 0) {
    throw new SpsaError(
      `no tuning run in the database${name === undefined ? "" : ` (looked for "${name}")`}: start ` +
        `one with spsa master or spsa demo`,
    );
  }
  throw new InputError(
    "--name",
    `no run named "${name}"${didYouMean(name, names)} (runs: ` +
      `${names.slice(0, 5).join(", ")}${names.length > 5 ? ", …" : ""})`,
  );
}

/**
 * The Texel run `spsa status --texel` shows: the one with this id, or the latest. An id no
 * run has is bad input (exit 2); an empty texel_run is refused as requireRun refuses an
 * empty spsa_run.
 */
export async function requireTexelRun(sql: postgres.Sql, id: number | undefined): Promise<TexelRunRecord> {
  const run = await findTexelRun(sql, id);
  if (run) return run;
  const latest = id === undefined ? undefined : await findTexelRun(sql, undefined);
  if (latest === undefined) {
    throw new SpsaError(
      `no Texel run in the database${id === undefined ? "" : ` (looked for ${id})`}: spsa texel ` +
        `stores one when it finishes`,
    );
  }
  throw new InputError("--texel", `no Texel run ${id} (the latest is ${latest.id})`);
}
