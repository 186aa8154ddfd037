import { asJson, type Sql } from "../postgres/sql.js";
import type { OptionPilotRecord, ReferenceResult, Values } from "../types/spsa.js";

/**
 * SQL of UCI-option mode's curvature pilot (src/master/option-pilot.ts): its batches are the
 * run's spsa_perturbation rows with reference values (θ₀) that are not gain blocks
 * (src/db/gain-blocks.ts), found through their partial index;
 * its measure is stored once on spsa_option_run.
 */

/** θ+'s and θ−'s wins, draws and losses against θ₀, as the queries below name them. */
export interface SideSums {
  pw: number;
  pd: number;
  pl: number;
  mw: number;
  md: number;
  ml: number;
}

const outcomeOf = (r: SideSums): ReferenceResult => ({
  plus: { plusWins: r.pw, minusWins: r.pl, draws: r.pd },
  minus: { plusWins: r.mw, minusWins: r.ml, draws: r.md },
});

/** A pilot batch that counts: reported and not set aside (alias p for its draw, b for its batch). */
const COUNTED = (sql: Sql, runId: number) => sql`
  p.run_id = ${runId}
  and p.reference_parameters is not null
  and not p.gain
  and b.status = 'done'
  and b.held_at is null
  and b.undo_id is null`;

/**
 * Games of the pilot given out (open, claimed or played, not set aside: those are drawn again), and
 * its factor once its measure is stored.
 */
export async function pilotDrawState(
  tx: Sql,
  runId: number,
): Promise<{ allocated: number; measured: boolean; factor: number | undefined }> {
  const [row] = await tx<{ allocated: number; measured: boolean; factor: number | null }[]>`
    select
      (
        select coalesce(sum(b.games), 0)
        from spsa_perturbation p
        join spsa_batch b on b.id = p.batch_id
        where p.run_id = ${runId}
          and p.reference_parameters is not null
          and not p.gain
          and b.status in ('open', 'claimed', 'done')
          and b.held_at is null
          and b.undo_id is null
      )::int as allocated,
      (select pilot is not null from spsa_option_run where run_id = ${runId}) as measured,
      (select (pilot->>'factor')::float8 from spsa_option_run where run_id = ${runId}) as factor`;
  return { allocated: row?.allocated ?? 0, measured: row?.measured ?? false, factor: row?.factor ?? undefined };
}

/**
 * Whether the pilot's measure is stored, and the carrier's reported batches not folded yet (the
 * pilot is measured once none is).
 */
export async function pilotMeasureState(
  tx: Sql,
  runId: number,
  iterationId: number,
): Promise<{ measured: boolean; unfolded: number }> {
  const [row] = await tx<{ measured: boolean; unfolded: number }[]>`
    select (select pilot is not null from spsa_option_run where run_id = ${runId}) as measured,
      (
        select count(*)
        from spsa_batch
        where iteration_id = ${iterationId}
          and status = 'done'
          and not folded
      )::int as unfolded`;
  return row ?? { measured: false, unfolded: 0 };
}

/**
 * A played pilot batch as stored: its games, θ+'s and θ−'s results against θ₀, and the values they
 * played (in the run's order of `names`).
 */
export interface PlayedPilotBatch {
  batchId: number;
  games: number;
  outcome: ReferenceResult;
  plus: Values;
  minus: Values;
}

/** The pilot's played batches that count (reported, not set aside), in the order they were drawn. */
export async function playedPilotBatches(
  tx: Sql,
  runId: number,
  names: readonly string[],
): Promise<PlayedPilotBatch[]> {
  const rows = await tx<(SideSums & { batchId: number; games: number; plus: number[]; minus: number[] })[]>`
    select b.id::int as "batchId",
      b.games,
      b.ref_plus_wins as pw,
      b.ref_plus_draws as pd,
      b.ref_plus_losses as pl,
      b.ref_minus_wins as mw,
      b.ref_minus_draws as md,
      b.ref_minus_losses as ml,
      p.plus_parameters as plus,
      p.minus_parameters as minus
    from spsa_perturbation p
    join spsa_batch b on b.id = p.batch_id
    where ${COUNTED(tx, runId)}
    order by b.id`;
  const byName = (values: readonly number[]): Values =>
    Object.fromEntries(names.map((name, i) => [name, values[i] ?? Number.NaN]));
  return rows.map((r) => ({
    batchId: r.batchId,
    games: r.games,
    outcome: outcomeOf(r),
    plus: byName(r.plus),
    minus: byName(r.minus),
  }));
}

/** Stores the pilot's measure, once (a second master's fold finds it stored and leaves it). */
export async function recordPilot(tx: Sql, runId: number, record: OptionPilotRecord): Promise<boolean> {
  const rows = await tx`
    update spsa_option_run
    set pilot = ${tx.json(asJson(record))}
    where run_id = ${runId}
      and pilot is null
    returning run_id`;
  return rows.length > 0;
}

/** The pilot's factor on the adaptive scales: undefined until it is measured (or on a run without one). */
export async function pilotFactor(tx: Sql, runId: number): Promise<number | undefined> {
  const [row] = await tx<{ factor: number | null }[]>`
    select (pilot->>'factor')::float8 as factor
    from spsa_option_run
    where run_id = ${runId}`;
  return row?.factor ?? undefined;
}

/**
 * The pilot as `spsa status` shows it: its games, and its measure once stored, else the played
 * batches' sums so far; undefined without a pilot.
 */
export interface OptionPilotProgress {
  pilotGames: number;
  played: number;
  outcome: ReferenceResult;
  measure: OptionPilotRecord | null;
}

export async function optionPilotProgress(sql: Sql, runId: number): Promise<OptionPilotProgress | undefined> {
  const [run] = await sql<{ pilotGames: number; pilot: OptionPilotRecord | null }[]>`
    select pilot_games as "pilotGames", pilot
    from spsa_option_run
    where run_id = ${runId}`;
  if (!run || run.pilotGames === 0) return undefined;
  if (run.pilot)
    return { pilotGames: run.pilotGames, played: run.pilot.games, outcome: run.pilot.outcome, measure: run.pilot };
  const [sums] = await sql<(SideSums & { played: number })[]>`
    select coalesce(sum(b.games), 0)::int as played,
      coalesce(sum(b.ref_plus_wins), 0)::int as pw,
      coalesce(sum(b.ref_plus_draws), 0)::int as pd,
      coalesce(sum(b.ref_plus_losses), 0)::int as pl,
      coalesce(sum(b.ref_minus_wins), 0)::int as mw,
      coalesce(sum(b.ref_minus_draws), 0)::int as md,
      coalesce(sum(b.ref_minus_losses), 0)::int as ml
    from spsa_perturbation p
    join spsa_batch b on b.id = p.batch_id
    where ${COUNTED(sql, runId)}`;
  const s = sums ?? { played: 0, pw: 0, pd: 0, pl: 0, mw: 0, md: 0, ml: 0 };
  return { pilotGames: run.pilotGames, played: s.played, outcome: outcomeOf(s), measure: null };
}
