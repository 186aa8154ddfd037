import type postgres from "postgres";

/**
 * A verification as the database holds it: its labels and status, its carrier iteration's games,
 * the results counted in it, its reported batches' games (each counted once: all three equal once
 * it is complete), and whether its carrier plays a UCI-option run's options.
 */
export interface VerificationGames {
  id: number;
  stage: string | null;
  from_label: string;
  to_label: string;
  status: string;
  target_games: number;
  games_played: number;
  results: number;
  batch_games: number;
  options_run: boolean;
}

/** The verifications (`ship`: only the ship check's matches), oldest first. */
export async function verificationGames(sql: postgres.Sql, ship = false): Promise<VerificationGames[]> {
  return sql<VerificationGames[]>`
    select v.id, v.ship_stage as stage, v.from_label, v.to_label, v.status, i.target_games, i.games_played,
      i.plus_wins + i.minus_wins + i.draws as results,
      (select coalesce(sum(games), 0)::int from spsa_batch b where b.iteration_id = i.id and b.status = 'done') as batch_games,
      coalesce(i.options_run_id = v.run_id, false) as options_run
    from spsa_verification v join spsa_iteration i on i.run_id = v.carrier_run_id
    where ${ship ? sql`v.ship_check_id is not null` : sql`true`}
    order by v.id`;
}
