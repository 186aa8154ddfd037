ALTER TABLE "spsa_run" ADD COLUMN "uid" uuid DEFAULT gen_random_uuid() NOT NULL;--> statement-breakpoint
-- A worker is a guest (docs/security.md, "Worker machine"): every definer function below checks
-- each argument it accepts, and everything that moves θ is chosen by the master. In UCI-option
-- mode the master draws each batch's perturbation before any worker sees it (a pool of open
-- batches with their draw, src/uci-tune/draw-pool.ts); a worker claims one and reads it.
ALTER TABLE "spsa_iteration" ADD COLUMN "theta_after" jsonb;--> statement-breakpoint
-- θ after each completed build-mode iteration, as its master left it: the next iteration's base
-- (every run so far had the barrier), or the run's θ after its last. Iterations in flight
-- (docs/in-flight.md) draw from older θ, so the history reads this column from now on.
UPDATE spsa_iteration i SET theta_after = coalesce(
  (SELECT n.base_parameters FROM spsa_iteration n WHERE n.run_id = i.run_id AND n.iteration_number = i.iteration_number + 1),
  (SELECT r.current_parameters FROM spsa_run r WHERE r.id = i.run_id))
WHERE i.status = 'complete' AND NOT EXISTS (SELECT 1 FROM spsa_option_run o WHERE o.iteration_id = i.id);--> statement-breakpoint
ALTER TABLE "spsa_run" ADD COLUMN "reference_signature" text;--> statement-breakpoint
ALTER TABLE "spsa_option_run" ADD COLUMN "parameters_signature" text;--> statement-breakpoint
ALTER TABLE "spsa_perturbation" ALTER COLUMN "worker_name" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "spsa_perturbation" ALTER COLUMN "claimed_at" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "spsa_perturbation" ALTER COLUMN "claimed_at" DROP DEFAULT;--> statement-breakpoint
DROP FUNCTION IF EXISTS spsa_record_draw(bigint, int, int, text, int, int, float8, float8, jsonb, jsonb, jsonb, jsonb);--> statement-breakpoint
DROP FUNCTION IF EXISTS spsa_record_option_result(bigint, int, int, int, int, jsonb, float8, jsonb, jsonb);--> statement-breakpoint
DROP FUNCTION IF EXISTS spsa_lock_option_run(int);--> statement-breakpoint
-- Draws a worker made and the master has not applied are not trusted: their batches end
-- unapplied (claimed ones are refused when reported) and the master gives their games out again.
UPDATE spsa_batch b SET status = 'expired' FROM spsa_perturbation p
WHERE p.batch_id = b.id AND p.applied_number IS NULL AND b.status IN ('claimed', 'done') AND NOT b.folded;--> statement-breakpoint
-- Open batches of a UCI-option run without a draw were made for draws at claim: the master draws
-- for the open batches it wants in its pool (a batch that ran out of its lease is drawn anew).
DELETE FROM spsa_batch b USING spsa_option_run o
WHERE b.iteration_id = o.iteration_id AND b.status = 'open' AND NOT EXISTS (SELECT 1 FROM spsa_perturbation p WHERE p.batch_id = b.id);--> statement-breakpoint
-- What a worker wrote before these checks is made to fit them, so no old row breaks the master or status.
UPDATE spsa_worker SET name = left(name, 64), host = left(regexp_replace(host, '[[:cntrl:]]', '?', 'g'), 255),
  concurrency = least(greatest(concurrency, 1), 1024),
  concurrency_note = left(regexp_replace(concurrency_note, '[[:cntrl:]]', '?', 'g'), 500),
  measured_nps = CASE WHEN measured_nps > 0 AND measured_nps <= 1e12 THEN measured_nps END,
  time_factor = CASE WHEN time_factor >= 0.25 AND time_factor <= 4 THEN time_factor END
WHERE char_length(name) > 64 OR char_length(host) > 255 OR host ~ '[[:cntrl:]]' OR concurrency NOT BETWEEN 1 AND 1024
  OR char_length(concurrency_note) > 500 OR concurrency_note ~ '[[:cntrl:]]'
  OR NOT (measured_nps > 0 AND measured_nps <= 1e12) OR NOT (time_factor >= 0.25 AND time_factor <= 4);--> statement-breakpoint
-- The limits of what a worker may write, in one place (src/db/worker-limits.ts holds the same numbers).
CREATE FUNCTION spsa_limit(p_key text) RETURNS float8
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE p_key
    WHEN 'name' THEN 64 WHEN 'host' THEN 255 WHEN 'session' THEN 64 WHEN 'note' THEN 500
    WHEN 'concurrency' THEN 1024 WHEN 'names_per_role' THEN 256 WHEN 'batch_games' THEN 100000
    WHEN 'held_batches' THEN 4096 WHEN 'nps' THEN 1e12 WHEN 'min_time_factor' THEN 0.25 WHEN 'max_time_factor' THEN 4
    WHEN 'pgn' THEN 262144 WHEN 'reason' THEN 1000 WHEN 'fault' THEN 64 WHEN 'replays_per_game' THEN 4
    WHEN 'min_lease' THEN 1 WHEN 'max_lease' THEN 86400 WHEN 'default_lease' THEN 120
  END::float8
$$;--> statement-breakpoint
-- Refuses text a worker may not store: too long, or holding control characters (a terminal would run them).
CREATE FUNCTION spsa_check_text(p_what text, p_value text, p_limit text) RETURNS void
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  IF p_value IS NOT NULL AND (char_length(p_value) > spsa_limit(p_limit) OR p_value ~ '[[:cntrl:]]') THEN
    RAISE EXCEPTION '% is longer than % characters or holds control characters', p_what, spsa_limit(p_limit) USING ERRCODE = 'invalid_parameter_value';
  END IF;
END $$;--> statement-breakpoint
-- A worker's own description of itself: a name, host, session and note of bounded length and
-- no control characters; a pid and a concurrency within what a machine has.
CREATE FUNCTION spsa_check_worker(p_name text, p_host text, p_pid int, p_session text, p_concurrency int, p_note text) RETURNS void
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  IF p_name IS NULL OR p_name = '' THEN
    RAISE EXCEPTION 'a worker needs a name' USING ERRCODE = 'invalid_parameter_value';
  END IF;
  PERFORM spsa_check_text('a worker name', p_name, 'name');
  PERFORM spsa_check_text('a host name', p_host, 'host');
  PERFORM spsa_check_text('a session id', p_session, 'session');
  PERFORM spsa_check_text('a concurrency note', p_note, 'note');
  IF p_pid IS NOT NULL AND p_pid < 1 THEN
    RAISE EXCEPTION 'a process id is positive, got %', p_pid USING ERRCODE = 'invalid_parameter_value';
  END IF;
  IF p_concurrency IS NOT NULL AND p_concurrency NOT BETWEEN 1 AND spsa_limit('concurrency') THEN
    RAISE EXCEPTION 'a concurrency is 1 to %, got %', spsa_limit('concurrency'), p_concurrency USING ERRCODE = 'invalid_parameter_value';
  END IF;
END $$;--> statement-breakpoint
-- The lease of an iteration's batches: [games] lease_seconds as the master recorded it in the
-- iteration's settings, within bounds; never a worker's choice.
CREATE FUNCTION spsa_lease(p_iteration int) RETURNS interval
LANGUAGE sql STABLE SET search_path = public, pg_temp AS $$
  SELECT make_interval(secs => least(greatest(coalesce(
    CASE WHEN jsonb_typeof(i.settings->'leaseSeconds') = 'number' THEN (i.settings->>'leaseSeconds')::float8 END,
    spsa_limit('default_lease')), spsa_limit('min_lease')), spsa_limit('max_lease')))
  FROM spsa_iteration i WHERE i.id = p_iteration
$$;--> statement-breakpoint
-- A name belongs to the role that registered it while that role exists: the name of a dropped
-- role (a revoked worker URL) is free for the next role to take.
CREATE OR REPLACE FUNCTION spsa_lock_worker_name(p_name text, p_host text, p_pid int, p_session text, p_concurrency int, p_note text)
RETURNS TABLE (inserted boolean, host text, pid int, session_id text, seconds_since_seen float8)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  v_inserted boolean;
  v_row spsa_worker%ROWTYPE;
BEGIN
  PERFORM spsa_check_worker(p_name, p_host, p_pid, p_session, p_concurrency, p_note);
  SELECT * INTO v_row FROM spsa_worker w WHERE w.name = p_name FOR UPDATE;
  IF NOT FOUND THEN
    -- A bounded number of names per role: its oldest names unseen for a day, holding no batch, make room.
    PERFORM pg_advisory_xact_lock(hashtext('spsa_worker_names:' || session_user));
    IF (SELECT count(*) FROM spsa_worker w WHERE w.login_role = session_user) >= spsa_limit('names_per_role') THEN
      DELETE FROM spsa_worker w WHERE w.id IN (
        SELECT s.id FROM spsa_worker s WHERE s.login_role = session_user AND s.last_seen_at < now() - interval '1 day'
          AND NOT EXISTS (SELECT 1 FROM spsa_batch b WHERE b.worker_name = s.name AND b.status = 'claimed')
        ORDER BY s.last_seen_at LIMIT 1);
      IF NOT FOUND THEN
        RAISE EXCEPTION 'database role "%" holds % worker names already; reuse one with --name', session_user, spsa_limit('names_per_role')
          USING ERRCODE = 'program_limit_exceeded';
      END IF;
    END IF;
    INSERT INTO spsa_worker (name, host, pid, session_id, concurrency, concurrency_note, login_role)
    VALUES (p_name, p_host, p_pid, p_session, p_concurrency, p_note, session_user)
    ON CONFLICT (name) DO NOTHING;
    v_inserted := FOUND;
    SELECT * INTO v_row FROM spsa_worker w WHERE w.name = p_name FOR UPDATE;
  ELSE
    v_inserted := false;
  END IF;
  IF v_row.login_role <> session_user THEN
    IF EXISTS (SELECT 1 FROM pg_roles r WHERE r.rolname = v_row.login_role) THEN
      RAISE EXCEPTION 'worker name "%" belongs to database role "%"; choose another --name', p_name, v_row.login_role USING ERRCODE = 'insufficient_privilege';
    END IF;
    UPDATE spsa_worker w SET login_role = session_user WHERE w.id = v_row.id;
  END IF;
  RETURN QUERY SELECT v_inserted, v_row.host, v_row.pid, v_row.session_id, extract(epoch FROM now() - v_row.last_seen_at)::float8;
END $$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION spsa_take_worker_name(p_name text, p_host text, p_pid int, p_session text, p_concurrency int, p_note text)
RETURNS TABLE (batches int, games int)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
  PERFORM spsa_check_worker(p_name, p_host, p_pid, p_session, p_concurrency, p_note);
  PERFORM spsa_own_worker(p_name);
  UPDATE spsa_worker SET host = p_host, pid = p_pid, session_id = p_session, concurrency = p_concurrency,
    concurrency_note = p_note, started_at = now(), last_seen_at = now(), measured_nps = NULL, time_factor = NULL
  WHERE name = p_name;
  RETURN QUERY SELECT * FROM spsa_return_to_pool(p_name);
END $$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION spsa_record_worker(p_name text, p_session text, p_concurrency int, p_note text, p_measured_nps float8, p_time_factor float8)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
  PERFORM spsa_check_worker(p_name, NULL, NULL, p_session, p_concurrency, p_note);
  -- 'NaN' is larger than every number in Postgres, and ±Infinity fails the bounds.
  IF p_measured_nps IS NOT NULL AND NOT (p_measured_nps > 0 AND p_measured_nps <= spsa_limit('nps')) THEN
    RAISE EXCEPTION 'a measured speed is above 0 and at most % nodes/s, got %', spsa_limit('nps'), p_measured_nps USING ERRCODE = 'invalid_parameter_value';
  END IF;
  IF p_time_factor IS NOT NULL AND NOT (p_time_factor >= spsa_limit('min_time_factor') AND p_time_factor <= spsa_limit('max_time_factor')) THEN
    RAISE EXCEPTION 'a time factor is % to %, got %', spsa_limit('min_time_factor'), spsa_limit('max_time_factor'), p_time_factor USING ERRCODE = 'invalid_parameter_value';
  END IF;
  UPDATE spsa_worker SET concurrency = coalesce(p_concurrency, concurrency), concurrency_note = coalesce(p_note, concurrency_note),
    measured_nps = coalesce(p_measured_nps, measured_nps), time_factor = coalesce(p_time_factor, time_factor)
  WHERE name = p_name AND session_id = p_session AND login_role = session_user;
END $$;--> statement-breakpoint
-- Claimed batches back to the pool: a worker's (p_worker) or those whose lease ran out (null). A
-- UCI-option batch is not reopened: its draw stays with it, unapplied, and the master draws anew.
-- No ownership check: only the definer functions below call it (EXECUTE revoked from PUBLIC).
CREATE FUNCTION spsa_reopen_claims(p_worker text) RETURNS TABLE (batches int, games int)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
  RETURN QUERY
    WITH expired AS (
      UPDATE spsa_batch b SET status = 'expired'
      WHERE b.status = 'claimed' AND b.lease_expires_at < (CASE WHEN p_worker IS NULL THEN now() ELSE 'infinity' END)
        AND (p_worker IS NULL OR b.worker_name = p_worker)
      RETURNING b.id, b.iteration_id, b.games, b.games_before
    ), reopened AS (
      INSERT INTO spsa_batch (iteration_id, games, games_before, status)
      SELECT e.iteration_id, e.games, e.games_before, 'open' FROM expired e
      WHERE NOT EXISTS (SELECT 1 FROM spsa_perturbation p WHERE p.batch_id = e.id)
      RETURNING id
    )
    SELECT count(*)::int, coalesce(sum(expired.games), 0)::int FROM expired;
END $$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION spsa_return_to_pool(p_worker text) RETURNS TABLE (batches int, games int)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
  IF p_worker IS NOT NULL THEN PERFORM spsa_own_worker(p_worker); END IF;
  RETURN QUERY SELECT * FROM spsa_reopen_claims(p_worker);
END $$;--> statement-breakpoint
-- A revoked worker URL (the owner drops its role: src/db/worker-role.ts): the batches of each of
-- its names go back to the pool at once, and its names are free. Only the owner may call this.
CREATE FUNCTION spsa_release_role(p_role text) RETURNS TABLE (batches int, games int)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
  RETURN QUERY
    SELECT coalesce(sum(r.batches), 0)::int, coalesce(sum(r.games), 0)::int
    FROM spsa_worker w CROSS JOIN LATERAL spsa_reopen_claims(w.name) r WHERE w.login_role = p_role;
END $$;--> statement-breakpoint
-- Takes the oldest open batch of the oldest open iteration (not in p_skip, whose binaries the
-- worker refused), skipping rows other claims hold. A build-mode batch larger than p_max_games is
-- split (reference mode: in units of four); a UCI-option batch is taken whole with the draw the
-- master made for it, and only a batch with a draw. The lease is the iteration's (spsa_lease):
-- p_lease_seconds is ignored (kept so that a worker of the version before can still claim).
DROP FUNCTION spsa_claim_batch(text, int, float8, int[]);--> statement-breakpoint
CREATE FUNCTION spsa_claim_batch(p_worker text, p_max_games int, p_lease_seconds float8, p_skip int[])
RETURNS TABLE (batch_id bigint, iteration_id int, games int, lease_seconds float8)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  v_iteration int;
  v_reference boolean;
  v_options boolean;
  v_open spsa_batch%ROWTYPE;
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
  v_games := CASE WHEN v_options THEN v_open.games
    ELSE least(CASE WHEN v_reference THEN greatest(4, p_max_games - p_max_games % 4) ELSE p_max_games END, v_open.games) END;
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
-- A worker refused the batch's binaries: the batch returns to the pool (a UCI-option batch is
-- drawn anew by the master) and its iteration counts the refusal at its next fold.
CREATE OR REPLACE FUNCTION spsa_refuse_batch(p_batch bigint, p_worker text) RETURNS int
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  v_refused spsa_batch%ROWTYPE;
BEGIN
  PERFORM spsa_own_worker(p_worker);
  SELECT * INTO v_refused FROM spsa_batch WHERE id = p_batch FOR UPDATE;
  IF NOT FOUND OR v_refused.worker_name IS DISTINCT FROM p_worker OR v_refused.status <> 'claimed' THEN RETURN 0; END IF;
  UPDATE spsa_batch SET status = 'expired', refused = true WHERE id = p_batch;
  IF NOT EXISTS (SELECT 1 FROM spsa_perturbation p WHERE p.batch_id = p_batch) THEN
    INSERT INTO spsa_batch (iteration_id, games, games_before, status) VALUES (v_refused.iteration_id, v_refused.games, v_refused.games_before, 'open');
  END IF;
  RETURN 1;
END $$;--> statement-breakpoint
-- Extends the leases of the session's batches by their iteration's lease; p_lease_seconds is ignored.
CREATE OR REPLACE FUNCTION spsa_heartbeat(p_worker text, p_session text, p_batches bigint[], p_lease_seconds float8)
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
-- Adds a batch's results, once, as in 0016, and believes nothing it cannot check: every count
-- an integer; wins, draws and losses (or both sides' against the reference) add up to the games
-- claimed; the pairs are the games' pairs and score what the games score; each fault counter is
-- at most the games, and a plus-against-minus batch has no reference faults; replays at most
-- spsa_limit('replays_per_game') per game and pairs out of replays at most the pairs.
CREATE OR REPLACE FUNCTION spsa_report_batch(p_batch bigint, p_worker text, p_wins int, p_losses int, p_draws int, p_pairs int[],
  p_faults jsonb, p_replays int, p_replay_limit_pairs int, p_reference int[] DEFAULT NULL)
RETURNS text
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  v_plus int;
  v_minus int;
  v_played int;
  v_batch spsa_batch%ROWTYPE;
  v_reference boolean;
  v_unknown text;
  v_score bigint;
  f jsonb := coalesce(p_faults, '{}');
BEGIN
  PERFORM spsa_own_worker(p_worker);
  IF p_wins IS NULL OR p_losses IS NULL OR p_draws IS NULL OR p_replays IS NULL OR p_replay_limit_pairs IS NULL
     OR least(p_wins, p_losses, p_draws, p_replays, p_replay_limit_pairs) < 0
     OR cardinality(p_pairs) IS DISTINCT FROM 5 OR EXISTS (SELECT 1 FROM unnest(p_pairs) n WHERE n < 0 OR n IS NULL)
     OR (p_reference IS NOT NULL AND (cardinality(p_reference) <> 6 OR EXISTS (SELECT 1 FROM unnest(p_reference) n WHERE n < 0 OR n IS NULL))) THEN
    RAISE EXCEPTION 'batch %: a report holds no negative or missing counts', p_batch USING ERRCODE = 'invalid_parameter_value';
  END IF;
  IF jsonb_typeof(f) <> 'object' THEN
    RAISE EXCEPTION 'batch %: faults are an object of counters', p_batch USING ERRCODE = 'invalid_parameter_value';
  END IF;
  SELECT k INTO v_unknown FROM jsonb_object_keys(f) k WHERE k NOT IN ('plusCrashes', 'minusCrashes', 'referenceCrashes',
    'plusTimeLosses', 'minusTimeLosses', 'referenceTimeLosses', 'plusIllegalMoves', 'minusIllegalMoves', 'referenceIllegalMoves',
    'plusDelayLosses', 'minusDelayLosses', 'referenceDelayLosses') LIMIT 1;
  IF v_unknown IS NOT NULL THEN
    RAISE EXCEPTION 'batch %: unknown fault counter "%"', p_batch, left(v_unknown, 64) USING ERRCODE = 'invalid_parameter_value';
  END IF;
  SELECT * INTO v_batch FROM spsa_batch WHERE id = p_batch FOR UPDATE;
  IF NOT FOUND OR v_batch.worker_name IS DISTINCT FROM p_worker THEN RETURN 'refused'; END IF;
  IF v_batch.status = 'done' THEN RETURN 'duplicate'; END IF;
  IF v_batch.status <> 'claimed' THEN RETURN 'refused'; END IF;
  -- Sums in bigint: counts near the int limit must not overflow into a pass.
  v_plus := coalesce(p_reference[1]::bigint + p_reference[2] + p_reference[3], 0);
  v_minus := coalesce(p_reference[4]::bigint + p_reference[5] + p_reference[6], 0);
  IF p_wins::bigint + p_losses + p_draws + v_plus + v_minus <> v_batch.games THEN
    RAISE EXCEPTION 'batch % has % games, the report has %', p_batch, v_batch.games, p_wins::bigint + p_losses + p_draws + v_plus + v_minus
      USING ERRCODE = 'invalid_parameter_value';
  END IF;
  v_played := v_batch.games;
  IF EXISTS (SELECT 1 FROM jsonb_each(f) e WHERE jsonb_typeof(e.value) <> 'number' OR (e.value)::numeric < 0
             OR (e.value)::numeric <> trunc((e.value)::numeric) OR (e.value)::numeric > v_played) THEN
    RAISE EXCEPTION 'batch %: each fault counter is a whole number of games from 0 to %', p_batch, v_played USING ERRCODE = 'invalid_parameter_value';
  END IF;
  IF p_replays > spsa_limit('replays_per_game') * v_played OR 2 * p_replay_limit_pairs > v_played THEN
    RAISE EXCEPTION 'batch %: % replays and % pairs out of replays in % games', p_batch, p_replays, p_replay_limit_pairs, v_played
      USING ERRCODE = 'invalid_parameter_value';
  END IF;
  SELECT i.reference_engine_sha256 IS NOT NULL INTO v_reference FROM spsa_iteration i WHERE i.id = v_batch.iteration_id;
  IF v_reference <> (p_reference IS NOT NULL) THEN
    RAISE EXCEPTION 'batch %: its iteration plays %, the report is of %', p_batch,
      CASE WHEN v_reference THEN 'θ+ and θ− against a reference engine' ELSE 'plus against minus' END,
      CASE WHEN v_reference THEN 'plus against minus' ELSE 'games against a reference engine' END USING ERRCODE = 'invalid_parameter_value';
  END IF;
  IF p_reference IS NOT NULL AND (v_plus <> v_minus OR p_wins + p_losses + p_draws > 0) THEN
    RAISE EXCEPTION 'batch %: a reference-mode report has as many games of θ+ as of θ− (here % and %) and no plus-against-minus games',
      p_batch, v_plus, v_minus USING ERRCODE = 'invalid_parameter_value';
  END IF;
  IF NOT v_reference AND EXISTS (SELECT 1 FROM jsonb_each(f) e WHERE e.key LIKE 'reference%' AND (e.value)::numeric <> 0) THEN
    RAISE EXCEPTION 'batch %: a plus-against-minus batch has no reference engine to fault', p_batch USING ERRCODE = 'invalid_parameter_value';
  END IF;
  -- Every game is in a pair, and a pair's index in [LL, LD, DD, DW, WW] is its score in half points.
  v_score := CASE WHEN v_reference THEN 2 * (p_reference[1]::bigint + p_reference[4]) + p_reference[2] + p_reference[5]
                  ELSE 2 * p_wins::bigint + p_draws END;
  IF 2 * (p_pairs[1]::bigint + p_pairs[2] + p_pairs[3] + p_pairs[4] + p_pairs[5]) <> v_played
     OR p_pairs[2]::bigint + 2 * p_pairs[3] + 3 * p_pairs[4] + 4 * p_pairs[5] <> v_score THEN
    RAISE EXCEPTION 'batch %: the pairs % are not the pairs of its games', p_batch, p_pairs USING ERRCODE = 'invalid_parameter_value';
  END IF;
  UPDATE spsa_batch SET status = 'done', reported_at = now(), plus_wins = p_wins, minus_wins = p_losses, draws = p_draws,
    pairs = to_jsonb(p_pairs), faults = f, replays = p_replays, replay_limit_pairs = p_replay_limit_pairs,
    ref_plus_wins = p_reference[1], ref_plus_draws = p_reference[2], ref_plus_losses = p_reference[3],
    ref_minus_wins = p_reference[4], ref_minus_draws = p_reference[5], ref_minus_losses = p_reference[6]
  WHERE id = p_batch;
  UPDATE spsa_worker SET games_played = games_played + v_played, last_seen_at = now(),
    delay_losses = delay_losses + coalesce((f->>'plusDelayLosses')::int, 0) + coalesce((f->>'minusDelayLosses')::int, 0)
      + coalesce((f->>'referenceDelayLosses')::int, 0),
    replays = spsa_worker.replays + p_replays
  WHERE name = p_worker;
  RETURN 'accepted';
END $$;--> statement-breakpoint
-- As in 0013, and what a worker hands over is bounded: at most the batch's games, each a game of
-- the batch (index within its games), a known side, a fault name and reason of bounded length
-- without control characters, and a PGN of at most spsa_limit('pgn') characters (its own line
-- breaks and tabs allowed, no other control character).
CREATE OR REPLACE FUNCTION spsa_keep_faulted_games(p_batch bigint, p_worker text, p_games jsonb) RETURNS int
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  v_iteration int;
  v_run int;
  v_games int;
  v_plus jsonb;
  v_minus jsonb;
  v_plus_sha text;
  v_minus_sha text;
  v_mine int;
  v_all int;
  v_kept int;
BEGIN
  PERFORM spsa_own_worker(p_worker);
  SELECT i.id, i.run_id, b.games, coalesce(p.plus_parameters, i.plus_parameters, '{}'), coalesce(p.minus_parameters, i.minus_parameters, '{}'),
    i.plus_engine_sha256, i.minus_engine_sha256
  INTO v_iteration, v_run, v_games, v_plus, v_minus, v_plus_sha, v_minus_sha
  FROM spsa_batch b JOIN spsa_iteration i ON i.id = b.iteration_id LEFT JOIN spsa_perturbation p ON p.batch_id = b.id
  WHERE b.id = p_batch AND b.worker_name = p_worker AND b.status = 'done';
  IF NOT FOUND THEN
    RAISE EXCEPTION 'batch % is not a reported batch of worker "%"', p_batch, p_worker USING ERRCODE = 'insufficient_privilege';
  END IF;
  IF jsonb_typeof(p_games) IS DISTINCT FROM 'array' OR jsonb_array_length(p_games) > v_games
     OR EXISTS (SELECT 1 FROM jsonb_array_elements(p_games) g WHERE jsonb_typeof(g) <> 'object'
       OR jsonb_typeof(g->'gameIndex') IS DISTINCT FROM 'number' OR (g->>'gameIndex')::numeric <> trunc((g->>'gameIndex')::numeric)
       OR (g->>'gameIndex')::numeric NOT BETWEEN 0 AND v_games - 1
       OR g->>'side' IS NULL OR g->>'side' NOT IN ('plus', 'minus', 'reference')
       OR g->>'fault' IS NULL OR char_length(g->>'fault') > spsa_limit('fault') OR g->>'fault' ~ '[[:cntrl:]]'
       OR char_length(g->>'reason') > spsa_limit('reason') OR g->>'reason' ~ '[[:cntrl:]]'
       OR g->>'pgn' IS NULL OR char_length(g->>'pgn') > spsa_limit('pgn') OR g->>'pgn' ~ '[\x01-\x08\x0b-\x1f\x7f]') THEN
    RAISE EXCEPTION 'batch %: faulted games are at most its % games, each with its index, side, fault, a reason of at most % and a PGN of at most % characters, without control characters',
      p_batch, v_games, spsa_limit('reason'), spsa_limit('pgn') USING ERRCODE = 'invalid_parameter_value';
  END IF;
  PERFORM pg_advisory_xact_lock(hashtext('spsa_faulted_game:' || v_run));
  SELECT count(*) FILTER (WHERE f.iteration_id = v_iteration AND f.worker_name = p_worker), count(*) INTO v_mine, v_all
  FROM spsa_faulted_game f WHERE f.run_id = v_run;
  INSERT INTO spsa_faulted_game (run_id, iteration_id, batch_id, game_index, worker_name, side, fault, reason, pgn,
    plus_parameters, minus_parameters, plus_engine_sha256, minus_engine_sha256)
  SELECT v_run, v_iteration, p_batch, g."gameIndex", p_worker, g.side, g.fault, g.reason, g.pgn, v_plus, v_minus, v_plus_sha, v_minus_sha
  FROM jsonb_to_recordset(p_games) AS g("gameIndex" int, side text, fault text, reason text, pgn text)
  ORDER BY g."gameIndex" LIMIT greatest(0, least(3 - v_mine, 200 - v_all))
  ON CONFLICT (batch_id, game_index) DO NOTHING;
  GET DIAGNOSTICS v_kept = ROW_COUNT;
  RETURN v_kept;
END $$;--> statement-breakpoint
REVOKE EXECUTE ON FUNCTION spsa_claim_batch(text, int, float8, int[]), spsa_release_role(text), spsa_reopen_claims(text), spsa_lease(int) FROM PUBLIC;--> statement-breakpoint
DO $$ BEGIN
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'spsa_workers') THEN
    GRANT EXECUTE ON FUNCTION spsa_claim_batch(text, int, float8, int[]) TO spsa_workers;
  END IF;
END $$;
