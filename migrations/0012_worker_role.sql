ALTER TABLE "spsa_worker" ADD COLUMN "login_role" text DEFAULT session_user NOT NULL;--> statement-breakpoint
-- Everything a worker writes goes through these SECURITY DEFINER functions (docs/worker-role.md):
-- they run with the owner's rights and enforce in the database what a worker may do (only under
-- names its login role registered; a batch is granted within its iteration's target and reported
-- once, with as many games as it claimed). Owner and worker roles run the same functions.
-- Nobody but the owner may call them until src/db/worker-role.ts grants them to spsa_workers.
CREATE FUNCTION spsa_own_worker(p_name text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM spsa_worker WHERE name = p_name AND login_role = session_user) THEN
    RAISE EXCEPTION 'worker name "%" is not registered by database role "%"', p_name, session_user USING ERRCODE = 'insufficient_privilege';
  END IF;
END $$;
--> statement-breakpoint
-- Claimed batches back to the pool: a worker's (p_worker) or those whose lease ran out (null).
CREATE FUNCTION spsa_return_to_pool(p_worker text) RETURNS TABLE (batches int, games int)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
  IF p_worker IS NOT NULL THEN PERFORM spsa_own_worker(p_worker); END IF;
  RETURN QUERY
    WITH expired AS (
      UPDATE spsa_batch b SET status = 'expired'
      WHERE b.status = 'claimed' AND (CASE WHEN p_worker IS NULL THEN b.lease_expires_at < now() ELSE b.worker_name = p_worker END)
      RETURNING b.iteration_id, b.games
    ), released AS (
      UPDATE spsa_iteration i SET games_claimed = i.games_claimed - e.games
      FROM (SELECT iteration_id, sum(expired.games)::int AS games FROM expired GROUP BY iteration_id) e
      WHERE i.id = e.iteration_id
      RETURNING i.id
    )
    SELECT count(*)::int, coalesce(sum(expired.games), 0)::int FROM expired;
END $$;
--> statement-breakpoint
-- Registers the name for this login role (if new) and locks its row; a name of another role is refused.
CREATE FUNCTION spsa_lock_worker_name(p_name text, p_host text, p_pid int, p_session text, p_concurrency int, p_note text)
RETURNS TABLE (inserted boolean, host text, pid int, session_id text, seconds_since_seen float8)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  v_inserted boolean;
  v_row spsa_worker%ROWTYPE;
BEGIN
  INSERT INTO spsa_worker (name, host, pid, session_id, concurrency, concurrency_note, login_role)
  VALUES (p_name, p_host, p_pid, p_session, p_concurrency, p_note, session_user)
  ON CONFLICT (name) DO NOTHING;
  v_inserted := FOUND;
  SELECT * INTO v_row FROM spsa_worker w WHERE w.name = p_name FOR UPDATE;
  IF v_row.login_role <> session_user THEN
    RAISE EXCEPTION 'worker name "%" belongs to database role "%"; choose another --name', p_name, v_row.login_role USING ERRCODE = 'insufficient_privilege';
  END IF;
  RETURN QUERY SELECT v_inserted, v_row.host, v_row.pid, v_row.session_id, extract(epoch FROM now() - v_row.last_seen_at)::float8;
END $$;
--> statement-breakpoint
-- The name becomes this process's; the batches still claimed under it go back to the pool.
CREATE FUNCTION spsa_take_worker_name(p_name text, p_host text, p_pid int, p_session text, p_concurrency int, p_note text)
RETURNS TABLE (batches int, games int)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
  PERFORM spsa_own_worker(p_name);
  UPDATE spsa_worker SET host = p_host, pid = p_pid, session_id = p_session, concurrency = p_concurrency,
    concurrency_note = p_note, started_at = now(), last_seen_at = now(), measured_nps = NULL, time_factor = NULL
  WHERE name = p_name;
  RETURN QUERY SELECT * FROM spsa_return_to_pool(p_name);
END $$;
--> statement-breakpoint
-- What a worker process records of itself (spsa status shows it); only its own session's row.
CREATE FUNCTION spsa_record_worker(p_name text, p_session text, p_concurrency int, p_note text, p_measured_nps float8, p_time_factor float8)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
  UPDATE spsa_worker SET concurrency = coalesce(p_concurrency, concurrency), concurrency_note = coalesce(p_note, concurrency_note),
    measured_nps = coalesce(p_measured_nps, measured_nps), time_factor = coalesce(p_time_factor, time_factor)
  WHERE name = p_name AND session_id = p_session AND login_role = session_user;
END $$;
--> statement-breakpoint
-- Grants least(p_max_games, target - claimed) games of the oldest open iteration, with a lease.
-- Iterations in p_skip (whose binaries the worker refused) are passed over.
CREATE FUNCTION spsa_claim_batch(p_worker text, p_max_games int, p_lease_seconds float8, p_skip int[])
RETURNS TABLE (batch_id bigint, iteration_id int, games int)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  v_iteration int;
  v_games int;
  v_batch bigint;
BEGIN
  PERFORM spsa_own_worker(p_worker);
  IF p_max_games IS NULL OR p_max_games < 1 THEN
    RAISE EXCEPTION 'a claim needs at least one game, got %', p_max_games USING ERRCODE = 'invalid_parameter_value';
  END IF;
  SELECT i.id, least(p_max_games, i.target_games - i.games_claimed) INTO v_iteration, v_games
  FROM spsa_iteration i JOIN spsa_run r ON r.id = i.run_id
  WHERE i.status <> 'complete' AND i.games_claimed < i.target_games AND r.status = 'active'
    AND i.id <> ALL(coalesce(p_skip, '{}'))
  ORDER BY i.id LIMIT 1
  FOR UPDATE OF i;
  IF NOT FOUND THEN RETURN; END IF;
  UPDATE spsa_iteration SET games_claimed = games_claimed + v_games, status = 'in_progress' WHERE id = v_iteration;
  INSERT INTO spsa_batch (iteration_id, worker_name, games, lease_expires_at)
  VALUES (v_iteration, p_worker, v_games, now() + make_interval(secs => p_lease_seconds))
  RETURNING id INTO v_batch;
  RETURN QUERY SELECT v_batch, v_iteration, v_games;
END $$;
--> statement-breakpoint
-- A worker refused the batch's binaries (unsigned, or not signed by a key it trusts): the batch
-- returns to the pool and its iteration counts the refusal, once. Returns the batches released.
CREATE FUNCTION spsa_refuse_batch(p_batch bigint, p_worker text) RETURNS int
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  v_iteration int;
  v_games int;
BEGIN
  PERFORM spsa_own_worker(p_worker);
  UPDATE spsa_batch SET status = 'expired' WHERE id = p_batch AND worker_name = p_worker AND status = 'claimed'
  RETURNING iteration_id, games INTO v_iteration, v_games;
  IF NOT FOUND THEN RETURN 0; END IF;
  UPDATE spsa_iteration SET games_claimed = games_claimed - v_games, binaries_refused = binaries_refused + 1 WHERE id = v_iteration;
  RETURN 1;
END $$;
--> statement-breakpoint
-- Marks the session's worker seen and extends the leases of its batches still claimed.
CREATE FUNCTION spsa_heartbeat(p_worker text, p_session text, p_batches bigint[], p_lease_seconds float8)
RETURNS TABLE (owns_name boolean, held bigint[])
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
  UPDATE spsa_worker SET last_seen_at = now() WHERE name = p_worker AND session_id = p_session AND login_role = session_user;
  IF NOT FOUND THEN RETURN QUERY SELECT false, '{}'::bigint[]; RETURN; END IF;
  RETURN QUERY
    WITH extended AS (
      UPDATE spsa_batch SET lease_expires_at = now() + make_interval(secs => p_lease_seconds)
      WHERE id = ANY(p_batches) AND worker_name = p_worker AND status = 'claimed'
      RETURNING id
    )
    SELECT true, coalesce((SELECT array_agg(id ORDER BY id) FROM extended), '{}'::bigint[]);
END $$;
--> statement-breakpoint
-- Adds a batch's results to its iteration and worker, once: only if the batch goes from claimed to
-- done here, with exactly its claimed games. 'duplicate' for a replay, 'refused' for an expired batch.
-- p_faults holds the fault counters by their keys in src/db/fault-columns.ts; an unknown key is refused,
-- so a counter added there without its line here fails every report instead of going uncounted.
CREATE FUNCTION spsa_report_batch(p_batch bigint, p_worker text, p_wins int, p_losses int, p_draws int, p_pairs int[],
  p_faults jsonb, p_replays int, p_replay_limit_pairs int)
RETURNS text
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  v_played int := p_wins + p_losses + p_draws;
  v_iteration int;
  v_status text;
  v_games int;
  v_unknown text;
  f jsonb := p_faults;
BEGIN
  PERFORM spsa_own_worker(p_worker);
  SELECT k INTO v_unknown FROM jsonb_object_keys(f) k WHERE k NOT IN ('plusCrashes', 'minusCrashes', 'plusTimeLosses', 'minusTimeLosses',
    'plusIllegalMoves', 'minusIllegalMoves', 'plusDelayLosses', 'minusDelayLosses') LIMIT 1;
  IF v_unknown IS NOT NULL THEN
    RAISE EXCEPTION 'batch %: unknown fault counter "%"', p_batch, v_unknown USING ERRCODE = 'invalid_parameter_value';
  END IF;
  IF least(p_wins, p_losses, p_draws, p_replays, p_replay_limit_pairs) < 0 OR cardinality(p_pairs) <> 5 OR EXISTS (SELECT 1 FROM unnest(p_pairs) n WHERE n < 0 OR n IS NULL)
     OR EXISTS (SELECT 1 FROM jsonb_each(f) e WHERE jsonb_typeof(e.value) <> 'number' OR (e.value)::numeric < 0) THEN
    RAISE EXCEPTION 'batch %: a report holds no negative or missing counts', p_batch USING ERRCODE = 'invalid_parameter_value';
  END IF;
  UPDATE spsa_batch SET status = 'done', reported_at = now(), plus_wins = p_wins, minus_wins = p_losses, draws = p_draws,
    pairs = to_jsonb(p_pairs), faults = f
  WHERE id = p_batch AND worker_name = p_worker AND status = 'claimed' AND spsa_batch.games = v_played
  RETURNING iteration_id INTO v_iteration;
  IF NOT FOUND THEN
    SELECT b.status, b.games INTO v_status, v_games FROM spsa_batch b WHERE b.id = p_batch AND b.worker_name = p_worker;
    IF v_status = 'claimed' THEN
      RAISE EXCEPTION 'batch % has % games, the report has %', p_batch, v_games, v_played USING ERRCODE = 'invalid_parameter_value';
    END IF;
    RETURN CASE WHEN v_status = 'done' THEN 'duplicate' ELSE 'refused' END;
  END IF;
  UPDATE spsa_iteration SET
    games_played = games_played + v_played,
    plus_wins = plus_wins + p_wins, minus_wins = minus_wins + p_losses, draws = draws + p_draws,
    pairs_ll = pairs_ll + p_pairs[1], pairs_ld = pairs_ld + p_pairs[2], pairs_dd = pairs_dd + p_pairs[3],
    pairs_dw = pairs_dw + p_pairs[4], pairs_ww = pairs_ww + p_pairs[5],
    plus_crashes = plus_crashes + coalesce((f->>'plusCrashes')::int, 0), minus_crashes = minus_crashes + coalesce((f->>'minusCrashes')::int, 0),
    plus_time_losses = plus_time_losses + coalesce((f->>'plusTimeLosses')::int, 0), minus_time_losses = minus_time_losses + coalesce((f->>'minusTimeLosses')::int, 0),
    plus_illegal_moves = plus_illegal_moves + coalesce((f->>'plusIllegalMoves')::int, 0), minus_illegal_moves = minus_illegal_moves + coalesce((f->>'minusIllegalMoves')::int, 0),
    plus_delay_losses = plus_delay_losses + coalesce((f->>'plusDelayLosses')::int, 0), minus_delay_losses = minus_delay_losses + coalesce((f->>'minusDelayLosses')::int, 0),
    replays = replays + p_replays, replay_limit_pairs = replay_limit_pairs + p_replay_limit_pairs
  WHERE id = v_iteration;
  UPDATE spsa_worker SET games_played = games_played + v_played, last_seen_at = now(),
    delay_losses = delay_losses + coalesce((f->>'plusDelayLosses')::int, 0) + coalesce((f->>'minusDelayLosses')::int, 0),
    replays = spsa_worker.replays + p_replays
  WHERE name = p_worker;
  PERFORM pg_notify('spsa_progress', v_iteration::text);
  RETURN 'accepted';
END $$;
--> statement-breakpoint
-- UCI-option mode: locks a run for a batch's draw or report (they are serialised per run); its seed and θ.
CREATE FUNCTION spsa_lock_option_run(p_run int) RETURNS TABLE (seed text, theta jsonb)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
  RETURN QUERY SELECT r.seed, r.current_parameters FROM spsa_run r JOIN spsa_option_run o ON o.run_id = r.id WHERE r.id = p_run FOR UPDATE OF r;
END $$;
--> statement-breakpoint
-- UCI-option mode: records a claimed batch's perturbation, once, for the worker that holds the batch.
CREATE FUNCTION spsa_record_draw(p_batch bigint, p_run int, p_batch_number int, p_worker text, p_games int, p_k int, p_ck float8, p_ak float8,
  p_theta_before jsonb, p_signs jsonb, p_plus jsonb, p_minus jsonb)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
  PERFORM spsa_own_worker(p_worker);
  IF NOT EXISTS (SELECT 1 FROM spsa_batch b JOIN spsa_option_run o ON o.iteration_id = b.iteration_id
                 WHERE b.id = p_batch AND b.worker_name = p_worker AND b.status = 'claimed' AND b.games = p_games AND o.run_id = p_run) THEN
    RAISE EXCEPTION 'batch % is not a claimed batch of worker "%" in option run %', p_batch, p_worker, p_run USING ERRCODE = 'insufficient_privilege';
  END IF;
  INSERT INTO spsa_perturbation (batch_id, run_id, batch_number, worker_name, games, k, c_k, a_k, theta_before, signs, plus_parameters, minus_parameters)
  VALUES (p_batch, p_run, p_batch_number, p_worker, p_games, p_k, p_ck, p_ak, p_theta_before, p_signs, p_plus, p_minus);
END $$;
--> statement-breakpoint
-- UCI-option mode: a reported batch's result and the θ it gives, once per batch, by its worker.
-- The worker computes θ (src/uci-tune/batch-math.ts); the database bounds what it may write: θ
-- applied is the run's θ of now, every parameter stays in [min, max] and moves at most
-- max_step steps (default 2: DEFAULT_MAX_STEP of src/spsa/math.ts, test/db/worker-role.test.ts checks), as one
-- batch's honest result could move it.
CREATE FUNCTION spsa_record_option_result(p_batch bigint, p_run int, p_wins int, p_losses int, p_draws int, p_pairs jsonb, p_elo float8,
  p_theta_applied jsonb, p_theta_after jsonb)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  v_run spsa_run%ROWTYPE;
  v_option spsa_option_run%ROWTYPE;
  v_bad text;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM spsa_batch b JOIN spsa_worker w ON w.name = b.worker_name JOIN spsa_perturbation p ON p.batch_id = b.id
                 WHERE b.id = p_batch AND w.login_role = session_user AND b.status = 'done' AND p.reported_at IS NULL AND p.run_id = p_run
                   AND b.plus_wins = p_wins AND b.minus_wins = p_losses AND b.draws = p_draws) THEN
    RAISE EXCEPTION 'batch % has no unapplied report of this role with these results in option run %', p_batch, p_run USING ERRCODE = 'insufficient_privilege';
  END IF;
  SELECT * INTO v_run FROM spsa_run WHERE id = p_run FOR UPDATE;
  SELECT * INTO v_option FROM spsa_option_run WHERE run_id = p_run;
  IF v_run.current_parameters IS DISTINCT FROM p_theta_applied THEN
    RAISE EXCEPTION 'batch %: θ applied is not the run''s θ of now', p_batch USING ERRCODE = 'invalid_parameter_value';
  END IF;
  SELECT coalesce(n, '(missing)') INTO v_bad FROM (
    SELECT k AS n FROM jsonb_object_keys(p_theta_after) k WHERE NOT (p_theta_applied ? k)
    UNION ALL
    SELECT s.key FROM jsonb_each(v_option.parameters) s
    WHERE jsonb_typeof(p_theta_after->s.key) IS DISTINCT FROM 'number'
       OR (p_theta_after->>s.key)::float8 NOT BETWEEN (s.value->>'min')::float8 AND (s.value->>'max')::float8
       OR abs((p_theta_after->>s.key)::float8 - (p_theta_applied->>s.key)::float8)
          > coalesce((v_option.gains->>'maxStep')::float8, 2) * (s.value->>'step')::float8 * (1 + 1e-9)
            + 1e-9 * greatest(abs((p_theta_applied->>s.key)::float8), 1)
  ) bad LIMIT 1;
  IF v_bad IS NOT NULL THEN
    RAISE EXCEPTION 'batch %: θ after moves parameter % outside its bounds or by more than max_step steps', p_batch, v_bad USING ERRCODE = 'invalid_parameter_value';
  END IF;
  UPDATE spsa_perturbation SET plus_wins = p_wins, minus_wins = p_losses, draws = p_draws, pairs = p_pairs, elo_diff = p_elo,
    theta_applied = p_theta_applied, theta_after = p_theta_after, reported_at = now()
  WHERE batch_id = p_batch;
  UPDATE spsa_run SET current_parameters = p_theta_after WHERE id = p_run;
END $$;
--> statement-breakpoint
REVOKE EXECUTE ON FUNCTION spsa_own_worker(text), spsa_return_to_pool(text), spsa_lock_worker_name(text, text, int, text, int, text),
  spsa_take_worker_name(text, text, int, text, int, text), spsa_record_worker(text, text, int, text, float8, float8),
  spsa_claim_batch(text, int, float8, int[]), spsa_refuse_batch(bigint, text), spsa_heartbeat(text, text, bigint[], float8),
  spsa_report_batch(bigint, text, int, int, int, int[], jsonb, int, int), spsa_lock_option_run(int),
  spsa_record_draw(bigint, int, int, text, int, int, float8, float8, jsonb, jsonb, jsonb, jsonb),
  spsa_record_option_result(bigint, int, int, int, int, jsonb, float8, jsonb, jsonb) FROM PUBLIC;
