import type { Sql } from "../postgres/sql.js";
import { valuesByName, type StoredValues } from "./stored-values.js";
import type { OptionDraw, OptionParams } from "../types/spsa.js";

/**
 * What a claim reads of a UCI-option batch (src/db/batches.ts claimBatch): the master's draw,
 * with its run's signed parameter list unless the worker has that list already.
 */

/** A run's parameter list as a worker has it: the signature it came with, and its order of the names. */
export interface KnownList {
  signature: string;
  names: readonly string[];
}

/**
 * A claimed batch's draw, with its run's parameter list and names; the list is null when the claim
 * named it as known.
 */
export type ClaimedDraw = Omit<OptionDraw, "parameters"> & {
  parameters: OptionParams | null;
  names: readonly string[];
};

/**
 * A claimed batch's draw with its run's parameters; undefined for a batch without a draw. The
 * parameter list is left out (null) when its signature is `known`'s: the caller has that list
 * already (a large run's list is the biggest read of a claim). A batch of a UCI-option run has
 * the master's draw (spsa_perturbation); a batch of a verification of one plays its iteration's
 * two θ (plus_parameters and minus_parameters), set up from the verified run's parameter list,
 * signed for the verification's carrier run (spsa_iteration.options_signature). Read through
 * spsa_claimed_batch, which gives a worker role only a batch one of its names holds claimed.
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
    with drawn as (
      select list_run, signature, plus, minus, reference
      from spsa_claimed_batch(${batchId})
      where list_run is not null
    )
    select
      case when d.signature = ${known?.signature ?? null}::text then null
        else o.parameters end as parameters,
      case when d.signature = ${known?.signature ?? null}::text then null
        else o.parameter_names end as names,
      d.signature,
      d.plus,
      d.minus,
      d.reference
    from drawn d
    join spsa_option_run o on o.run_id = d.list_run`;
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
