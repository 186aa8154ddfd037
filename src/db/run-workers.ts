import type { Fragment } from "./columns.js";
import { batchDelayLosses, batchEngineFaults } from "./fault-columns.js";
import type { Sql } from "../postgres/sql.js";

/**
 * A run's games by worker (spsa_run_worker): counted by the statement that adds batches to their
 * iteration's counters, so the two never disagree, and read by spsa status and the dashboard in
 * one row per worker of the run.
 */

/**
 * A data-modifying CTE body for the fold's statement: adds (sign 1) or takes out (−1) the batches
 * of the CTE `folded` (spsa_batch rows of the iteration: worker_name, reported_at, status, games,
 * the results, faults, replays) to their workers' rows. Refused batches have no games: not counted.
 */
export function countRunWorkers(sql: Sql, iterationId: number, sign: 1 | -1): Fragment {
  const sum = (column: Fragment) => sql`${sign}::int * coalesce(sum(${column}), 0)::int`;
  // Taking a batch out leaves the first and last report times as they were.
  const when = (aggregate: "min" | "max") =>
    sign === 1 ? sql`${sql.unsafe(aggregate)}(reported_at)` : sql`null::timestamptz`;
  return sql`
    insert into spsa_run_worker as c (run_id, worker_name, batches, games, plus_wins, minus_wins, draws, engine_faults,
      delay_losses, replays, replay_limit_pairs, first_reported_at, last_reported_at)
    select (select run_id from spsa_iteration where id = ${iterationId}),
      worker_name,
      ${sign}::int * count(*)::int,
      ${sum(sql`games`)},
      ${sum(sql`plus_wins`)},
      ${sum(sql`minus_wins`)},
      ${sum(sql`draws`)},
      ${sum(batchEngineFaults(sql))},
      ${sum(batchDelayLosses(sql))},
      ${sum(sql`replays`)},
      ${sum(sql`replay_limit_pairs`)},
      ${when("min")},
      ${when("max")}
    from folded
    where status = 'done'
      and worker_name is not null
    group by worker_name
    on conflict (run_id, worker_name) do update
    set batches = c.batches + excluded.batches,
      games = c.games + excluded.games,
      plus_wins = c.plus_wins + excluded.plus_wins,
      minus_wins = c.minus_wins + excluded.minus_wins,
      draws = c.draws + excluded.draws,
      engine_faults = c.engine_faults + excluded.engine_faults,
      delay_losses = c.delay_losses + excluded.delay_losses,
      replays = c.replays + excluded.replays,
      replay_limit_pairs = c.replay_limit_pairs + excluded.replay_limit_pairs,
      first_reported_at = least(c.first_reported_at, excluded.first_reported_at),
      last_reported_at = greatest(c.last_reported_at, excluded.last_reported_at)`;
}
