import type postgres from "postgres";

/** What a statement runs on: the client, or a transaction of it. */
export type Sql = postgres.Sql | postgres.TransactionSql;

/**
 * A value as plain JSON, for `sql.json`: what JSON.stringify keeps of it (an absent optional
 * field is dropped, as jsonb stores it).
 */
export function asJson(value: unknown): postgres.JSONValue {
  return JSON.parse(JSON.stringify(value)) as postgres.JSONValue;
}
