import type postgres from "postgres";
import type { Sql } from "../postgres/sql.js";
import type { UnfoldedBatch } from "./fold.js";
import { thetaOfArray, valuesByName, type StoredValues } from "./stored-values.js";
import { replayAppliedChain } from "../spsa/option-chain.js";
import type { AppliedBatch, ChainRun, ChainStart, DrawnResult, Values } from "../types/spsa.js";

/**
 * SQL of a UCI-option run's applied chain: the batches whose reports moved θ, in the order they
 * moved it (spsa_perturbation.applied_number), each recorded as it is applied, and read back as
 * replayAppliedChain (src/spsa/option-chain.ts) takes them (docs/psql.md).
 */

/**
 * The batches applied so far, and after how many of them the run's θ (spsa_run.current_parameters)
 * was written (read under the fold's lock, so the two are what the last fold left).
 */
export async function appliedState(tx: Sql, runId: number): Promise<{ applied: number; thetaApplied: number }> {
  const [row] = await tx<{ applied: number; thetaApplied: number }[]>`
    select (select coalesce(max(applied_number), 0) from spsa_perturbation where run_id = ${runId})::int as applied,
      theta_applied as "thetaApplied"
    from spsa_option_run
    where run_id = ${runId}`;
  if (!row) throw new Error(`run ${runId} is not a UCI-option run`);
  return row;
}

/**
 * The report's result and step scale, as the `appliedNumber`-th to move θ, and θ after it when
 * it is to be stored (`thetaAfter`, in the run's order; else null): inside the fold's
 * transaction. The values it played are dropped (the chain draws them again), but for a batch
 * with no drawn_from (rows of earlier versions, and draws an undo left behind): those stay.
 */
export async function recordApplied(
  tx: postgres.TransactionSql,
  r: {
    batchId: number;
    appliedNumber: number;
    report: UnfoldedBatch;
    elo: number;
    stepScale: number;
    thetaAfter: number[] | null;
  },
): Promise<void> {
  await tx`
    update spsa_perturbation
    set plus_wins = ${r.report.plusWins},
      minus_wins = ${r.report.minusWins},
      draws = ${r.report.draws},
      pairs = ${tx.json(r.report.pairs)},
      elo_diff = ${r.elo},
      step_scale = ${r.stepScale},
      theta_after = ${r.thetaAfter === null ? null : tx.array(r.thetaAfter)}::float8[],
      reported_at = ${r.report.reportedAt},
      applied_number = ${r.appliedNumber},
      plus_parameters = case when drawn_from is null then plus_parameters end,
      minus_parameters = case when drawn_from is null then minus_parameters end
    where batch_id = ${r.batchId}
      and applied_number is null`;
}

/**
 * The last `count` of the `applied` batches of a run that moved θ, in the order they moved it
 * (oldest first): a range of the run's applied numbers, read through their index.
 */
export async function lastReportedBatches(
  sql: Sql,
  runId: number,
  applied: number,
  count: number,
): Promise<DrawnResult[]> {
  return sql<DrawnResult[]>`
    select plus_wins as "plusWins", minus_wins as "minusWins", draws, draw_number as "drawNumber"
    from spsa_perturbation
    where run_id = ${runId}
      and applied_number > ${applied - count}
      and applied_number <= ${applied}
    order by applied_number`;
}

/** The run's applied chain from `start` on: what replayAppliedChain (src/spsa/option-chain.ts) takes. */
export interface AppliedChain {
  run: ChainRun;
  start: ChainStart;
  batches: AppliedBatch[];
}

/**
 * The applied chain of a UCI-option run, every read of it in one place: the run's parameter
 * list, gains and seed, the applied batches after `after` through `through` (default: all) in
 * applied order, each as stored (AppliedBatch, src/types/spsa.ts), and the start of their
 * replay: the latest stored θ (or θ₀) at or before every θ those batches were drawn from, with
 * the batches between it and `after` included (so the replay draws them all again). Reads the
 * batches' rows once, through (run_id, applied_number).
 */
export async function readAppliedChain(
  sql: Sql,
  runId: number,
  range: { after?: number; through?: number } = {},
): Promise<AppliedChain> {
  const [head] = await sql<
    (Omit<ChainRun, "seed" | "pilotFactor"> & {
      seed: string;
      pilotFactor: number | null;
      initial: Values;
      thetaEvery: number;
      applied: number;
    })[]
  >`
    select o.parameters,
      o.parameter_names as names,
      o.gains,
      o.games_per_iteration as "gamesPerIteration",
      o.theta_every as "thetaEvery",
      r.seed,
      (o.pilot->>'factor')::float8 as "pilotFactor",
      r.initial_parameters as initial,
      (select coalesce(max(applied_number), 0) from spsa_perturbation where run_id = ${runId})::int as applied
    from spsa_option_run o
    join spsa_run r on r.id = o.run_id
    where o.run_id = ${runId}`;
  if (!head) throw new Error(`run ${runId} is not a UCI-option run`);
  const run: ChainRun = {
    parameters: head.parameters,
    names: head.names,
    gains: head.gains,
    gamesPerIteration: head.gamesPerIteration,
    seed: head.seed,
    ...(head.pilotFactor !== null && { pilotFactor: head.pilotFactor }),
  };
  const through = Math.min(range.through ?? head.applied, head.applied);
  // A stored θ at or before `after` (θ₀ at 0); earlier while a batch to replay was drawn before it.
  let from = storedAtOrBefore(Math.min(range.after ?? 0, through), head.thetaEvery);
  let batches: AppliedBatch[];
  for (;;) {
    batches = await appliedBatches(sql, runId, run.names, from, through);
    const earliest = Math.min(
      from,
      ...batches.flatMap((b) => (b.played === null && b.drawnFrom !== null ? [b.drawnFrom] : [])),
    );
    if (earliest >= from) break;
    from = storedAtOrBefore(earliest, head.thetaEvery);
  }
  const theta = from === 0 ? head.initial : await storedTheta(sql, runId, run.names, from);
  // Only rows of earlier versions lack their step scale: it is computed again from the batches before them.
  const recent = batches.some((b) => b.stepScale === null) ? await lastReportedBatches(sql, runId, from, from) : [];
  return { run, start: { applied: from, theta, recent }, batches };
}

/**
 * θ of a UCI-option run after its first `applied` batches: replayed from the last θ stored at or
 * before them (src/spsa/option-chain.ts).
 */
export async function thetaAfterBatches(sql: Sql, runId: number, applied: number): Promise<Values> {
  const chain = await readAppliedChain(sql, runId, { after: applied, through: applied });
  return replayAppliedChain(chain.run, chain.start, chain.batches);
}

function storedAtOrBefore(n: number, every: number): number {
  return Math.max(0, n - (n % every));
}

async function storedTheta(sql: Sql, runId: number, names: readonly string[], n: number): Promise<Values> {
  const [row] = await sql<{ theta: number[] | null }[]>`
    select theta_after as theta
    from spsa_perturbation
    where run_id = ${runId}
      and applied_number = ${n}`;
  if (!row?.theta) throw new Error(`run ${runId} has no θ stored after batch ${n}`);
  return thetaOfArray(names, row.theta);
}

async function appliedBatches(
  sql: Sql,
  runId: number,
  names: readonly string[],
  after: number,
  through: number,
): Promise<AppliedBatch[]> {
  const rows = await sql<
    (Omit<AppliedBatch, "result" | "played" | "thetaAfter" | "signs"> & {
      signs: string;
      plusWins: number;
      minusWins: number;
      draws: number;
      plus: StoredValues | null;
      minus: StoredValues | null;
      theta: number[] | null;
    })[]
  >`
    select p.applied_number as "appliedNumber",
      p.batch_number as "batchNumber",
      p.draw_number as "drawNumber",
      p.worker_name as "workerName",
      p.games,
      b.games_before as "gamesBefore",
      p.drawn_from as "drawnFrom",
      p.k,
      p.c_k as ck,
      p.a_k as ak,
      p.signs,
      p.step_scale as "stepScale",
      p.plus_wins as "plusWins",
      p.minus_wins as "minusWins",
      p.draws,
      p.elo_diff as elo,
      p.plus_parameters as plus,
      p.minus_parameters as minus,
      p.theta_after as theta
    from spsa_perturbation p
    join spsa_batch b on b.id = p.batch_id
    where p.run_id = ${runId}
      and p.applied_number > ${after}
      and p.applied_number <= ${through}
    order by p.applied_number`;
  return rows.map(({ plusWins, minusWins, draws, plus, minus, theta, ...row }) => ({
    ...row,
    result: { plusWins, minusWins, draws },
    played: plus && minus ? { plus: valuesByName(names, plus), minus: valuesByName(names, minus) } : null,
    thetaAfter: theta ? thetaOfArray(names, theta) : null,
  }));
}
