import type postgres from "postgres";
import { loadConfig } from "../../src/config/config.js";
import type { Param } from "../../src/params/params.js";
import { settingsOf } from "../../src/config/iteration-settings.js";
import { claimWorkerName } from "../../src/db/workers.js";
import { expireLeases, reportBatch, type ClaimedBatch } from "../../src/db/batches.js";
import { foldIteration } from "../../src/db/fold.js";
import { connect } from "../../src/postgres/connection.js";
import { insertIteration } from "../../src/db/iterations.js";
import { sha256OfFile, storeBinaries } from "../../src/engine-build/binary-store.js";
import { signedEngines } from "../../src/signing/binary-signature.js";
import { planBatchSizes, planReferenceBatchSizes } from "../../src/spsa/batch-plan.js";
import { activeGameSlots } from "../../src/db/workers.js";
import { storedRunConfig } from "../../src/config/secrets.js";
import { openRun } from "../../src/db/runs.js";
import { join } from "node:path";
import { execa } from "execa";
import { ROOT } from "./cli.js";
import { waitFor } from "./processes.js";
import { localSigningKey } from "./signing.js";
import type { TuningConfig, IterationSettings } from "../../src/types/config.js";
import { noFaults, type FaultCounts } from "../../src/types/faults.js";

/** A batch report's counts besides the games: no faults, no replays. */
export const clean = (): { faults: [FaultCounts, FaultCounts]; replays: number; replayLimitPairs: number } => ({
  faults: [noFaults(), noFaults()],
  replays: 0,
  replayLimitPairs: 0,
});

/**
 * Game pairs that hold `wins`, `losses` and `draws` (an even number of games in all), as a
 * report must give them (spsa_report_batch checks that the pairs score what the games score):
 * a win with a loss, then wins, losses and draws by twos, an odd win or loss with a draw.
 */
export function pairsOf(wins: number, losses: number, draws: number): [number, number, number, number, number] {
  const split = Math.min(wins, losses);
  const [w, l] = [wins - split, losses - split];
  const [oddWin, oddLoss] = [w % 2, l % 2];
  return [(l - oddLoss) / 2, oddLoss, split + (draws - oddWin - oddLoss) / 2, oddWin, (w - oddWin) / 2];
}

/** A worker's report of `result` for a claimed batch, as the worker sends it (pairs that score the result, no faults). */
export function reportResult(
  sql: postgres.Sql,
  worker: string,
  batch: { batchId: number },
  result: { plusWins: number; minusWins: number; draws: number },
) {
  return reportBatch(sql, {
    batchId: batch.batchId,
    workerName: worker,
    wins: result.plusWins,
    losses: result.minusWins,
    draws: result.draws,
    pairs: pairsOf(result.plusWins, result.minusWins, result.draws),
    ...clean(),
  });
}

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
    /** False: no open batches (a UCI-option carrier, whose batches the master draws). */
    openBatches?: boolean;
  },
) {
  const config = options.config ?? loadConfig("config.toml");
  const { run } = await openRun(sql, {
    name: options.runName,
    fresh: false,
    config: storedRunConfig(config),
    values: { X: 1 },
  });
  const engine = options.engine ?? { path: "/nonexistent/engine", sha256: "0".repeat(64) };
  const iteration = await insertIteration(sql, {
    runId: run.id,
    iterationNumber: options.iterationNumber ?? 1,
    ...signedEngines(
      localSigningKey().sign,
      { runUid: run.uid, iterationNumber: options.iterationNumber ?? 1 },
      {
        plus: engine,
        minus: engine,
        ...(options.reference && { reference: options.reference }),
      },
    ),
    timelowMs: 10,
    timehighMs: 20,
    targetGames: options.targetGames,
    batchSizes:
      options.openBatches === false
        ? []
        : (options.reference ? planReferenceBatchSizes : planBatchSizes)(
            options.targetGames,
            options.batchSize ?? config.games.batchSize,
            await activeGameSlots(sql),
          ),
    ck: 1,
    ak: 0.1,
    base: { X: 1 },
    plusValues: { X: 2 },
    minusValues: { X: 0 },
    signs: { X: 1 },
    settings: settingsOf(config, options.params ?? []),
  });
  return { run, iteration };
}

/** Folds every open iteration of the run, as its master does on each poll (for tests that run workers without one). */
export async function foldRun(sql: postgres.Sql, runName: string): Promise<void> {
  const iterations = await sql<
    { id: number }[]
  >`select i.id from spsa_iteration i join spsa_run r on r.id = i.run_id where r.name = ${runName}`;
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
  /** Its games: in build mode the games per iteration it was played with. */
  target_games: number;
  settings: IterationSettings;
  elo_diff: number | null;
}

/** The recorded iterations of a run, in order. */
export async function recordedIterations(sql: postgres.Sql, runName: string): Promise<RecordedIteration[]> {
  return sql<RecordedIteration[]>`
    select i.iteration_number, i.a_k, i.base_parameters, i.plus_parameters, i.minus_parameters, i.plus_wins, i.minus_wins, i.draws, i.games_played, i.target_games, i.settings,
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
          // Games not reported yet (a UCI-option run's master draws more as the pool empties).
          const [left] = await db<{ n: number }[]>`
            select (select target_games from spsa_iteration where id = ${iterationId}) - coalesce(sum(games), 0)::int as n
            from spsa_batch where iteration_id = ${iterationId} and status = 'done'`;
          if (left!.n === 0) return;
          await new Promise((resolve) => setTimeout(resolve, 2));
        }
      }),
    );
  } finally {
    await Promise.all(connections.map((c) => c.end()));
  }
}

/**
 * Runs `fn(sql, ...args)` of the built module `dist/<module>` (npm test builds dist/) in a
 * child process and kills it with -9 while its transaction waits for the lock another
 * transaction holds on batch `batchId`, i.e. midway, after its earlier statements. The lock is
 * released then; returns once the server has ended the dead process's session (its
 * transaction, never committed, rolled back).
 */
export async function killWhileWaitingOnBatch(
  url: string,
  batchId: number,
  work: { module: string; fn: string; args: unknown[] },
): Promise<void> {
  const name = `spsa-kill-${process.pid}-${batchId}`;
  const script = `const { connect } = await import(${JSON.stringify(join(ROOT, "dist/postgres/connection.js"))});
    const m = await import(${JSON.stringify(join(ROOT, "dist", work.module))});
    const sql = connect(process.env.URL, 1, { connection: { application_name: ${JSON.stringify(name)} } });
    await m[${JSON.stringify(work.fn)}](sql, ...${JSON.stringify(work.args)});
    await sql.end();`;
  const [holder, watcher] = [connect(url, 1), connect(url, 1)];
  let release = () => {};
  const child = execa("node", ["--input-type=module", "-e", script], { env: { URL: url }, reject: false, all: true });
  try {
    const released = new Promise<void>((resolve) => (release = resolve));
    let locked = () => {};
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    const holding = holder.begin(async (tx) => {
      await tx`select id from spsa_batch where id = ${batchId} for update`;
      locked();
      await released;
    });
    await isLocked;
    const sessions = (wait: boolean) => watcher<{ n: number }[]>`
      select count(*)::int as n from pg_stat_activity where application_name = ${name} and (not ${wait} or wait_event_type = 'Lock')`;
    await waitFor(
      async () => (await sessions(true))[0]?.n === 1,
      30_000,
      `the child to wait for batch ${batchId}'s lock`,
    );
    child.kill("SIGKILL");
    const result = await child;
    if (result.signal !== "SIGKILL") throw new Error(`the child ended before it was killed: ${result.all ?? ""}`);
    release();
    await holding;
    // The server ends the session at its next read from the dead client, its transaction aborted.
    await waitFor(
      async () => (await sessions(false))[0]?.n === 0,
      30_000,
      "the server to end the killed child's session",
    );
  } finally {
    release();
    child.kill("SIGKILL");
    await Promise.all([holder, watcher].map((c) => c.end()));
  }
}

/** Stores the file at `path` in spsa_binary as a master does (storeBinaries); returns its sha256. */
export async function storeFile(sql: postgres.Sql, path: string): Promise<string> {
  const hash = sha256OfFile(path);
  await sql.begin((tx) => storeBinaries(tx, [{ path, sha256: hash }]));
  return hash;
}
