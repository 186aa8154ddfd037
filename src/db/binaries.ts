import type postgres from "postgres";
import type { RowOf } from "./columns.js";
import type { spsaBinary } from "./schema.js";

/** SQL of engine binaries (spsa_binary), stored by sha256 so a remote worker needs only the database URL. */

export async function insertBinary(sql: postgres.Sql, hash: string, content: Buffer): Promise<void> {
  await sql`insert into spsa_binary (sha256, size, content) values (${hash}, ${content.length}, ${content})
            on conflict (sha256) do nothing`;
}

/** The stored binary with this hash, if the database has it. */
export async function storedBinary(sql: postgres.Sql, hash: string): Promise<RowOf<typeof spsaBinary, "content"> | undefined> {
  const [row] = await sql<RowOf<typeof spsaBinary, "content">[]>`select content from spsa_binary where sha256 = ${hash}`;
  return row;
}
