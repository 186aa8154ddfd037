import type postgres from "postgres";
import { appliedState, thetaAfterBatches } from "../db/applied-chain.js";
import { runTheta, setRunTheta, type OptionRunRow } from "../db/option-run.js";
import type { Values } from "../types/spsa.js";

/**
 * A large run's θ is written to spsa_run at most this long after it moved (and at every stored θ
 * and the run's end).
 */
export const THETA_WRITE_MS = 10_000;

/**
 * θ of a UCI-option run as its master caches it between polls: θ after `applied` batches. The
 * master draws from it and moves it by each report, so a large run's θ (hundreds of kilobytes at
 * 10,000 parameters) is neither read nor written at every batch: spsa_run.current_parameters is
 * written at every fold of a run that stores θ after every batch, and else at every stored θ and
 * at least every THETA_WRITE_MS. A master that finds more batches applied than it cached (it was
 * restarted, or another master folded) takes the written θ if it is that one, or replays the
 * chain from the last stored θ (src/spsa/option-chain.ts).
 */
export class CachedTheta {
  applied = -1;
  theta: Values = {};
  /** When θ was last written to the run, and after how many batches. */
  writtenAt = 0;
  writtenApplied = -1;

  keep(applied: number, theta: Values, written: boolean): void {
    this.applied = applied;
    this.theta = theta;
    if (written) {
      this.writtenAt = Date.now();
      this.writtenApplied = applied;
    }
  }
}

/**
 * θ after the batches applied so far, read under the fold's lock: the cached θ if it is that one,
 * else the written one, else replayed.
 */
export async function currentTheta(
  tx: postgres.TransactionSql,
  run: OptionRunRow,
  cached: CachedTheta | undefined,
): Promise<{ applied: number; theta: Values }> {
  const { applied, thetaApplied } = await appliedState(tx, run.runId);
  if (cached?.applied === applied) return { applied, theta: cached.theta };
  if (thetaApplied === applied) {
    const { theta } = await runTheta(tx, run.runId);
    cached?.keep(applied, theta, true);
    return { applied, theta };
  }
  const theta = await thetaAfterBatches(tx, run.runId, applied);
  cached?.keep(applied, theta, false);
  return { applied, theta };
}

/** Whether a fold that leaves θ after `applied` batches writes it to the run (see CachedTheta). */
export function writesTheta(run: OptionRunRow, cached: CachedTheta | undefined, applied: number): boolean {
  return (
    cached === undefined ||
    run.thetaEvery === 1 ||
    applied % run.thetaEvery === 0 ||
    Date.now() - cached.writtenAt >= THETA_WRITE_MS
  );
}

/**
 * Writes the cached θ to the run if it is newer than the one written (the run's end: params.toml
 * and status read it).
 */
export async function writeCachedTheta(sql: postgres.Sql, run: OptionRunRow, cached: CachedTheta): Promise<void> {
  if (cached.applied <= cached.writtenApplied) return;
  const written = await sql.begin(async (tx) => {
    // Under the fold's lock: only if no fold moved θ since (it holds the newer θ then).
    await tx`select id from spsa_run where id = ${run.runId} for no key update`;
    const { applied } = await appliedState(tx, run.runId);
    if (applied !== cached.applied) return false;
    await setRunTheta(tx, run.runId, cached.theta, cached.applied);
    return true;
  });
  if (written) cached.keep(cached.applied, cached.theta, true);
}
