import type postgres from "postgres";
import { loadConfig, type TuningConfig } from "../../src/config/config.js";
import type { Param } from "../../src/config/params.js";
import { settingsOf, type IterationSettings } from "../../src/config/iteration-settings.js";
import { claimWorkerName } from "../../src/db/workers.js";
import { expireLeases, foldIteration, type ClaimedBatch } from "../../src/db/batches.js";
import { connect } from "../../src/db/connection.js";
import { insertIteration } from "../../src/db/iterations.js";
import { openRun } from "../../src/db/runs.js";
import { noFaults, type FaultCounts } from "../../src/play/faults.js";
import { localSigningKey } from "./signing.js";

/** A batch report's counts besides the games: no faults, no replays. */
export const clean = (): { faults: [FaultCounts, FaultCounts]; replays: number; replayLimitPairs: number } => ({
  faults: [noFaults(), noFaults()],
  replays: 0,
  replayLimitPairs: 0,
});

/** Registers a worker whose session id is its name, taking the name whoever holds it. */
export async function registerTestWorker(sql: postgres.Sql, name: string, host = "test") {
  return claimWorkerName(sql, { name, sessionId: name, host, pid: null, concurrency: 1 }, () => false);
}

/**
 * Creates a run with one open iteration of `targetGames`, as the master would, with stand-in
 * binaries unless `engine` is given (both sides), against `reference` if given. θ is X = 1, perturbed to 2 and 0; with
 * `params` (one parameter X) the iteration records X's bounds, so the master can update it.
 */
export async function seedIteration(
  sql: postgres.Sql,
  options: {
    runName: string;
    targetGames: number;
    batchSize?: number;
    iterationNumber?: number;
    engine?: { path: string; sha256: string };
    /** Reference mode: the reference engine both sides play. */
    reference?: { path: string; sha256: string };
    config?: TuningConfig;
    params?: Param[];
  },
) {
  const config = options.config ?? loadConfig("config.toml");
  const { run } = await openRun(sql, { name: options.runName, fresh: false, config, values: { X: 1 } });
  const engine = options.engine ?? { path: "/nonexistent/engine", sha256: "0".repeat(64) };
  const iteration = await insertIteration(sql, {
    runId: run.id,
    iterationNumber: options.iterationNumber ?? 1,
    plus: engine,
    minus: engine,
    ...(options.reference && { reference: options.reference }),
    timelowMs: 10,
    timehighMs: 20,
    targetGames: options.targetGames,
    batchSize: options.batchSize ?? config.games.batchSize,
    ck: 1,
    ak: 0.1,
    base: { X: 1 },
    plusValues: { X: 2 },
    minusValues: { X: 0 },
    signs: { X: 1 },
    settings: settingsOf(config, options.params ?? []),
    sign: localSigningKey().sign,
  });
  return { run, iteration };
}

/** Folds every open iteration of the run, as its master does on each poll (for tests that run workers without one). */
export async function foldRun(sql: postgres.Sql, runName: string): Promise<void> {
  const iterations = await sql<{ id: number }[]>`select i.id from spsa_iteration i join spsa_run r on r.id = i.run_id where r.name = ${runName}`;
  for (const { id } of iterations) await foldIteration(sql, id);
}

/** An iteration's recorded row, as a replay of the formulas reads it. */
export interface RecordedIteration {
  iteration_number: number;
  a_k: number;
  base_parameters: Record<string, number>;
  plus_parameters: Record<string, number>;
  minus_parameters: Record<string, number>;
  plus_wins: number;
  minus_wins: number;
  draws: number;
  games_played: number;
  settings: IterationSettings;
  elo_diff: number | null;
}

/** The recorded iterations of a run, in order. */
export async function recordedIterations(sql: postgres.Sql, runName: string): Promise<RecordedIteration[]> {
  return sql<RecordedIteration[]>`
    select i.iteration_number, i.a_k, i.base_parameters, i.plus_parameters, i.minus_parameters, i.plus_wins, i.minus_wins, i.draws, i.games_played, i.settings,
      i.elo_diff
    from spsa_iteration i join spsa_run r on r.id = i.run_id where r.name = ${runName} order by i.iteration_number`;
}

/**
 * Workers on a connection each: every round sweeps expired leases, claims with `claim` and
 * hands the batch to `play`; a worker stops once the iteration has no open or claimed games.
 */
export async function crowdOfWorkers(
  url: string,
  names: readonly string[],
  iterationId: number,
  claim: (db: postgres.Sql, name: string, round: number) => Promise<ClaimedBatch | undefined>,
  play: (db: postgres.Sql, name: string, batch: ClaimedBatch, round: number) => Promise<void>,
): Promise<void> {
  const connections = names.map(() => connect(url, 1));
  try {
    await Promise.all(
      names.map(async (name, w) => {
        const db = connections[w]!;
        for (let round = 0; ; round++) {
          await expireLeases(db);
          const batch = await claim(db, name, round);
          if (batch) {
            await play(db, name, batch, round);
            continue;
          }
          const [left] = await db<{ n: number }[]>`select count(*)::int as n from spsa_batch where iteration_id = ${iterationId} and status in ('open', 'claimed')`;
          if (left!.n === 0) return;
          await new Promise((resolve) => setTimeout(resolve, 2));
        }
      }),
    );
  } finally {
    await Promise.all(connections.map((c) => c.end()));
  }
}
