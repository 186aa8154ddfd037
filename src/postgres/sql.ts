import type postgres from "postgres";

/** What a statement runs on: the client, or a transaction of it. */
export type Sql = postgres.Sql | postgres.TransactionSql;
