import type { Sql } from "../postgres/sql.js";
import type { GainBlock } from "../spsa/gain-so-far.js";
import { gainIteration } from "./iterations.js";
import { carrierProgress, optionRunOf } from "./option-run.js";

/**
 * SQL of a UCI-option run's gain blocks (src/spsa/gain-block-plan.ts): spsa_perturbation rows
 * marked `gain`, whose plus and minus are both θ as it was when drawn and each play θ₀
 * (reference_parameters, so the pilot's partial index finds them too). A block that counts is
 * reported and not set aside (held or undone: its games are drawn again, as a new block). In build
 * mode a block is a gain iteration (spsa_iteration, settings `gain`), which counts once complete.
 */

/** Games of the run's gain blocks given out: open, claimed or played, not set aside. */
export async function gainGamesGivenOut(tx: Sql, runId: number): Promise<number> {
  const [row] = await tx<{ games: number }[]>`
    select coalesce(sum(b.games), 0)::int as games
    from spsa_perturbation p
    join spsa_batch b on b.id = p.batch_id
    where p.run_id = ${runId}
      and p.reference_parameters is not null
      and p.gain
      and b.status in ('open', 'claimed', 'done')
      and b.held_at is null
      and b.undo_id is null`;
  return row?.games ?? 0;
}

/**
 * The run's played gain blocks that count, in the order they were drawn: each `at` the run's games
 * given out when it was drawn (its games_before), its result from θ's side (θ's wins against θ₀ as
 * plusWins), both sides of the batch pooled.
 */
export async function playedGainBlocks(sql: Sql, runId: number): Promise<GainBlock[]> {
  const rows = await sql<{ at: number; wins: number; losses: number; draws: number }[]>`
    select b.games_before as at,
      (b.ref_plus_wins + b.ref_minus_wins)::int as wins,
      (b.ref_plus_losses + b.ref_minus_losses)::int as losses,
      (b.ref_plus_draws + b.ref_minus_draws)::int as draws
    from spsa_perturbation p
    join spsa_batch b on b.id = p.batch_id
    where p.run_id = ${runId}
      and p.reference_parameters is not null
      and p.gain
      and b.status = 'done'
      and b.held_at is null
      and b.undo_id is null
    order by b.games_before, b.id`;
  return rows.map((r) => ({ at: r.at, result: { plusWins: r.wins, minusWins: r.losses, draws: r.draws } }));
}

/**
 * A build-mode run's completed gain iterations as blocks: each `at` the games of the run's
 * iterations before it, its result θ's against θ₀, both sides pooled.
 */
export async function completedGainIterations(sql: Sql, runId: number): Promise<GainBlock[]> {
  const rows = await sql<{ at: number; wins: number; losses: number; draws: number }[]>`
    select at, wins, losses, draws
    from (
      select (sum(target_games) over (order by iteration_number) - target_games)::int as at,
        (ref_plus_wins + ref_minus_wins)::int as wins,
        (ref_plus_losses + ref_minus_losses)::int as losses,
        (ref_plus_draws + ref_minus_draws)::int as draws,
        status,
        ${gainIteration(sql)} as gain
      from spsa_iteration
      where run_id = ${runId}
    ) i
    where gain
      and status = 'complete'
    order by at`;
  return rows.map((r) => ({ at: r.at, result: { plusWins: r.wins, minusWins: r.losses, draws: r.draws } }));
}

/** What a run's gain is read from (readGain): its counted blocks, the games it played and its budget. */
export interface GainGames {
  blocks: GainBlock[];
  played: number;
  target: number;
}

/**
 * A run's gain games, in either mode: a UCI-option run's blocks with its carrier's games and
 * target; a build-mode run's gain iterations with its iterations' games played and its budget
 * (max_iterations × games_per_iteration as its latest tuner iteration recorded them).
 */
export async function runGainGames(sql: Sql, runId: number): Promise<GainGames> {
  const optionRun = await optionRunOf(sql, runId);
  if (optionRun) {
    const [carrier, blocks] = await Promise.all([
      carrierProgress(sql, optionRun.iterationId),
      playedGainBlocks(sql, runId),
    ]);
    return { blocks, played: carrier.gamesPlayed, target: carrier.targetGames };
  }
  const [[games], blocks] = await Promise.all([
    sql<{ played: number; target: number | null }[]>`
      select coalesce(sum(games_played), 0)::int as played,
        (
          select ((settings->'spsa'->>'maxIterations')::int * target_games)::int
          from spsa_iteration
          where run_id = ${runId}
            and not ${gainIteration(sql)}
          order by iteration_number desc
          limit 1
        ) as target
      from spsa_iteration
      where run_id = ${runId}`,
    completedGainIterations(sql, runId),
  ]);
  return { blocks, played: games?.played ?? 0, target: games?.target ?? 0 };
}
