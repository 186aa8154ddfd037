import { openDatabase } from "../postgres/connection.js";
import { renderStatus } from "../status/render.js";
import { renderLegend } from "../status/legend.js";
import { requireRun } from "../status/run-lookup.js";
import { readRunStatus, type RunStatus } from "../status/snapshot.js";
import { databaseOptionsFrom } from "./database-options.js";

export interface StatusCommandOptions {
  config?: string;
  /** The run; default: the tuning run that started an iteration last. */
  name?: string;
  json?: boolean;
  /** Every parameter, not only those that moved most (a run of more than LISTED_PARAMETERS). */
  all?: boolean;
  /** The screen, then what its words mean (src/status/legend.ts). */
  explain?: boolean;
  out?: (text: string) => void;
}

/** A sparkline this wide fits next to the parameter columns on an 100-column terminal. */
const SPARKLINE_POINTS = 24;

/** `spsa status`: one screen about a run, or the same data as JSON. */
export async function statusCommand(options: StatusCommandOptions = {}): Promise<RunStatus> {
  const out = options.out ?? ((text: string) => process.stdout.write(`${text}\n`));
  const database = await openDatabase(databaseOptionsFrom(options.config));
  try {
    const run = await requireRun(database.sql, options.name);
    const status = await readRunStatus(database.sql, run, { samples: SPARKLINE_POINTS, all: options.all ?? false });
    const text = options.json ? JSON.stringify(status, null, 2) : renderStatus(status);
    out(options.explain && !options.json ? `${text}\n\n${renderLegend()}` : text);
    return status;
  } finally {
    await database.close();
  }
}
