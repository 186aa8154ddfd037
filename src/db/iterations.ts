import type postgres from "postgres";
import { selectColumns, type RowOf } from "./columns.js";
import { delayLossSum, engineFaultKinds, engineFaultSum } from "./fault-columns.js";
import { spsaIteration } from "./schema.js";
import type { IterationSettings, PlayedWith } from "../types/config.js";
import type { EngineFaultCounter } from "../types/faults.js";
import type { IterationOutcome, MeasuredIteration, Values } from "../types/spsa.js";
import { WORK_CHANNEL } from "../postgres/channels.js";
import { asJson, type Sql } from "../postgres/sql.js";

/** SQL of the master's iterations (spsa_iteration): start one, read its counters, complete it. */

/** What an iteration's games measured: plus against minus, or (a reference engine named) each side against it. */
/**
 * Whether a spsa_iteration row is a build-mode gain iteration (its settings' `gain`: θ against θ₀,
 * no step; docs/gain-so-far.md), in SQL: the one place the rows are told apart.
 */
export const gainIteration = (sql: Sql, alias?: string) =>
  alias === undefined
    ? sql`coalesce((settings->>'gain')::boolean, false)`
    : sql`coalesce((${sql(alias)}.settings->>'gain')::boolean, false)`;

export const OUTCOME_KEYS = [
  "referenceEngineSha256",
  "plusWins",
  "minusWins",
  "draws",
  "refPlusWins",
  "refPlusDraws",
  "refPlusLosses",
  "refMinusWins",
  "refMinusDraws",
  "refMinusLosses",
] as const;
export type OutcomeColumns = RowOf<typeof spsaIteration, (typeof OUTCOME_KEYS)[number]>;

/**
 * An iteration's recorded counts as the math reads them (src/spsa/math.ts): plus against minus,
 * or in reference mode each side's games against the reference from its own side.
 */
export function outcomeOf(row: OutcomeColumns): IterationOutcome {
  if (row.referenceEngineSha256 === null) return { plusWins: row.plusWins, minusWins: row.minusWins, draws: row.draws };
  return {
    plus: { plusWins: row.refPlusWins, minusWins: row.refPlusLosses, draws: row.refPlusDraws },
    minus: { plusWins: row.refMinusWins, minusWins: row.refMinusLosses, draws: row.refMinusDraws },
  };
}

const ITERATION_KEYS = [
  "id",
  "iterationNumber",
  "status",
  "targetGames",
  "gamesPlayed",
  "gamesClaimed",
  ...OUTCOME_KEYS,
  "replays",
  "replayLimitPairs",
  "ak",
  "baseParameters",
  "plusParameters",
  "minusParameters",
  "settings",
] as const;

/** Columns insertIteration always writes: not null in the rows the master reads. */
type Written = "ak" | "baseParameters" | "plusParameters" | "minusParameters";

export type IterationRow = Omit<RowOf<typeof spsaIteration, (typeof ITERATION_KEYS)[number]>, Written> & {
  [K in Written]: NonNullable<(typeof spsaIteration.$inferSelect)[K]>;
} & {
  /** Engine faults of both sides, all kinds. */
  faults: number;
  /** The same by kind: crashes, the engines' own time losses, illegal moves. */
  faultKinds: Record<EngineFaultCounter, number>;
  /** Time losses to delays outside the engines, both sides. */
  delayLosses: number;
};

const ITERATION_COLUMNS = (sql: Sql) => sql`
  ${selectColumns(sql, spsaIteration, ITERATION_KEYS)},
  ${engineFaultSum(sql)}::int as faults,
  ${engineFaultKinds(sql)} as "faultKinds",
  ${delayLossSum(sql)}::int as "delayLosses"`;

export async function latestIteration(sql: Sql, runId: number): Promise<IterationRow | undefined> {
  const [row] = await sql<IterationRow[]>`
    select ${ITERATION_COLUMNS(sql)}
    from spsa_iteration
    where run_id = ${runId}
    order by iteration_number desc
    limit 1`;
  return row;
}

export async function readIteration(sql: Sql, id: number): Promise<IterationRow> {
  const [row] = await sql<IterationRow[]>`
    select ${ITERATION_COLUMNS(sql)}
    from spsa_iteration
    where id = ${id}`;
  if (!row) throw new Error(`iteration ${id} vanished`);
  return row;
}

/**
 * What an iteration was played with, the one place it is read: its settings, and beside them its
 * row's columns, the time per move and the games per iteration (its target; a UCI-option run's,
 * whose one iteration carries the whole run, from spsa_option_run). Of the iteration, or of the
 * run's latest tuner iteration that has settings (a gain iteration's 16 games are not the run's
 * games per iteration); undefined for none (rows of a version before settings have none).
 */
export async function readPlayedWith(
  sql: Sql,
  of: { iterationId: number } | { runId: number },
): Promise<PlayedWith | undefined> {
  const which =
    "iterationId" in of
      ? sql`i.id = ${of.iterationId}`
      : sql`i.run_id = ${of.runId} and not ${gainIteration(sql, "i")}`;
  const [row] = await sql<PlayedWith[]>`
    select i.settings,
      i.timelow_ms as "timelowMs",
      i.timehigh_ms as "timehighMs",
      coalesce(o.games_per_iteration, i.target_games) as "gamesPerIteration"
    from spsa_iteration i
    left join spsa_option_run o on o.iteration_id = i.id
    where ${which}
      and i.settings is not null
    order by i.iteration_number desc
    limit 1`;
  return row;
}

/**
 * A binary of an iteration with the master's signature for its run, iteration and side (null:
 * unsigned, a synthetic row).
 */
export interface IterationEngine {
  path: string;
  sha256: string;
  signature: string | null;
}

export interface NewIteration {
  runId: number;
  iterationNumber: number;
  plus: IterationEngine;
  minus: IterationEngine;
  /**
   * Reference mode: the run's reference engine, which θ+ and θ− each play (docs/reference-mode.md);
   * absent: plus against minus.
   */
  reference?: IterationEngine;
  timelowMs: number;
  timehighMs: number;
  targetGames: number;
  /**
   * The games of each open batch, in order (src/spsa/batch-plan.ts); empty: none (a UCI-option
   * run's master makes them with their draws).
   */
  batchSizes: readonly number[];
  ck: number;
  ak: number;
  base: Values;
  plusValues: Values;
  minusValues: Values;
  signs: Values;
  settings: IterationSettings;
  /**
   * A verification of a UCI-option run: the run whose parameter list sets both engines up, and the
   * master's signature of that list for this iteration's run (docs/uci-options.md#verifying).
   */
  options?: { runId: number; signature: string };
}

/**
 * Inserts the iteration with its games as open batches (once: a restarted master finds it;
 * one statement, so never one without the other) and wakes the workers. Each statement
 * stands alone (inside a caller's transaction, the wake-up waits for its commit).
 */
export async function insertIteration(sql: Sql, it: NewIteration): Promise<IterationRow> {
  const { plus, minus, reference } = it;
  const sizes = [...it.batchSizes];
  let sum = 0;
  const before = sizes.map((games) => (sum += games) - games);
  await sql`
    with iteration as (
      insert into spsa_iteration (run_id, iteration_number, plus_engine_path, minus_engine_path, plus_engine_sha256,
        minus_engine_sha256, plus_engine_signature, minus_engine_signature,
        reference_engine_path, reference_engine_sha256, reference_engine_signature,
        timelow_ms, timehigh_ms, target_games, c_k, a_k,
        base_parameters, plus_parameters, minus_parameters, perturbation_signs,
        settings, options_run_id, options_signature)
      values (${it.runId}, ${it.iterationNumber}, ${plus.path}, ${minus.path}, ${plus.sha256}, ${minus.sha256},
        ${plus.signature}, ${minus.signature},
        ${reference?.path ?? null}, ${reference?.sha256 ?? null}, ${reference?.signature ?? null},
        ${it.timelowMs}, ${it.timehighMs}, ${it.targetGames}, ${it.ck}, ${it.ak},
        ${sql.json(it.base)}, ${sql.json(it.plusValues)}, ${sql.json(it.minusValues)}, ${sql.json(it.signs)},
        ${sql.json(asJson(it.settings))}, ${it.options?.runId ?? null}, ${it.options?.signature ?? null})
      on conflict (run_id, iteration_number) do nothing
      returning id
    )
    insert into spsa_batch (iteration_id, games, games_before, status)
    select iteration.id, plan.games, plan.before, 'open'
    from iteration, unnest(${sizes}::int[], ${before}::int[]) with ordinality as plan(games, before, n)
    order by plan.n`;
  await sql`select pg_notify(${WORK_CHANNEL}, '')`;
  const [row] = await sql<IterationRow[]>`
    select ${ITERATION_COLUMNS(sql)}
    from spsa_iteration
    where run_id = ${it.runId}
      and iteration_number = ${it.iterationNumber}`;
  if (!row) throw new Error("iteration insert returned nothing");
  return row;
}

/** What an iteration's step gives, from the θ it moves. */
export interface StepResult {
  gradient: Values;
  elo: number;
  newValues: Values;
}

/**
 * Completes an iteration and stores the new θ, in the caller's transaction (the master's, which
 * has its run's lease: src/master/run-lease.ts): `step` moves the run's θ as the database holds it, read
 * under the run row's lock (so an undo, which takes the same lock, is never overwritten by a
 * master's θ from before it). Returns the step, or undefined if it was completed already (nothing
 * is applied twice) or an earlier iteration is not complete (steps are applied in iteration order:
 * src/spsa/in-flight.ts).
 */
export async function completeIteration(
  tx: postgres.TransactionSql,
  options: {
    runId: number;
    iterationId: number;
    step: (theta: Values, stepScale: Values | undefined) => StepResult;
    finalIteration: boolean;
  },
): Promise<StepResult | undefined> {
  const [run] = await tx<{ theta: Values }[]>`
    select current_parameters as theta
    from spsa_run
    where id = ${options.runId}
    for update`;
  if (!run) throw new Error(`run ${options.runId} vanished`);
  // θ and the iteration's step scale as they stand under the lock: an undo rewrites both (src/master/recorded-theta.ts).
  const [iteration] = await tx<{ stepScale: Values | null }[]>`
    select settings->'stepScale' as "stepScale"
    from spsa_iteration
    where id = ${options.iterationId}`;
  const result = options.step(run.theta, iteration?.stepScale ?? undefined);
  const [done] = await tx`
    update spsa_iteration
    set status = 'complete',
      gradient_estimate = ${tx.json(result.gradient)},
      elo_diff = ${result.elo},
      theta_after = ${tx.json(result.newValues)},
      completed_at = now()
    where id = ${options.iterationId}
      and status <> 'complete'
      and games_played = target_games
      and not exists (
        select 1
        from spsa_iteration earlier
        where earlier.run_id = ${options.runId}
          and earlier.status <> 'complete'
          and earlier.iteration_number < (select iteration_number from spsa_iteration where id = ${options.iterationId})
      )
    returning id`;
  if (!done) return undefined;
  await tx`
    update spsa_run
    set current_parameters = ${tx.json(result.newValues)},
      status = ${options.finalIteration ? "complete" : "active"},
      completed_at = ${options.finalIteration ? tx`now()` : null}
    where id = ${options.runId}`;
  return result;
}

/**
 * θ at the start of the tuner's iterations among 1..through of a run, from the recorded rows: the
 * past that the self-correcting schedule and momentum need (src/spsa/trajectory.ts), so they keep
 * no state of their own and a restarted master continues exactly. A gain iteration (it moves θ no
 * step) is not among them: the tuner's schedule counts its own iterations.
 */
export async function readTrajectory(sql: Sql, runId: number, through: number): Promise<Values[]> {
  const rows = await sql<{ base: Values | null }[]>`
    select base_parameters as base
    from spsa_iteration
    where run_id = ${runId}
      and iteration_number <= ${through}
      and not ${gainIteration(sql)}
    order by iteration_number`;
  // Rows from before base θ was recorded have none: their parameters count as unmoved.
  return rows.map((row) => row.base ?? {});
}

/**
 * θ after each completed tuner iteration, in order (iterations in flight draw from older θ, so not
 * their bases): the tail average's points, which a gain iteration (no step) would weigh twice.
 */
export async function readThetaAfter(sql: Sql, runId: number): Promise<Values[]> {
  const rows = await sql<{ theta: Values }[]>`
    select theta_after as theta
    from spsa_iteration
    where run_id = ${runId}
      and status = 'complete'
      and theta_after is not null
      and not ${gainIteration(sql)}
    order by iteration_number`;
  return rows.map((row) => row.theta);
}

/**
 * What the last `count` completed iterations up to `through` measured (oldest first): the
 * adaptive gains' input (src/spsa/adaptive.ts).
 */
export async function readMeasuredIterations(
  sql: Sql,
  runId: number,
  through: number,
  count: number,
): Promise<MeasuredIteration[]> {
  const rows = await sql<(OutcomeColumns & { elo: number })[]>`
    select *
    from (
      select iteration_number, elo_diff as elo, ${selectColumns(sql, spsaIteration, OUTCOME_KEYS)}
      from spsa_iteration
      where run_id = ${runId}
        and iteration_number <= ${through}
        and status = 'complete'
        and elo_diff is not null
        and not ${gainIteration(sql)}
      order by iteration_number desc
      limit ${count}
    ) recent
    order by iteration_number`;
  return rows.map((r) => ({ elo: r.elo, result: outcomeOf(r) }));
}

/** What the master's scheduling of iterations in flight reads (src/spsa/in-flight.ts). */
export interface InFlightState {
  /** The run's last iteration number (0: none yet). */
  latest: number;
  /** Its completed iterations: always 1..applied, as steps are applied in order. */
  applied: number;
  /**
   * Games reported per second over the last minute (or since the run's first iteration, if later);
   * undefined before any.
   */
  gamesPerSecond: number | undefined;
}

export async function inFlightState(sql: Sql, runId: number): Promise<InFlightState> {
  const [row] = await sql<{ latest: number; applied: number; games: number; seconds: number | null }[]>`
    with window_start as (
      select greatest(now() - interval '60 seconds', min(created_at)) as since
      from spsa_iteration
      where run_id = ${runId}
    )
    select coalesce(max(iteration_number), 0)::int as latest,
      (count(*) filter (where status = 'complete'))::int as applied,
      (
        select coalesce(sum(b.games), 0)::int
        from spsa_batch b
        join spsa_iteration bi on bi.id = b.iteration_id, window_start w
        where b.status = 'done'
          and b.reported_at > w.since
          and bi.run_id = ${runId}
      ) as games,
      (select extract(epoch from now() - w.since)::float8 from window_start w) as seconds
    from spsa_iteration
    where run_id = ${runId}`;
  if (!row) throw new Error("an aggregate returned no row");
  const rate = row.games > 0 && row.seconds !== null && row.seconds > 0 ? row.games / row.seconds : undefined;
  return { latest: row.latest, applied: row.applied, gamesPerSecond: rate };
}

/** The run's oldest iteration not complete: the one whose step is next. */
export async function oldestOpenIteration(sql: Sql, runId: number): Promise<IterationRow | undefined> {
  const [row] = await sql<IterationRow[]>`
    select ${ITERATION_COLUMNS(sql)}
    from spsa_iteration
    where run_id = ${runId}
      and status <> 'complete'
    order by iteration_number
    limit 1`;
  return row;
}

/** How many iterations a run has started. */
export async function iterationCount(sql: Sql, runId: number): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    select count(*)::int as n
    from spsa_iteration
    where run_id = ${runId}`;
  return row?.n ?? 0;
}

/** A completed iteration as `spsa simulate --from-run` fits it: the values played and what the games measured. */
export interface PlayedIteration {
  plus: Values;
  minus: Values;
  result: IterationOutcome;
  elo: number;
}

/** The completed iterations of a run, in order, with the run's start and current θ. */
export async function readPlayedIterations(
  sql: Sql,
  runId: number,
): Promise<{ start: Values; current: Values; iterations: PlayedIteration[] }> {
  const [run] = await sql<{ start: Values; current: Values }[]>`
    select initial_parameters as start, current_parameters as current
    from spsa_run
    where id = ${runId}`;
  if (!run) throw new Error(`run ${runId} vanished`);
  const rows = await sql<(OutcomeColumns & Omit<PlayedIteration, "result">)[]>`
    select plus_parameters as plus,
      minus_parameters as minus,
      ${selectColumns(sql, spsaIteration, OUTCOME_KEYS)},
      elo_diff as elo
    from spsa_iteration
    where run_id = ${runId}
      and status = 'complete'
      and elo_diff is not null
      and plus_parameters is not null
      and minus_parameters is not null
      and not ${gainIteration(sql)}
    order by iteration_number`;
  return {
    start: run.start,
    current: run.current,
    iterations: rows.map((r) => ({ plus: r.plus, minus: r.minus, result: outcomeOf(r), elo: r.elo })),
  };
}

/**
 * The run's completed iterations among its first `count` that played θ+ and θ− each against a
 * reference engine (the curvature pilot's, src/master/pilot.ts), with their recorded settings.
 */
export async function readReferenceIterations(
  sql: Sql,
  runId: number,
  count: number,
): Promise<{ outcome: IterationOutcome; plus: Values; minus: Values; settings: IterationSettings }[]> {
  const rows = await sql<(OutcomeColumns & { plus: Values; minus: Values; settings: IterationSettings })[]>`
    select plus_parameters as plus,
      minus_parameters as minus,
      settings,
      ${selectColumns(sql, spsaIteration, OUTCOME_KEYS)}
    from spsa_iteration
    where run_id = ${runId}
      and iteration_number <= ${count}
      and status = 'complete'
      and reference_engine_sha256 is not null
    order by iteration_number`;
  return rows.map((r) => ({ outcome: outcomeOf(r), plus: r.plus, minus: r.minus, settings: r.settings }));
}
