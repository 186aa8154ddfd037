import type postgres from "postgres";
import { connect } from "../../src/postgres/connection.js";
import { issueWorkerLogin } from "../../src/postgres/worker-role.js";

/** A connection as the login role of worker machine `machine`, made for the test (as `spsa db worker-url` makes it). */
export async function workerConnection(
  database: { sql: postgres.Sql; url: string },
  machine: string,
  max = 1,
): Promise<{ sql: postgres.Sql; role: string }> {
  const { role, password } = await issueWorkerLogin(database.sql, machine);
  const url = new URL(database.url);
  url.username = role;
  url.password = password;
  return { sql: connect(url.href, max), role };
}
