import type postgres from "postgres";
import { spsaMathConfig } from "../../src/config/config.js";
import type { Param } from "../../src/params/params.js";
import { insertOptionRun } from "../../src/db/option-run.js";
import { countWorkerAsFolded, writeSyntheticRun } from "./synthetic-run.js";
import type { TuningConfig } from "../../src/types/config.js";

/**
 * A UCI-option run written straight into the database as its master and workers leave it
 * (the carrier iteration, its option settings, done batches each with its applied draw, the
 * carrier's counters their sums), with known results and times: for bench/status-bench.mjs
 * and the status and dashboard tests of UCI-option runs. θ does not move: the rows are
 * about games, Elo and time, not about the draws' math (src/spsa/option-batches.ts has its own tests).
 */
export interface SyntheticOptionRunOptions {
  name: string;
  config: TuningConfig;
  params: Param[];
  workerName: string;
  /**
   * Plus's wins in each batch of `[games] batch_size` games, in the order the batches moved
   * θ (one batch each): won in pairs of a win and a draw, the other pairs drawn.
   */
  wins: readonly number[];
  /**
   * Batch i (from 0) is played by slot i mod `slots`, claimed at `startedAt` + ⌊i / slots⌋
   * × batchSeconds and reported batchSeconds later; the run started at `startedAt`.
   */
  startedAt: Date;
  batchSeconds: number;
  slots: number;
  /**
   * Gain blocks (docs/gain-so-far.md) as the master draws them and workers report them: each
   * drawn after `at` games, θ against θ₀ (its wins, losses and draws from θ's side, split
   * between the two sides as evenly as they go), reported with the last batch.
   */
  gainBlocks?: readonly { at: number; wins: number; losses: number; draws: number }[];
}

export async function writeSyntheticOptionRun(
  sql: postgres.Sql,
  options: SyntheticOptionRunOptions,
): Promise<{ runId: number; iterationId: number }> {
  const { config, params } = options;
  const { runId, open } = await writeSyntheticRun(sql, {
    name: options.name,
    config,
    params,
    iterations: 0,
    open: true,
    workerName: options.workerName,
  });
  if (!open) throw new Error("writeSyntheticRun opened no iteration");
  const perIteration = config.games.gamesPerIteration;
  const games = config.games.batchSize;
  const parameters = Object.fromEntries(
    params.map((p) => [
      p.name,
      {
        min: p.min,
        max: p.max,
        step: p.step,
        type: p.type,
        frozen: false,
        option: p.option ?? p.name,
        optionScale: p.optionScale,
      },
    ]),
  );
  const names = params.map((p) => p.name);
  await insertOptionRun(sql, {
    runId,
    iterationId: open.id,
    enginePath: "/nonexistent/engine",
    engineSha256: "0".repeat(64),
    parameters,
    names,
    thetaEvery: 1,
    gains: spsaMathConfig(config.spsa, perIteration),
    gamesPerIteration: perIteration,
    parametersSignature: null,
  });
  // The carrier's own planned batches make way for the played ones.
  await sql`delete from spsa_batch where iteration_id = ${open.id}`;
  const claimed = sql`${options.startedAt}::timestamptz + make_interval(secs => ((x.i - 1) / ${options.slots}::int)::int * ${options.batchSeconds}::float8)`;
  await sql`
    with b as (
      insert into spsa_batch (iteration_id, worker_name, games, status, folded, games_before, claimed_at, lease_expires_at, reported_at, plus_wins, minus_wins, draws, pairs)
      select ${open.id}, ${options.workerName}, ${games}, 'done', true, (x.i - 1) * ${games}, ${claimed}, ${claimed} + make_interval(secs => ${options.batchSeconds}::float8),
        ${claimed} + make_interval(secs => ${options.batchSeconds}::float8), x.w, 0, ${games} - x.w, json_build_array(0, 0, ${games / 2} - x.w, x.w, 0)
      from unnest(${sql.array([...options.wins])}::int[]) with ordinality as x(w, i)
      returning id, games, plus_wins, minus_wins, draws, pairs, claimed_at, reported_at)
    insert into spsa_perturbation (batch_id, run_id, batch_number, draw_number, worker_name, games, k, c_k, a_k, drawn_from, signs, step_scale,
      plus_wins, minus_wins, draws, pairs, elo_diff, theta_after, claimed_at, reported_at, applied_number)
    select b.id, r.id, b.id, b.id, ${options.workerName}, b.games, 1, 1, 1, 0, repeat('1', ${names.length})::varbit, 1,
      b.plus_wins, b.minus_wins, b.draws, b.pairs, 0, ${sql.array(params.map((p) => p.value))}::float8[], b.claimed_at, b.reported_at,
      row_number() over (order by b.reported_at, b.id)
    from b, spsa_run r where r.id = ${runId}`;
  // The carrier's counters are its batches' sums, as the master's folds leave them.
  await sql`
    update spsa_iteration i set created_at = ${options.startedAt}, target_games = greatest(${config.spsa.maxIterations * perIteration}, s.games),
      games_claimed = s.games, games_played = s.games, plus_wins = s.w, minus_wins = s.l, draws = s.d,
      pairs_ll = s.ll, pairs_ld = s.ld, pairs_dd = s.dd, pairs_dw = s.dw, pairs_ww = s.ww
    from (select coalesce(sum(games), 0)::int as games, coalesce(sum(plus_wins), 0)::int as w, coalesce(sum(minus_wins), 0)::int as l,
      coalesce(sum(draws), 0)::int as d, coalesce(sum((pairs->>0)::int), 0)::int as ll, coalesce(sum((pairs->>1)::int), 0)::int as ld,
      coalesce(sum((pairs->>2)::int), 0)::int as dd, coalesce(sum((pairs->>3)::int), 0)::int as dw, coalesce(sum((pairs->>4)::int), 0)::int as ww
      from spsa_batch where iteration_id = ${open.id}) s
    where i.id = ${open.id}`;
  const reported = new Date(options.startedAt.getTime() + options.wins.length * options.batchSeconds * 1000);
  if (options.gainBlocks)
    await writeGainBlocks(
      sql,
      { runId, iterationId: open.id, params, workerName: options.workerName, reported },
      options.gainBlocks,
    );
  await countWorkerAsFolded(sql, runId, options.workerName);
  return { runId, iterationId: open.id };
}

/**
 * Gain blocks as the master stores them (src/master/draw-pool.ts) and folds them: a batch against
 * the reference whose perturbation is marked `gain`, θ₀ (the run's start values) its reference,
 * plus and minus θ; its games added to the carrier's on the reference's side (its budget grown to
 * hold them).
 */
export async function writeGainBlocks(
  sql: postgres.Sql,
  run: { runId: number; iterationId: number; params: Param[]; workerName: string; reported: Date },
  blocks: NonNullable<SyntheticOptionRunOptions["gainBlocks"]>,
): Promise<void> {
  const theta0 = Object.fromEntries(run.params.map((p) => [p.name, p.value]));
  for (const block of blocks) {
    const games = block.wins + block.losses + block.draws;
    // θ's results split between the sides, each playing half the games: θ+ the larger half of the wins and draws.
    const plus = { wins: Math.ceil(block.wins / 2), draws: Math.ceil(block.draws / 2), losses: 0 };
    plus.losses = games / 2 - plus.wins - plus.draws;
    const minus = { wins: block.wins - plus.wins, draws: block.draws - plus.draws, losses: block.losses - plus.losses };
    if (games % 2 !== 0 || plus.losses < 0 || minus.losses < 0)
      throw new Error(
        `gain block at ${block.at}: cannot split +${block.wins} -${block.losses} =${block.draws} between two sides`,
      );
    const [batch] = await sql<{ id: number }[]>`
      insert into spsa_batch (iteration_id, games, games_before, status, folded, worker_name, claimed_at, lease_expires_at, reported_at,
        plus_wins, minus_wins, draws, pairs, ref_plus_wins, ref_plus_draws, ref_plus_losses, ref_minus_wins, ref_minus_draws, ref_minus_losses)
      values (${run.iterationId}, ${games}, ${block.at}, 'done', true, ${run.workerName}, ${run.reported}, ${run.reported}, ${run.reported},
        0, 0, 0, ${sql.json([0, 0, games / 2, 0, 0])}, ${plus.wins}, ${plus.draws}, ${plus.losses}, ${minus.wins}, ${minus.draws}, ${minus.losses})
      returning id::int`;
    await sql`
      insert into spsa_perturbation (batch_id, run_id, batch_number, draw_number, worker_name, games, k, c_k, a_k, drawn_from, signs,
        plus_parameters, minus_parameters, reference_parameters, gain, claimed_at, reported_at)
      values (${batch!.id}, ${run.runId}, ${batch!.id}, ${batch!.id}, ${run.workerName}, ${games}, 1, 0, 0, 0, '0'::varbit,
        ${sql.json(theta0)}, ${sql.json(theta0)}, ${sql.json(theta0)}, true, ${run.reported}, ${run.reported})`;
    await sql`
      update spsa_iteration set games_claimed = games_claimed + ${games}, games_played = games_played + ${games},
        target_games = greatest(target_games, games_played + ${games}),
        ref_plus_wins = ref_plus_wins + ${plus.wins}, ref_plus_draws = ref_plus_draws + ${plus.draws}, ref_plus_losses = ref_plus_losses + ${plus.losses},
        ref_minus_wins = ref_minus_wins + ${minus.wins}, ref_minus_draws = ref_minus_draws + ${minus.draws}, ref_minus_losses = ref_minus_losses + ${minus.losses}
      where id = ${run.iterationId}`;
  }
}
