import { selectColumns, type RowOf } from "./columns.js";
import { OUTCOME_KEYS, outcomeOf, type OutcomeColumns } from "./iterations.js";
import { spsaIteration } from "./schema.js";
import type { IterationSettings } from "../types/config.js";
import type { PlayLimits } from "../types/play.js";
import type { IterationOutcome, Values } from "../types/spsa.js";
import type { Sql } from "../postgres/sql.js";

/**
 * SQL of transfer in the run (docs/ship-check.md): a transfer is a verification naming the
 * tuning iteration whose plus and minus it plays at the ship limits (unique per iteration).
 */

const ENGINE_KEYS = [
  "id",
  "iterationNumber",
  "plusEnginePath",
  "plusEngineSha256",
  "minusEnginePath",
  "minusEngineSha256",
  "plusParameters",
  "minusParameters",
] as const;

/** A tuning iteration's engines, built and stored, and the θ they were built with. */
export type TransferableIteration = Omit<
  RowOf<typeof spsaIteration, (typeof ENGINE_KEYS)[number]>,
  "plusParameters" | "minusParameters"
> & {
  plusParameters: Values;
  minusParameters: Values;
};

/**
 * The run's iterations still playing whose number is a multiple of `every` and that have no
 * transfer yet. Only open ones: a transfer is queued before its iteration can complete, so a
 * changed `transfer_every` never reaches back to iterations already stepped.
 */
export async function iterationsToTransfer(sql: Sql, runId: number, every: number): Promise<TransferableIteration[]> {
  return sql<TransferableIteration[]>`
    select ${selectColumns(sql, spsaIteration, ENGINE_KEYS, "i")}
    from spsa_iteration i
    where i.run_id = ${runId}
      and i.status <> 'complete'
      and i.iteration_number % ${every} = 0
      and i.plus_parameters is not null
      and i.minus_parameters is not null
      and not exists (select 1 from spsa_verification v where v.transfer_iteration_id = i.id)
    order by i.iteration_number`;
}

/** A transfer as the report reads it: the tuning iteration's games and what it played, the transfer's games. */
export interface TransferRow {
  iterationNumber: number;
  limits: PlayLimits;
  status: "running" | "complete";
  /** The tuning iteration is stepped: its counts are final. */
  stepped: boolean;
  tune: IterationOutcome;
  plus: Values;
  minus: Values;
  settings: IterationSettings | null;
  ship: { plusWins: number; minusWins: number; draws: number; gamesPlayed: number; targetGames: number };
}

/** The run's transfers in iteration order. */
export async function readTransfers(sql: Sql, runId: number): Promise<TransferRow[]> {
  type Ship = { shipWins: number; shipLosses: number; shipDraws: number; shipPlayed: number; shipTarget: number };
  const rows = await sql<
    (OutcomeColumns & Omit<TransferRow, "tune" | "ship" | "stepped"> & { tuneStatus: string } & Ship)[]
  >`
    select t.iteration_number as "iterationNumber",
      v.limits,
      v.status,
      t.status as "tuneStatus",
      t.plus_parameters as plus,
      t.minus_parameters as minus,
      t.settings,
      ${selectColumns(sql, spsaIteration, OUTCOME_KEYS, "t")},
      c.plus_wins as "shipWins",
      c.minus_wins as "shipLosses",
      c.draws as "shipDraws",
      c.games_played as "shipPlayed",
      c.target_games as "shipTarget"
    from spsa_verification v
    join spsa_iteration t on t.id = v.transfer_iteration_id
    join spsa_iteration c on c.run_id = v.carrier_run_id
    where v.run_id = ${runId}
    order by t.iteration_number`;
  return rows.map((r) => ({
    iterationNumber: r.iterationNumber,
    limits: r.limits,
    status: r.status,
    stepped: r.tuneStatus === "complete",
    tune: outcomeOf(r),
    plus: r.plus,
    minus: r.minus,
    settings: r.settings,
    // The carrier's iteration stores the transfer's games; plus is the tuning iteration's plus.
    ship: {
      plusWins: r.shipWins,
      minusWins: r.shipLosses,
      draws: r.shipDraws,
      gamesPlayed: r.shipPlayed,
      targetGames: r.shipTarget,
    },
  }));
}
