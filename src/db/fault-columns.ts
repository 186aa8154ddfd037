import { joinFragments as join, type Fragment } from "./columns.js";
import { spsaIteration } from "./schema.js";
import { ENGINE_ROLES, type EngineFaults, type EngineRole } from "../types/engines.js";
import { byCounter, ENGINE_FAULT_COUNTERS, FAULT_COUNTERS, type FaultCounter } from "../types/faults.js";
import type { Sql } from "../postgres/sql.js";

/**
 * spsa_iteration's fault counters: three columns (plus, minus, and the reference engine of
 * reference mode) per counter of src/types/faults.ts. The SQL that sums and reads them is built
 * from that list; a new counter needs its columns in schema.ts (without them,
 * `spsaIteration[column]` below fails the typecheck) and its line in spsa_report_batch (a
 * migration), which refuses reports with counters it does not know. Reports keep them in
 * spsa_batch.faults by key; the master folds them into the iteration's columns.
 */

export type CounterColumn<C extends FaultCounter = FaultCounter> = `${EngineRole}${Capitalize<C>}`;

interface Column<C extends FaultCounter> {
  key: CounterColumn<C>;
  /** Its engine's index in ENGINE_ROLES. */
  role: 0 | 1 | 2;
  counter: C;
}

/** Counter-major: plusCrashes, minusCrashes, referenceCrashes, plusTimeLosses, ... */
function columnsOf<C extends FaultCounter>(counters: readonly C[]): Column<C>[] {
  return counters.flatMap((counter) =>
    ([0, 1, 2] as const).map((role) => ({
      key: `${ENGINE_ROLES[role]}${counter[0]!.toUpperCase()}${counter.slice(1)}` as CounterColumn<C>,
      role,
      counter,
    })),
  );
}

const COUNTER_COLUMNS = columnsOf(Object.keys(FAULT_COUNTERS) as FaultCounter[]);
const ENGINE_FAULT_COLUMNS = columnsOf(ENGINE_FAULT_COUNTERS);
const DELAY_LOSS_COLUMNS = columnsOf(["delayLosses"] as const);

const sqlName = (column: Column<FaultCounter>): string => spsaIteration[column.key].name;

/** The counters' values for the faults of the plus, the minus and (if given) the reference engine. */
export function counterValues(faults: EngineFaults): Record<CounterColumn, number> {
  const sums = faults.map(byCounter);
  return Object.fromEntries(
    COUNTER_COLUMNS.map((column) => [column.key, sums[column.role]?.[column.counter] ?? 0]),
  ) as Record<CounterColumn, number>;
}

/** `(plus_crashes + minus_crashes + ...)`: the sum of the given counters' columns in an iteration row. */
function counterSum(sql: Sql, columns: readonly Column<FaultCounter>[]): Fragment {
  return sql`(${join(
    sql,
    columns.map((column) => sql`${sql(sqlName(column))}`),
    "+",
  )})`;
}

/** The engine faults of an iteration row. */
export function engineFaultSum(sql: Sql): Fragment {
  return counterSum(sql, ENGINE_FAULT_COLUMNS);
}

/** The time losses to delays outside the engines (a busy machine) of an iteration row, both sides. */
export function delayLossSum(sql: Sql): Fragment {
  return counterSum(sql, DELAY_LOSS_COLUMNS);
}

/**
 * `json_build_object('crashes', (plus_crashes + minus_crashes + reference_crashes), …)`: an iteration
 * row's engine faults by kind (all engines), or with `sum` the sums over the rows aggregated.
 */
export function engineFaultKinds(sql: Sql, sum = false): Fragment {
  return sql`json_build_object(${join(
    sql,
    ENGINE_FAULT_COUNTERS.map((counter) => {
      const total = counterSum(sql, columnsOf([counter]));
      return sql`${counter}::text, ${sum ? sql`coalesce(sum(${total}), 0)::int` : sql`${total}::int`}`;
    }),
    ",",
  )})`;
}

/** A spsa_batch row's reported engine faults (its `faults` by key), all engines. */
export function batchEngineFaults(sql: Sql): Fragment {
  return batchCounterSum(sql, ENGINE_FAULT_COLUMNS);
}

/** A spsa_batch row's reported time losses to delays outside the engines, all engines. */
export function batchDelayLosses(sql: Sql): Fragment {
  return batchCounterSum(sql, DELAY_LOSS_COLUMNS);
}

function batchCounterSum(sql: Sql, columns: readonly Column<FaultCounter>[]): Fragment {
  return sql`(${join(
    sql,
    columns.map((column) => sql`coalesce((faults->>${column.key})::int, 0)`),
    "+",
  )})`;
}

export type CounterColumns = Record<CounterColumn, number>;

/** Every counter column's key, engine and words ("plus crashes"), in their order in selectCounters. */
export const COUNTER_KEYS = COUNTER_COLUMNS.map((column) => ({
  key: column.key,
  role: ENGINE_ROLES[column.role],
  words: `${ENGINE_ROLES[column.role]} ${FAULT_COUNTERS[column.counter]}`,
}));

/** `plus_crashes as "plusCrashes", ...`: every counter column, for a select list. */
export function selectCounters(sql: Sql): Fragment {
  return join(
    sql,
    COUNTER_COLUMNS.map((column) => sql`${sql(sqlName(column))} as ${sql(column.key)}`),
    ",",
  );
}

/**
 * `coalesce(sum((faults->>'plusCrashes')::int), 0)::int as plus_crashes, ...`: spsa_batch rows'
 * reported counters, summed as the iteration's columns.
 */
export function sumBatchCounters(sql: Sql): Fragment {
  return join(
    sql,
    COUNTER_COLUMNS.map(
      (column) => sql`coalesce(sum((faults->>${column.key})::int), 0)::int as ${sql(sqlName(column))}`,
    ),
    ",",
  );
}

/**
 * `plus_crashes = i.plus_crashes + s.plus_crashes, ...`: every counter column of an iteration `i`
 * plus (or, sign −1, minus) a row `s` of sumBatchCounters.
 */
export function addCounters(sql: Sql, sign: 1 | -1 = 1): Fragment {
  return join(
    sql,
    COUNTER_COLUMNS.map(
      (column) => sql`${sql(sqlName(column))} = i.${sql(sqlName(column))} + ${sign}::int * s.${sql(sqlName(column))}`,
    ),
    ",",
  );
}
