import type postgres from "postgres";
import type { Sql } from "../postgres/sql.js";
import type { UnfoldedBatch } from "./fold.js";
import { thetaArray, thetaOfArray, valuesByName, type StoredValues } from "./stored-values.js";
import type {
  AppliedBatch,
  ChainRun,
  ChainStart,
  OptionDraw,
  OptionParams,
  DrawnResult,
  SpsaMathConfig,
  Values,
} from "../types/spsa.js";
import type { Pentanomial } from "../types/play.js";

/**
 * SQL of UCI-option mode: the run's option settings (its parameter list, stored once, in order),
 * and one spsa_perturbation row per drawn batch, compact once applied (docs/psql.md).
 */

export interface OptionRunRow {
  runId: number;
  iterationId: number;
  enginePath: string;
  engineSha256: string;
  parameters: OptionParams;
  /** The parameters in the run's order: signs and stored θ follow it. */
  names: string[];
  /** θ is stored after every this many applied batches. */
  thetaEvery: number;
  gains: SpsaMathConfig;
  gamesPerIteration: number;
  /** The master's signature of `parameters` for the run (src/signing/options-signature.ts); null in older rows until their master resumes. */
  parametersSignature: string | null;
  /** Games of the curvature pilot at the run's start (src/master/option-pilot.ts); 0 or absent: none. */
  pilotGames?: number;
}

const OPTION_RUN_COLUMNS = (sql: Sql) => sql`
  run_id as "runId", iteration_id as "iterationId", engine_path as "enginePath", engine_sha256 as "engineSha256",
  parameters, parameter_names as names, theta_every as "thetaEvery", gains, games_per_iteration as "gamesPerIteration",
  parameters_signature as "parametersSignature", pilot_games as "pilotGames"`;

export async function insertOptionRun(sql: Sql, row: OptionRunRow): Promise<void> {
  await sql`
    insert into spsa_option_run (run_id, iteration_id, engine_path, engine_sha256, parameters, parameter_names, theta_every, gains, games_per_iteration, parameters_signature, pilot_games)
    values (${row.runId}, ${row.iterationId}, ${row.enginePath}, ${row.engineSha256}, ${sql.json(JSON.parse(JSON.stringify(row.parameters)))},
      ${sql.array(row.names)}::text[], ${row.thetaEvery}, ${sql.json(JSON.parse(JSON.stringify(row.gains)))}, ${row.gamesPerIteration}, ${row.parametersSignature}, ${row.pilotGames ?? 0})`;
}

/** Signs an older run's parameters when its master resumes it (rows made before signatures have none). */
export async function setParametersSignature(sql: Sql, runId: number, signature: string): Promise<void> {
  await sql`update spsa_option_run set parameters_signature = ${signature} where run_id = ${runId}`;
}

export async function optionRunOf(sql: Sql, runId: number): Promise<OptionRunRow | undefined> {
  const [row] = await sql<
    OptionRunRow[]
  >`select ${OPTION_RUN_COLUMNS(sql)} from spsa_option_run where run_id = ${runId}`;
  return row;
}

/** A UCI-option run's gains and games per step of the schedule, without its parameter list (undefined for another run). */
export async function optionRunSchedule(
  sql: Sql,
  runId: number,
): Promise<Pick<OptionRunRow, "gains" | "gamesPerIteration"> | undefined> {
  const [row] = await sql<Pick<OptionRunRow, "gains" | "gamesPerIteration">[]>`
    select gains, games_per_iteration as "gamesPerIteration" from spsa_option_run where run_id = ${runId}`;
  return row;
}

/** The carrier iteration's counters, as the master's poll reads them. */
export interface CarrierProgress {
  gamesPlayed: number;
  gamesClaimed: number;
  targetGames: number;
  plusWins: number;
  minusWins: number;
  draws: number;
}

/** The carrier iteration's counters (not its recorded θ and settings: a large run's are megabytes). */
export async function carrierProgress(sql: Sql, iterationId: number): Promise<CarrierProgress> {
  const [row] = await sql<CarrierProgress[]>`
    select games_played as "gamesPlayed", games_claimed as "gamesClaimed", target_games as "targetGames", plus_wins as "plusWins", minus_wins as "minusWins", draws
    from spsa_iteration where id = ${iterationId}`;
  if (!row) throw new Error(`iteration ${iterationId} vanished`);
  return row;
}

/** What the master's pool of drawn batches stands at (src/master/draw-pool.ts): drawn batches not claimed yet, and games given out in batches (not those set aside: their games are given out again). */
export async function drawPoolState(tx: Sql, iterationId: number): Promise<{ open: number; allocated: number }> {
  const [row] = await tx<{ open: number; allocated: number }[]>`
    select (count(*) filter (where status = 'open'))::int as open,
      coalesce(sum(games) filter (where status in ('open', 'claimed', 'done')), 0)::int as allocated
    from spsa_batch where iteration_id = ${iterationId} and status in ('open', 'claimed', 'done') and held_at is null and undo_id is null`;
  return row ?? { open: 0, allocated: 0 };
}

/** A new open batch of the carrier iteration, its games the `gamesBefore`-th onward of the run's plan; returns its id. */
export async function insertOpenBatch(
  tx: Sql,
  iterationId: number,
  games: number,
  gamesBefore: number,
): Promise<number> {
  const [row] = await tx<{ id: number }[]>`
    insert into spsa_batch (iteration_id, games, games_before, status) values (${iterationId}, ${games}, ${gamesBefore}, 'open') returning id::int`;
  if (!row) throw new Error("batch insert returned nothing");
  return row.id;
}

export interface NewPerturbation {
  /** The batch row; also its batch_number (they are one since migration 0014: schema.ts, spsaPerturbation). */
  batchId: number;
  runId: number;
  /** The batch_number of the draw's first batch (its own, unless it shares a draw). */
  drawNumber: number;
  games: number;
  k: number;
  ck: number;
  ak: number;
  /** Drawn from θ after this many applied batches. */
  drawnFrom: number;
  /** signBits of the draw (src/spsa/option-batches.ts). */
  signs: string;
  plus: Values;
  minus: Values;
  /** A curvature pilot's batch: θ₀, which plus and minus each play against. */
  reference?: Values;
}

/**
 * Records the master's draw for an open batch (the worker that claims it is filled in by
 * spsa_claim_batch): plus and minus as arrays in the run's order of `names`, a fifteenth of
 * the bytes of objects by name at 10,000 parameters.
 */
export async function insertPerturbation(tx: Sql, names: readonly string[], p: NewPerturbation): Promise<void> {
  await tx`
    insert into spsa_perturbation (batch_id, run_id, batch_number, draw_number, games, k, c_k, a_k, drawn_from, signs, plus_parameters, minus_parameters, reference_parameters)
    values (${p.batchId}, ${p.runId}, ${p.batchId}, ${p.drawNumber}, ${p.games}, ${p.k}, ${p.ck}, ${p.ak}, ${p.drawnFrom}, ${p.signs}::varbit,
      ${tx.json(thetaArray(names, p.plus))}, ${tx.json(thetaArray(names, p.minus))}, ${p.reference ? tx.json(thetaArray(names, p.reference)) : null})`;
}

/**
 * The batches applied so far, and after how many of them the run's θ (spsa_run.current_parameters)
 * was written (read under the fold's lock, so the two are what the last fold left).
 */
export async function appliedState(tx: Sql, runId: number): Promise<{ applied: number; thetaApplied: number }> {
  const [row] = await tx<{ applied: number; thetaApplied: number }[]>`
    select (select coalesce(max(applied_number), 0) from spsa_perturbation where run_id = ${runId})::int as applied, theta_applied as "thetaApplied"
    from spsa_option_run where run_id = ${runId}`;
  if (!row) throw new Error(`run ${runId} is not a UCI-option run`);
  return row;
}

/** A run's parameter list as a worker has it: the signature it came with, and its order of the names. */
export interface KnownList {
  signature: string;
  names: readonly string[];
}

/** A claimed batch's draw, with its run's parameter list and names; the list is null when the claim named it as known. */
export type ClaimedDraw = Omit<OptionDraw, "parameters"> & {
  parameters: OptionParams | null;
  names: readonly string[];
};

/**
 * A claimed batch's draw with its run's parameters; undefined for a batch without a draw. The
 * parameter list is left out (null) when its signature is `known`'s: the caller has that list
 * already (a large run's list is the biggest read of a claim).
 */
export async function drawOfBatch(sql: Sql, batchId: number, known?: KnownList): Promise<ClaimedDraw | undefined> {
  const [row] = await sql<
    {
      parameters: OptionParams | null;
      names: string[] | null;
      signature: string | null;
      plus: StoredValues;
      minus: StoredValues;
      reference: StoredValues | null;
    }[]
  >`
    select case when o.parameters_signature = ${known?.signature ?? null}::text then null else o.parameters end as parameters,
      case when o.parameters_signature = ${known?.signature ?? null}::text then null else o.parameter_names end as names,
      o.parameters_signature as signature, p.plus_parameters as plus, p.minus_parameters as minus, p.reference_parameters as reference
    from spsa_perturbation p join spsa_option_run o on o.run_id = p.run_id where p.batch_id = ${batchId}`;
  if (!row) return undefined;
  const names = row.names ?? known?.names;
  if (!names) throw new Error(`batch ${batchId}: its run's parameter names were left out as known, and they are not`);
  const reference = row.reference === null ? {} : { reference: valuesByName(names, row.reference) };
  return {
    parameters: row.parameters,
    names,
    signature: row.signature,
    plus: valuesByName(names, row.plus),
    minus: valuesByName(names, row.minus),
    ...reference,
  };
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
    update spsa_perturbation set plus_wins = ${r.report.plusWins}, minus_wins = ${r.report.minusWins}, draws = ${r.report.draws},
      pairs = ${tx.json(r.report.pairs)}, elo_diff = ${r.elo}, step_scale = ${r.stepScale},
      theta_after = ${r.thetaAfter === null ? null : tx.array(r.thetaAfter)}::float8[],
      reported_at = ${r.report.reportedAt}, applied_number = ${r.appliedNumber},
      plus_parameters = case when drawn_from is null then plus_parameters end, minus_parameters = case when drawn_from is null then minus_parameters end
    where batch_id = ${r.batchId} and applied_number is null`;
}

/**
 * Drops the drawn batches no worker claimed yet (an undo moved θ: their draws are around the old
 * one); the master draws new ones. A batch being claimed right now is skipped: it is played as drawn.
 */
export async function dropOpenDraws(tx: postgres.TransactionSql, iterationId: number): Promise<number> {
  const rows = await tx`
    with doomed as (
      select b.id from spsa_batch b where b.iteration_id = ${iterationId} and b.status = 'open' for update skip locked
    ), gone as (
      delete from spsa_perturbation p using doomed where p.batch_id = doomed.id returning p.batch_id
    )
    delete from spsa_batch b using gone where b.id = gone.batch_id returning b.id`;
  return rows.length;
}

/** Drops the values of the run's batches that expired unplayed (or were refused): they will never be played or applied. */
export async function dropUnplayedValues(tx: Sql, runId: number): Promise<void> {
  await tx`
    update spsa_perturbation p set plus_parameters = null, minus_parameters = null
    from spsa_batch b where p.run_id = ${runId} and p.plus_parameters is not null and p.applied_number is null and b.id = p.batch_id and b.status = 'expired'`;
}

/** The run's θ; a UCI-option run's as θ after `applied` batches. */
export async function setRunTheta(tx: Sql, runId: number, theta: Values, applied?: number): Promise<void> {
  await tx`update spsa_run set current_parameters = ${tx.json(theta)} where id = ${runId}`;
  if (applied !== undefined) await tx`update spsa_option_run set theta_applied = ${applied} where run_id = ${runId}`;
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
    from spsa_perturbation where run_id = ${runId} and applied_number > ${applied - count} and applied_number <= ${applied}
    order by applied_number`;
}

/** Ends the run once its carrier iteration has all its games: call after the fold that applied the last report. */
export async function completeOptionRun(
  sql: postgres.Sql,
  run: { runId: number; iterationId: number },
): Promise<boolean> {
  return sql.begin(async (tx) => {
    const [done] = await tx`
      update spsa_iteration set status = 'complete', completed_at = now()
      where id = ${run.iterationId} and status <> 'complete' and games_played = target_games
      returning id`;
    if (!done) return false;
    await tx`update spsa_run set status = 'complete', completed_at = now() where id = ${run.runId}`;
    // Batches whose lease ran out after the last fold keep no values either.
    await dropUnplayedValues(tx, run.runId);
    return true;
  });
}

export async function runTheta(sql: Sql, runId: number): Promise<{ status: string; theta: Values }> {
  const [row] = await sql<
    { status: string; theta: Values }[]
  >`select status, current_parameters as theta from spsa_run where id = ${runId}`;
  if (!row) throw new Error(`run ${runId} vanished`);
  return row;
}

/** Whether the run of this name tunes UCI options (it has option settings). */
export async function isOptionRun(sql: Sql, runName: string): Promise<boolean> {
  const [row] = await sql<
    { id: number }[]
  >`select r.id from spsa_run r join spsa_option_run o on o.run_id = r.id where r.name = ${runName}`;
  return row !== undefined;
}

export interface PerturbationProgress {
  /** Batches whose report the master applied to θ (moving it, or leaving it on equal results). */
  applied: number;
  /** The run's θ (spsa_run.current_parameters) is θ after this many of them (a large run's is written at least every 10 s). */
  thetaApplied: number;
  /** Batches claimed and not yet reported or expired. */
  inFlight: number;
  /** The last applied batches, newest first. */
  recent: RecentBatch[];
}

/** An applied batch as the status lists it: its number, the worker that played it, its games, plus's wins, draws and minus's wins, its Elo. */
export interface RecentBatch {
  batchNumber: number;
  worker: string;
  games: number;
  plusWins: number;
  draws: number;
  minusWins: number;
  elo: number;
}

/** A UCI-option run's batches, for `spsa status`; undefined for a run that is not one. */
export async function perturbationProgress(
  sql: Sql,
  runId: number,
  recentCount: number,
): Promise<PerturbationProgress | undefined> {
  // Applied numbers run 1, 2, …: the last is the count. In flight: the claimed batches, through the leases index.
  const [counts] = await sql<{ runs: number; applied: number; thetaApplied: number; inFlight: number }[]>`
    select (select count(*) from spsa_option_run where run_id = ${runId})::int as runs,
      (select coalesce(max(applied_number), 0) from spsa_perturbation where run_id = ${runId})::int as applied,
      (select theta_applied from spsa_option_run where run_id = ${runId}) as "thetaApplied",
      (select count(*) from spsa_batch b join spsa_perturbation p on p.batch_id = b.id where b.status = 'claimed' and p.run_id = ${runId})::int as "inFlight"`;
  if (!counts || counts.runs === 0) return undefined;
  const recent = await sql<RecentBatch[]>`
    select batch_number as "batchNumber", worker_name as worker, games, plus_wins as "plusWins", draws, minus_wins as "minusWins", elo_diff as elo from spsa_perturbation
    where run_id = ${runId} and applied_number is not null order by applied_number desc limit ${recentCount}`;
  return { applied: counts.applied, thetaApplied: counts.thetaApplied, inFlight: counts.inFlight, recent };
}

/** How often the run stores θ (spsa_option_run.theta_every): after every this many applied batches. */
export async function storedThetaEvery(sql: Sql, runId: number): Promise<number> {
  const [row] = await sql<
    { every: number }[]
  >`select theta_every as every from spsa_option_run where run_id = ${runId}`;
  return row?.every ?? 1;
}

/**
 * Stored θ after the n-th applied batch, for the given n that have one (multiples of the run's
 * theta_every), of the named parameters (or all): Postgres takes their elements out of each
 * stored θ, so a chart of a few parameters of a large run reads a few numbers per point.
 */
export async function storedThetas(
  sql: Sql,
  runId: number,
  ns: readonly number[],
  names: readonly string[] | "all",
): Promise<Map<number, Values>> {
  if (ns.length === 0 || names.length === 0) return new Map();
  const applied = sql`p.run_id = ${runId} and p.applied_number = any(${sql.array(ns as number[])}::int[]) and p.theta_after is not null`;
  const rows =
    names === "all"
      ? await sql<{ n: number; names: string[]; values: number[] }[]>`
          select p.applied_number as n, o.parameter_names as names, p.theta_after as values
          from spsa_perturbation p join spsa_option_run o on o.run_id = p.run_id where ${applied}`
      : await sql<{ n: number; values: (number | null)[] }[]>`
          with wanted as (
            select x.i, array_position(o.parameter_names, x.name) as at
            from spsa_option_run o, unnest(${sql.array(names as string[])}::text[]) with ordinality as x(name, i) where o.run_id = ${runId})
          select p.applied_number as n, array(select p.theta_after[w.at] from wanted w order by w.i) as values
          from spsa_perturbation p where ${applied}`;
  return new Map(
    rows.map((r) => {
      const own: readonly string[] = "names" in r ? r.names : names === "all" ? [] : names;
      return [
        r.n,
        Object.fromEntries(own.flatMap((name, i) => (typeof r.values[i] === "number" ? [[name, r.values[i]]] : []))),
      ];
    }),
  );
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
    select o.parameters, o.parameter_names as names, o.gains, o.games_per_iteration as "gamesPerIteration", o.theta_every as "thetaEvery", r.seed,
      (o.pilot->>'factor')::float8 as "pilotFactor",
      r.initial_parameters as initial, (select coalesce(max(applied_number), 0) from spsa_perturbation where run_id = ${runId})::int as applied
    from spsa_option_run o join spsa_run r on r.id = o.run_id where o.run_id = ${runId}`;
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

function storedAtOrBefore(n: number, every: number): number {
  return Math.max(0, n - (n % every));
}

async function storedTheta(sql: Sql, runId: number, names: readonly string[], n: number): Promise<Values> {
  const [row] = await sql<
    { theta: number[] | null }[]
  >`select theta_after as theta from spsa_perturbation where run_id = ${runId} and applied_number = ${n}`;
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
    select p.applied_number as "appliedNumber", p.batch_number as "batchNumber", p.draw_number as "drawNumber", p.worker_name as "workerName", p.games, b.games_before as "gamesBefore",
      p.drawn_from as "drawnFrom", p.k, p.c_k as ck, p.a_k as ak, p.signs, p.step_scale as "stepScale", p.plus_wins as "plusWins",
      p.minus_wins as "minusWins", p.draws, p.elo_diff as elo, p.plus_parameters as plus, p.minus_parameters as minus, p.theta_after as theta
    from spsa_perturbation p join spsa_batch b on b.id = p.batch_id
    where p.run_id = ${runId} and p.applied_number > ${after} and p.applied_number <= ${through}
    order by p.applied_number`;
  return rows.map(({ plusWins, minusWins, draws, plus, minus, theta, ...row }) => ({
    ...row,
    result: { plusWins, minusWins, draws },
    played: plus && minus ? { plus: valuesByName(names, plus), minus: valuesByName(names, minus) } : null,
    thetaAfter: theta ? thetaOfArray(names, theta) : null,
  }));
}

/** Consecutive applied batches of a UCI-option run pooled: their applied numbers, summed results and pairs. */
export interface AppliedWindow {
  first: number;
  last: number;
  plusWins: number;
  minusWins: number;
  draws: number;
  pairs: Pentanomial;
  games: number;
}

/**
 * The run's batch size, as its first applied batches have it (planned batches are all that
 * size but at the carrier iteration's end), and the number of its last applied batch (0:
 * none): a few rows, through (run_id, applied_number).
 */
export async function appliedShape(sql: Sql, runId: number): Promise<{ batchSize: number; applied: number }> {
  const [row] = await sql<{ batchSize: number; applied: number }[]>`
    select (select coalesce(max(games), 1) from spsa_perturbation where run_id = ${runId} and applied_number <= 8)::int as "batchSize",
      (select coalesce(max(applied_number), 0) from spsa_perturbation where run_id = ${runId})::int as applied`;
  if (!row) throw new Error("an aggregate returned no row");
  return row;
}

/**
 * The run's applied batches after the `after`-th, in the order they moved θ, pooled `per`
 * to a window: batches 1 to per, per + 1 to 2·per, … (the last window may be short). Reads
 * those rows once, through (run_id, applied_number): the latest windows cost a few rows,
 * all of them a pass over the run's batches.
 */
export async function appliedWindows(sql: Sql, runId: number, per: number, after: number): Promise<AppliedWindow[]> {
  return sql<AppliedWindow[]>`
    select min(applied_number)::int as first, max(applied_number)::int as last, sum(plus_wins)::int as "plusWins", sum(minus_wins)::int as "minusWins",
      sum(draws)::int as draws, sum(games)::int as games,
      json_build_array(sum((pairs->>0)::int), sum((pairs->>1)::int), sum((pairs->>2)::int), sum((pairs->>3)::int), sum((pairs->>4)::int)) as pairs
    from spsa_perturbation where run_id = ${runId} and applied_number > ${after}
    group by (applied_number - 1) / ${per} order by first`;
}

/** A UCI-option run's games by when their batches were reported, in buckets of `bucketSeconds` from `start` (the bucket's index): one pass over its applied rows. */
export async function appliedGamesPerBucket(
  sql: Sql,
  runId: number,
  start: Date,
  bucketSeconds: number,
): Promise<{ bucket: number; games: number }[]> {
  return sql<{ bucket: number; games: number }[]>`
    select floor(extract(epoch from reported_at - ${start}::timestamptz) / ${bucketSeconds})::int as bucket, sum(games)::int as games
    from spsa_perturbation where run_id = ${runId} and applied_number is not null
    group by 1 order by 1`;
}
