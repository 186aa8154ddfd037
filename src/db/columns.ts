import { getTableColumns, type InferSelectModel, type Table } from "drizzle-orm";
import type postgres from "postgres";
import type { Sql } from "../postgres/sql.js";
export type Fragment = postgres.PendingQuery<postgres.Row[]>;

/** A table's rows with only the columns `K`, as `selectColumns(…, K)` reads them. */
export type RowOf<T extends Table, K extends keyof InferSelectModel<T>> = Pick<InferSelectModel<T>, K>;

/**
 * `"r"."current_parameters" as "currentParameters", …`: a select list whose column names
 * come from the drizzle schema and whose keys are its property names, so that a row typed
 * `RowOf<table, keys>` is what the query returns. `alias` is the table's name in the query.
 */
export function selectColumns<T extends Table, K extends keyof InferSelectModel<T> & string>(
  sql: Sql,
  table: T,
  keys: readonly K[],
  alias?: string,
): Fragment {
  const columns = getTableColumns(table) as Record<string, { name: string }>;
  return joinFragments(
    sql,
    keys.map((key: string) => {
      const name = columns[key]!.name;
      return sql`${sql(alias === undefined ? name : `${alias}.${name}`)} as ${sql(key)}`;
    }),
    ",",
  );
}

/** Every column of the table, as selectColumns lists them; the rows are `table.$inferSelect`. */
export function selectAll(sql: Sql, table: Table, alias?: string): Fragment {
  return selectColumns(sql, table, Object.keys(getTableColumns(table)) as never[], alias);
}

/** `a, b, c` or `a + b + c`. */
export function joinFragments(sql: Sql, parts: readonly Fragment[], separator: "," | "+"): Fragment {
  return parts.reduce((all, part) => (separator === "," ? sql`${all}, ${part}` : sql`${all} + ${part}`));
}
