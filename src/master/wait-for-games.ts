import { expireLeases } from "../db/batches.js";
import { foldIteration } from "../db/fold.js";
import { readIteration, type IterationRow } from "../db/iterations.js";
import { rateWindowMinutes, runRate } from "../db/run-status.js";
import { PollBackoff } from "../postgres/poll-backoff.js";
import type { StatusLine } from "../core/status-line.js";
import { crashPoint } from "./crash-points.js";
import type { IterationBuilds } from "./iteration-builds.js";
import { faultWarning, formatProgress } from "./progress.js";
import type { MasterContext } from "./run-setup.js";
import { lookAtTransfers } from "./transfer.js";

/** "iteration 4", "iterations 4–7". */
export function describeIterations(ks: readonly number[]): string {
  return ks.length === 1 ? `iteration ${ks[0]}` : `iterations ${ks[0]}–${ks.at(-1)}`;
}

/** The progress of the oldest open iteration as this master watches it, across the waits that builds interrupt. */
export interface Watch {
  iterationId: number;
  warnedFaults: boolean;
}

/**
 * Waits until the workers have played the iteration's target, showing progress; looks at the
 * transfers playing meanwhile. Returns early, the iteration not complete, when one of `builds`
 * ends: the master opens it and starts the next. `iterations`: the run's, gain iterations included.
 */
export async function waitForGames(
  master: MasterContext,
  iteration: IterationRow,
  {
    status,
    watch,
    builds,
    iterations,
  }: { status: StatusLine; watch: Watch; builds: IterationBuilds<unknown>; iterations: number },
): Promise<IterationRow> {
  const { options, run, db, log } = master;
  const { config } = options;
  const poll = new PollBackoff(config.database.pollIntervalMs);
  let row = iteration;
  let built = false;
  // Only while something builds: a wait on nothing would hold its callback until the next build ends.
  const buildEnded =
    builds.iterations.length === 0
      ? undefined
      : builds.ended().then(() => {
          built = true;
        });
  try {
    for (;;) {
      options.signal?.throwIfAborted();
      const seen = row.gamesPlayed;
      await db.retrying(() => options.lease.stillLeased());
      row = await db.retrying(async (sql) => {
        // A dead worker's games are handed out again, whoever looks first.
        await expireLeases(sql);
        // Reports of workers under suspicion are held and their games played again (docs/bad-workers.md).
        await foldIteration(sql, iteration.id, { runId: run.id, reopen: true });
        return readIteration(sql, iteration.id);
      });
      // Reports arriving: look again soon, as the iteration may be about to finish.
      if (row.gamesPlayed !== seen) poll.reset();
      const rate = await db.retrying((sql) => runRate(sql, run.id, rateWindowMinutes(process.uptime())));
      const building = builds.iterations.length > 0 ? `  building ${describeIterations(builds.iterations)}` : "";
      // A run without a reference engine plays one only in its curvature pilot: θ₀.
      const opponent = run.reference === null ? "θ₀" : "reference";
      status.update(formatProgress(row, iterations, rate, opponent) + building);
      const warning = watch.warnedFaults ? undefined : faultWarning(row);
      if (warning) {
        watch.warnedFaults = true;
        status.done();
        log(warning);
      }
      await lookAtTransfers(master, (line) => {
        status.done();
        log(line);
      });
      if (row.gamesPlayed >= row.targetGames || built) break;
      if (row.gamesPlayed > 0) crashPoint("waiting");
      await (buildEnded ? Promise.race([poll.wait(options.signal), buildEnded]) : poll.wait(options.signal));
    }
  } finally {
    status.done();
  }
  return row;
}
