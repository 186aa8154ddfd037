import type { Sql } from "../postgres/sql.js";
import type { GainBlock } from "../spsa/gain-so-far.js";

/**
 * SQL of a UCI-option run's gain blocks (src/spsa/gain-block-plan.ts): spsa_perturbation rows
 * marked `gain`, whose plus and minus are both θ as it was when drawn and each play θ₀
 * (reference_parameters, so the pilot's partial index finds them too). A block that counts is
 * reported and not set aside (held or undone: its games are drawn again, as a new block).
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
