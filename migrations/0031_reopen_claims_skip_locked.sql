-- Expired claims are reopened by any worker's claim and by the master at once: concurrent calls
-- each locked the rows they updated in their own order and could deadlock (seen with 20 workers
-- under load). Each call now locks the rows it takes in id order and skips those another
-- transaction holds: a concurrent call is expiring them already, or their worker is reporting.
CREATE OR REPLACE FUNCTION spsa_reopen_claims(p_worker text) RETURNS TABLE (batches int, games int)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
  RETURN QUERY
    WITH doomed AS (
      SELECT b.id FROM spsa_batch b
      WHERE b.status = 'claimed' AND b.lease_expires_at < (CASE WHEN p_worker IS NULL THEN now() ELSE 'infinity' END)
        AND (p_worker IS NULL OR b.worker_name = p_worker)
      ORDER BY b.id
      FOR UPDATE SKIP LOCKED
    ), expired AS (
      UPDATE spsa_batch b SET status = 'expired'
      FROM doomed d
      WHERE b.id = d.id
      RETURNING b.id, b.iteration_id, b.games, b.games_before
    ), reopened AS (
      INSERT INTO spsa_batch (iteration_id, games, games_before, status)
      SELECT e.iteration_id, e.games, e.games_before, 'open' FROM expired e
      WHERE NOT EXISTS (SELECT 1 FROM spsa_perturbation p WHERE p.batch_id = e.id)
      RETURNING id
    )
    SELECT count(*)::int, coalesce(sum(expired.games), 0)::int FROM expired;
END $$;
