import { openDatabase } from "../postgres/connection.js";
import { requireTexelRun } from "../status/run-lookup.js";
import { renderTexelStatus } from "../status/texel-render.js";
import { texelStatus, type TexelStatus } from "../status/texel-status.js";
import { databaseOptionsFrom } from "./database-options.js";

export interface TexelStatusCommandOptions {
  config?: string;
  /** The texel_run id; default: the latest run. */
  id?: number;
  json?: boolean;
  out?: (text: string) => void;
}

/** `spsa status --texel`: one screen about a stored Texel run, or the same data as JSON. */
export async function texelStatusCommand(options: TexelStatusCommandOptions = {}): Promise<TexelStatus> {
  const out = options.out ?? ((text: string) => process.stdout.write(`${text}\n`));
  const database = await openDatabase(databaseOptionsFrom(options.config));
  try {
    const status = texelStatus(await requireTexelRun(database.sql, options.id));
    out(options.json ? JSON.stringify(status, null, 2) : renderTexelStatus(status));
    return status;
  } finally {
    await database.close();
  }
}
