-- A worker names no lease: spsa_claim_batch and spsa_heartbeat lose p_lease_seconds, which they
-- ignored since the lease became the iteration's (spsa_lease, the master's [games] lease_seconds).
-- The claim also rounds what the worker asks for itself: down to whole units of the iteration (a
-- game pair; four games in reference mode), at least one, so a worker decides no batch's shape.
-- A worker of an earlier version still passes one: its claim fails (no such function) until it is upgraded too.
DROP FUNCTION spsa_claim_batch(text, int, float8, int[]);--> statement-breakpoint
CREATE FUNCTION spsa_claim_batch(p_worker text, p_max_games int, p_skip int[])
RETURNS TABLE (batch_id bigint, iteration_id int, games int, lease_seconds float8)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  v_iteration int;
  v_reference boolean;
  v_options boolean;
  v_open spsa_batch%ROWTYPE;
  v_unit int;
  v_games int;
  v_lease interval;
BEGIN
  PERFORM spsa_own_worker(p_worker);
  IF p_max_games IS NULL OR p_max_games < 1 OR p_max_games > spsa_limit('batch_games') THEN
    RAISE EXCEPTION 'a claim asks for 1 to % games, got %', spsa_limit('batch_games'), p_max_games USING ERRCODE = 'invalid_parameter_value';
  END IF;
  IF cardinality(p_skip) > spsa_limit('held_batches') THEN
    RAISE EXCEPTION 'a claim skips at most % iterations', spsa_limit('held_batches') USING ERRCODE = 'invalid_parameter_value';
  END IF;
  FOR v_iteration, v_reference, v_options IN
    SELECT i.id, i.reference_engine_sha256 IS NOT NULL, EXISTS (SELECT 1 FROM spsa_option_run o WHERE o.iteration_id = i.id)
    FROM spsa_iteration i JOIN spsa_run r ON r.id = i.run_id
    WHERE i.status <> 'complete' AND r.status = 'active' AND i.id <> ALL(coalesce(p_skip, '{}')) ORDER BY i.id
  LOOP
    IF v_options THEN
      SELECT b.* INTO v_open FROM spsa_batch b WHERE b.iteration_id = v_iteration AND b.status = 'open'
        AND EXISTS (SELECT 1 FROM spsa_perturbation p WHERE p.batch_id = b.id)
      ORDER BY b.iteration_id, b.id LIMIT 1 FOR UPDATE SKIP LOCKED;
    ELSE
      SELECT b.* INTO v_open FROM spsa_batch b WHERE b.iteration_id = v_iteration AND b.status = 'open'
      ORDER BY b.iteration_id, b.id LIMIT 1 FOR UPDATE SKIP LOCKED;
    END IF;
    EXIT WHEN FOUND;
  END LOOP;
  IF v_open.id IS NULL THEN RETURN; END IF;
  -- A UCI-option batch is taken whole, with the master's draw; others split at the worker's claim.
  v_unit := CASE WHEN v_reference THEN 4 ELSE 2 END;
  v_games := CASE WHEN v_options THEN v_open.games ELSE least(greatest(v_unit, p_max_games - p_max_games % v_unit), v_open.games) END;
  IF v_games < v_open.games THEN
    INSERT INTO spsa_batch (iteration_id, games, games_before, status)
    VALUES (v_open.iteration_id, v_open.games - v_games, v_open.games_before + v_games, 'open');
  END IF;
  v_lease := spsa_lease(v_open.iteration_id);
  UPDATE spsa_batch SET status = 'claimed', worker_name = p_worker, games = v_games, claimed_at = now(), lease_expires_at = now() + v_lease
  WHERE id = v_open.id;
  IF v_options THEN
    UPDATE spsa_perturbation SET worker_name = p_worker, claimed_at = now() WHERE spsa_perturbation.batch_id = v_open.id;
  END IF;
  RETURN QUERY SELECT v_open.id, v_open.iteration_id, v_games, extract(epoch FROM v_lease)::float8;
END $$;--> statement-breakpoint
DROP FUNCTION spsa_heartbeat(text, text, bigint[], float8);--> statement-breakpoint
-- Marks the session's worker seen and extends the leases of its batches still claimed, each by its iteration's lease.
CREATE FUNCTION spsa_heartbeat(p_worker text, p_session text, p_batches bigint[])
RETURNS TABLE (owns_name boolean, held bigint[])
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  v_id bigint;
  v_batch spsa_batch%ROWTYPE;
  v_held bigint[] := '{}';
BEGIN
  IF cardinality(p_batches) > spsa_limit('held_batches') THEN
    RAISE EXCEPTION 'a heartbeat names at most % batches', spsa_limit('held_batches') USING ERRCODE = 'invalid_parameter_value';
  END IF;
  UPDATE spsa_worker SET last_seen_at = now() WHERE name = p_worker AND session_id = p_session AND login_role = session_user;
  IF NOT FOUND THEN RETURN QUERY SELECT false, '{}'::bigint[]; RETURN; END IF;
  FOREACH v_id IN ARRAY (SELECT coalesce(array_agg(DISTINCT x ORDER BY x), '{}') FROM unnest(p_batches) x) LOOP
    SELECT * INTO v_batch FROM spsa_batch WHERE id = v_id FOR UPDATE;
    CONTINUE WHEN NOT FOUND OR v_batch.worker_name IS DISTINCT FROM p_worker OR v_batch.status <> 'claimed';
    UPDATE spsa_batch SET lease_expires_at = now() + spsa_lease(v_batch.iteration_id) WHERE id = v_id;
    v_held := v_held || v_id;
  END LOOP;
  RETURN QUERY SELECT true, v_held;
END $$;--> statement-breakpoint
-- Only the worker group may call them (src/postgres/worker-role.ts grants it again after every migration).
REVOKE EXECUTE ON FUNCTION spsa_claim_batch(text, int, int[]), spsa_heartbeat(text, text, bigint[]) FROM PUBLIC;--> statement-breakpoint
DO $$ BEGIN
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'spsa_workers') THEN
    GRANT EXECUTE ON FUNCTION spsa_claim_batch(text, int, int[]), spsa_heartbeat(text, text, bigint[]) TO spsa_workers;
  END IF;
END $$;
