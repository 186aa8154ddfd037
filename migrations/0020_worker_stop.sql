-- A worker process that stops (Ctrl-C, SIGTERM) returns the batches it still holds to the pool
-- at once (src/worker/worker.ts): their games, cut short or unreported, are played again by
-- someone else, and a late report of them is refused. Only its own: the calling role must have
-- registered the name, and the name must still be held by the session (a process that took the
-- name over with --force returned the old one's batches then, and holds its own since).
CREATE FUNCTION spsa_release_claims(p_worker text, p_session text) RETURNS TABLE (batches int, games int)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
  PERFORM spsa_check_worker(p_worker, NULL, NULL, p_session, NULL, NULL);
  PERFORM spsa_own_worker(p_worker);
  -- Locked as a takeover locks it (spsa_lock_worker_name): the session cannot change meanwhile.
  PERFORM 1 FROM spsa_worker w WHERE w.name = p_worker AND w.session_id = p_session FOR UPDATE;
  IF NOT FOUND THEN
    RETURN QUERY SELECT 0, 0;
    RETURN;
  END IF;
  RETURN QUERY SELECT * FROM spsa_reopen_claims(p_worker);
END $$;--> statement-breakpoint
REVOKE EXECUTE ON FUNCTION spsa_release_claims(text, text) FROM PUBLIC;--> statement-breakpoint
DO $$ BEGIN
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'spsa_workers') THEN
    GRANT EXECUTE ON FUNCTION spsa_release_claims(text, text) TO spsa_workers;
  END IF;
END $$;
