import type postgres from "postgres";
import { spsaMathConfig } from "../../src/config/config.js";
import type { Param } from "../../src/params/params.js";
import { settingsOf } from "../../src/config/iteration-settings.js";
import { insertIteration, type IterationRow } from "../../src/db/iterations.js";
import { signedEngines } from "../../src/signing/binary-signature.js";
import { planBatchSizes } from "../../src/spsa/batch-plan.js";
import { storedRunConfig } from "../../src/config/secrets.js";
import { openRun } from "../../src/db/runs.js";
import { valuesOf } from "../../src/params/params.js";
import { perturb, update } from "../../src/spsa/math.js";
import { createRng } from "../../src/core/rng.js";
import { claimWorkerName } from "../../src/db/workers.js";
import { eloBetween, type EngineModel } from "../../src/simulate/engine-model.js";
import { playGames } from "../../src/simulate/game-model.js";
import type { TuningConfig } from "../../src/types/config.js";

/**
 * A run written straight into the database as if a master and a worker had played it: the
 * master's own math (perturb, update) on game results drawn from a seeded generator, rows
 * and batches shaped as the real ones. For bench/status-bench.mjs (a 10,000-iteration run
 * in seconds) and the status, export and dashboard tests, which need runs of a known shape
 * without hours of games.
 */
export interface SyntheticRunOptions {
  name: string;
  config: TuningConfig;
  params: Param[];
  /** Completed iterations. */
  iterations: number;
  /** Also start iteration iterations + 1 (nothing claimed), as a master waiting for games. */
  open?: boolean;
  /** Registered, and named in the batches. */
  workerName: string;
  /** When the last completed iteration ended (default now); iterations are a minute apart. */
  endedAt?: Date;
  /** Games drawn from this engine (draw rate 0.4 at equal strength), so a fit of the run has a known answer; absent: plus and minus are equal. */
  engine?: EngineModel;
}

const ROWS_PER_INSERT = 500;
/** Pair outcomes LL, LD, DD, DW, WW of equal engines. */
const PAIR_ODDS = [0.1, 0.2, 0.4, 0.2, 0.1];
const PAIR_POINTS: [number, number, number][] = [
  [0, 2, 0],
  [0, 1, 1],
  [0, 0, 2],
  [1, 0, 1],
  [2, 0, 0],
];

export async function writeSyntheticRun(
  sql: postgres.Sql,
  options: SyntheticRunOptions,
): Promise<{ runId: number; open: IterationRow | undefined }> {
  const { config, iterations } = options;
  const perIteration = config.games.gamesPerIteration;
  const math = spsaMathConfig(config.spsa, perIteration);
  const settings = JSON.parse(JSON.stringify(settingsOf(config, options.params)));
  const { run } = await openRun(sql, {
    name: options.name,
    fresh: true,
    config: storedRunConfig(config),
    values: valuesOf(options.params),
  });
  await claimWorkerName(
    sql,
    { name: options.workerName, sessionId: options.workerName, host: "synthetic", pid: null, concurrency: 2 },
    () => false,
  );
  const ended = (options.endedAt ?? new Date()).getTime();

  let params = options.params;
  let rows: Record<string, unknown>[] = [];
  for (let k = 1; k <= iterations; k++) {
    const rng = createRng(`${options.name}:${k}`);
    const played = perturb(params, math, k, rng);
    const pairs = [0, 0, 0, 0, 0];
    let [plusWins, minusWins, draws] = [0, 0, 0];
    const elo = options.engine && eloBetween(options.engine, played.plus, played.minus);
    // Per game from the plus engine's side: 0 loss, 1 draw, 2 win (the simulator's game model); or a pair outcome of equal engines.
    const game = (e: number) => {
      const one = playGames(e, 1, 0.4, rng);
      return 2 * one.plusWins + one.draws;
    };
    for (let p = 0; p < perIteration / 2; p++) {
      const games = elo === undefined ? undefined : [game(elo), game(elo)];
      const outcome = games ? games[0]! + games[1]! : pick(rng.next());
      pairs[outcome] = (pairs[outcome] ?? 0) + 1;
      const [w, l, d] = games
        ? [
            games.filter((g) => g === 2).length,
            games.filter((g) => g === 0).length,
            games.filter((g) => g === 1).length,
          ]
        : PAIR_POINTS[outcome]!;
      [plusWins, minusWins, draws] = [plusWins + w, minusWins + l, draws + d];
    }
    const result = update(params, played, { plusWins, minusWins, draws }, config.spsa);
    const completedAt = ended - (iterations - k) * 60_000;
    rows.push({
      k,
      ck: played.ck,
      ak: played.ak,
      base: valuesOf(params),
      after: { ...valuesOf(params), ...result.newValues },
      plus: played.plus,
      minus: played.minus,
      signs: played.signs,
      gradient: result.gradient,
      elo: result.elo,
      plus_wins: plusWins,
      minus_wins: minusWins,
      draws,
      pairs,
      created_at: new Date(completedAt - 55_000).toISOString(),
      completed_at: new Date(completedAt).toISOString(),
    });
    params = params.map((p) => ({ ...p, value: result.newValues[p.name] ?? p.value }));
    if (rows.length === ROWS_PER_INSERT || k === iterations) {
      await insertCompleted(sql, run.id, perIteration, settings, rows);
      rows = [];
    }
  }
  await insertBatches(sql, run.id, options.workerName, config.games.batchSize);
  await countWorkerAsFolded(sql, run.id, options.workerName);
  await sql`update spsa_run set current_parameters = ${sql.json(valuesOf(params))} where id = ${run.id}`;
  if (!options.open) return { runId: run.id, open: undefined };
  const engine = { path: "/nonexistent/engine", sha256: "0".repeat(64) };
  const next = iterations + 1;
  const played = perturb(params, math, next, createRng(`${options.name}:${next}`));
  const open = await insertIteration(sql, {
    runId: run.id,
    iterationNumber: next,
    timelowMs: config.timeControl.timelowMs,
    // Its binaries do not exist: unsigned, so no worker would run anything of it.
    ...signedEngines(null, { runUid: run.uid, iterationNumber: next }, { plus: engine, minus: engine }),
    timehighMs: config.timeControl.timehighMs,
    targetGames: perIteration,
    batchSizes: planBatchSizes(perIteration, config.games.batchSize, 0),
    ck: played.ck,
    ak: played.ak,
    base: valuesOf(params),
    plusValues: played.plus,
    minusValues: played.minus,
    signs: played.signs,
    settings: settingsOf(config, params),
  });
  return { runId: run.id, open };
}

function pick(u: number): number {
  let acc = 0;
  const index = PAIR_ODDS.findIndex((p) => (acc += p) > u);
  return index < 0 ? PAIR_ODDS.length - 1 : index;
}

async function insertCompleted(
  sql: postgres.Sql,
  runId: number,
  games: number,
  settings: unknown,
  rows: Record<string, unknown>[],
): Promise<void> {
  await sql`
    insert into spsa_iteration (run_id, iteration_number, plus_engine_path, minus_engine_path, plus_engine_sha256, minus_engine_sha256,
      timelow_ms, timehigh_ms, target_games, games_claimed, games_played, plus_wins, minus_wins, draws,
      pairs_ll, pairs_ld, pairs_dd, pairs_dw, pairs_ww, status, c_k, a_k, base_parameters, theta_after, plus_parameters, minus_parameters,
      perturbation_signs, settings, gradient_estimate, elo_diff, created_at, completed_at)
    select ${runId}, x.k, '/nonexistent/plus', '/nonexistent/minus', ${"0".repeat(64)}, ${"0".repeat(64)},
      10, 20, ${games}, ${games}, ${games}, x.plus_wins, x.minus_wins, x.draws,
      (x.pairs->>0)::int, (x.pairs->>1)::int, (x.pairs->>2)::int, (x.pairs->>3)::int, (x.pairs->>4)::int,
      'complete', x.ck, x.ak, x.base, x.after, x.plus, x.minus, x.signs, ${sql.json(settings as postgres.JSONValue)}, x.gradient, x.elo,
      x.created_at, x.completed_at
    from jsonb_to_recordset(${sql.json(rows as postgres.JSONValue)}) as x(k int, ck float8, ak float8, base jsonb, after jsonb, plus jsonb,
      minus jsonb, signs jsonb, gradient jsonb, elo float8, plus_wins int, minus_wins int, draws int, pairs jsonb,
      created_at timestamptz, completed_at timestamptz)`;
}

/** The games of every completed iteration as done batches (in its counters already), reported evenly over its minute. */
async function insertBatches(sql: postgres.Sql, runId: number, workerName: string, batchSize: number): Promise<void> {
  await sql`
    insert into spsa_batch (iteration_id, worker_name, games, status, folded, claimed_at, lease_expires_at, reported_at)
    select i.id, ${workerName}, ${batchSize}, 'done', true, i.created_at, i.completed_at,
      i.created_at + (i.completed_at - i.created_at) * (b + 1) / (i.target_games / ${batchSize})
    from spsa_iteration i cross join lateral generate_series(0, i.target_games / ${batchSize} - 1) as b
    where i.run_id = ${runId} and i.status = 'complete'`;
}

/** The run's games as its worker's (spsa_run_worker), as the master's folds count them: the sums of its iterations' counters. */
export async function countWorkerAsFolded(sql: postgres.Sql, runId: number, workerName: string): Promise<void> {
  await sql`
    insert into spsa_run_worker as c (run_id, worker_name, batches, games, plus_wins, minus_wins, draws, first_reported_at, last_reported_at)
    select ${runId}, ${workerName}, (select count(*) from spsa_batch b join spsa_iteration bi on bi.id = b.iteration_id where bi.run_id = ${runId} and b.status = 'done')::int,
      sum(games_played)::int, sum(plus_wins)::int, sum(minus_wins)::int, sum(draws)::int,
      (select min(b.reported_at) from spsa_batch b join spsa_iteration bi on bi.id = b.iteration_id where bi.run_id = ${runId}),
      (select max(b.reported_at) from spsa_batch b join spsa_iteration bi on bi.id = b.iteration_id where bi.run_id = ${runId})
    from spsa_iteration where run_id = ${runId} having sum(games_played) > 0
    on conflict (run_id, worker_name) do update set batches = excluded.batches, games = excluded.games, plus_wins = excluded.plus_wins,
      minus_wins = excluded.minus_wins, draws = excluded.draws, first_reported_at = excluded.first_reported_at, last_reported_at = excluded.last_reported_at`;
}
