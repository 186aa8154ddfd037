ALTER TABLE "spsa_batch" ADD COLUMN "given_back_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "spsa_batch_claimed_by" ON "spsa_batch" USING btree ("worker_name") WHERE "spsa_batch"."status" = 'claimed';--> statement-breakpoint
CREATE INDEX "spsa_batch_given_back" ON "spsa_batch" USING btree ("worker_name","given_back_at") WHERE "spsa_batch"."given_back_at" is not null;
--> statement-breakpoint
-- Issue 55, "a worker can starve the others": a name's claims are capped by its concurrency, and
-- a worker machine that gave back more than given_back_per_minute batches unplayed in the last
-- minute (refused, released, or its names taken over: each keeps given_back_at) claims none until
-- they age out. spsa status counts each worker's refusals as evidence. Grants are unchanged
-- (CREATE OR REPLACE keeps them).
-- The limits are for worker roles: the owner's role (the master's, and workers run with its URL)
-- may write every row itself, so a limit on it would guard nothing.
CREATE OR REPLACE FUNCTION spsa_session_is_owner() RETURNS boolean
LANGUAGE sql STABLE SET search_path = public, pg_temp AS $$
  SELECT pg_has_role(session_user, (SELECT c.relowner FROM pg_class c WHERE c.oid = 'public.spsa_batch'::regclass), 'MEMBER')
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION spsa_limit(p_key text)
 RETURNS double precision
 LANGUAGE sql
 IMMUTABLE
AS $function$
  SELECT CASE p_key
    WHEN 'name' THEN 64 WHEN 'host' THEN 255 WHEN 'session' THEN 64 WHEN 'note' THEN 500
    WHEN 'concurrency' THEN 1024 WHEN 'names_per_role' THEN 256 WHEN 'batch_games' THEN 100000
    WHEN 'held_batches' THEN 4096 WHEN 'nps' THEN 1e12 WHEN 'min_time_factor' THEN 0.25 WHEN 'max_time_factor' THEN 4
    WHEN 'pgn' THEN 262144 WHEN 'reason' THEN 1000 WHEN 'fault' THEN 64 WHEN 'replays_per_game' THEN 4
    WHEN 'min_lease' THEN 1 WHEN 'max_lease' THEN 86400 WHEN 'default_lease' THEN 120
    WHEN 'claim_margin' THEN 2 WHEN 'given_back_per_minute' THEN 8
  END::float8
$function$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION spsa_claim_batch(p_worker text, p_max_games integer, p_skip integer[])
 RETURNS TABLE(batch_id bigint, iteration_id integer, games integer, lease_seconds double precision)
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'public', 'pg_temp'
AS $function$
DECLARE
  v_iteration int;
  v_reference boolean;
  v_options boolean;
  v_open spsa_batch%ROWTYPE;
  v_unit int;
  v_games int;
  v_lease interval;
  v_cap int;
  v_held int;
  v_given int;
BEGIN
  PERFORM spsa_own_worker(p_worker);
  -- One claim of a name at a time, so that claims sent together cannot pass the cap together.
  PERFORM pg_advisory_xact_lock(hashtext('spsa_claims:' || p_worker));
  -- A name holds at most max(2, its concurrency) + 2 batches claimed and unreported. An honest
  -- `compete -c N` claims only while its unplayed games are at most N, and every batch has at
  -- least one pair unplayed until its last pair ends: at a claim it holds at most N / 2 + 1
  -- batches with games to play, and the rest of the cap covers batches whose last pair ended
  -- and whose report is on its way. A name that claims everything and sits on it holds no more.
  SELECT greatest(2, w.concurrency) + spsa_limit('claim_margin') INTO v_cap FROM spsa_worker w WHERE w.name = p_worker;
  SELECT count(*) INTO v_held FROM spsa_batch b
  WHERE b.worker_name = p_worker AND b.status = 'claimed' AND b.lease_expires_at > now();
  IF v_held >= v_cap AND NOT spsa_session_is_owner() THEN
    RAISE EXCEPTION 'worker "%" holds % claimed batches, its cap (concurrency + %): it claims again once it reports or gives one back',
      p_worker, v_held, spsa_limit('claim_margin') USING ERRCODE = 'program_limit_exceeded';
  END IF;
  -- A batch given back unplayed is handed out again at once, so giving back in a loop (claim and
  -- refuse, claim and release) would keep the games from the workers that play them. A database
  -- role (one per worker machine; names are free to make) that gave back given_back_per_minute
  -- batches in the last minute is told to wait: whatever way it gives them back, it then moves
  -- at most that many batches a minute, plus what it holds. An honest worker gives back only
  -- binaries it does not trust (then passes over their iteration), and its batches when stopped
  -- or restarted: rarely more than 8 a minute, and then it waits less than a minute, nothing lost.
  IF NOT spsa_session_is_owner() THEN
    SELECT count(*) INTO v_given FROM spsa_worker w JOIN spsa_batch b ON b.worker_name = w.name
    WHERE w.login_role = session_user AND b.given_back_at > now() - interval '1 minute';
    IF v_given >= spsa_limit('given_back_per_minute') THEN
      RAISE EXCEPTION 'database role "%" gave back % batches unplayed in the last minute (refused, released or taken over), its limit: its workers claim again within a minute',
        session_user, v_given USING ERRCODE = 'program_limit_exceeded';
    END IF;
  END IF;
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
END $function$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION spsa_refuse_batch(p_batch bigint, p_worker text)
 RETURNS integer
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'public', 'pg_temp'
AS $function$
DECLARE
  v_refused spsa_batch%ROWTYPE;
BEGIN
  PERFORM spsa_own_worker(p_worker);
  SELECT * INTO v_refused FROM spsa_batch WHERE id = p_batch FOR UPDATE;
  IF NOT FOUND OR v_refused.worker_name IS DISTINCT FROM p_worker OR v_refused.status <> 'claimed' THEN RETURN 0; END IF;
  UPDATE spsa_batch SET status = 'expired', refused = true, given_back_at = now() WHERE id = p_batch;
  IF NOT EXISTS (SELECT 1 FROM spsa_perturbation p WHERE p.batch_id = p_batch) THEN
    INSERT INTO spsa_batch (iteration_id, games, games_before, status) VALUES (v_refused.iteration_id, v_refused.games, v_refused.games_before, 'open');
  END IF;
  RETURN 1;
END $function$;
--> statement-breakpoint
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
      -- A worker's own batches it gave back unplayed (released, or its name taken over), not lapsed.
      UPDATE spsa_batch b SET status = 'expired', given_back_at = CASE WHEN p_worker IS NOT NULL THEN now() END
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
