-- Nothing reads batches by (iteration, status) any more (the fold reads spsa_batch_unfolded, claims
-- spsa_batch_open), and an index on every version of every batch costs each claim, report and fold a
-- write; with the statistics of a fresh table, claims also took it and sorted all open rows.
DROP INDEX "spsa_batch_iteration_status";--> statement-breakpoint
DROP INDEX "spsa_perturbation_unapplied";--> statement-breakpoint
-- The master's fold adds to an iteration's counters the batches reported since its last fold and
-- marks them folded, instead of summing all of the iteration's batches each poll, which for a
-- UCI-option run's carrier iteration is every batch of the run (docs/scaling-out.md, "Claims at
-- scale"). Batches of older versions are in their counters already: only new rows start unfolded.
ALTER TABLE "spsa_batch" ADD COLUMN "folded" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "spsa_batch" ALTER COLUMN "folded" SET DEFAULT false;--> statement-breakpoint
-- An iteration in flight is counted afresh: its counters start from zero and its batches unfolded,
-- so the next fold adds each once (the UCI-option master does not apply again what it applied).
UPDATE "spsa_batch" b SET "folded" = false FROM "spsa_iteration" i WHERE i."id" = b."iteration_id" AND i."status" <> 'complete';--> statement-breakpoint
UPDATE "spsa_iteration" SET "games_claimed" = 0, "games_played" = 0, "plus_wins" = 0, "minus_wins" = 0, "draws" = 0,
  "pairs_ll" = 0, "pairs_ld" = 0, "pairs_dd" = 0, "pairs_dw" = 0, "pairs_ww" = 0,
  "plus_crashes" = 0, "minus_crashes" = 0, "plus_time_losses" = 0, "minus_time_losses" = 0, "plus_illegal_moves" = 0,
  "minus_illegal_moves" = 0, "plus_delay_losses" = 0, "minus_delay_losses" = 0, "replays" = 0, "replay_limit_pairs" = 0, "binaries_refused" = 0,
  "ref_plus_wins" = 0, "ref_plus_draws" = 0, "ref_plus_losses" = 0, "ref_minus_wins" = 0, "ref_minus_draws" = 0, "ref_minus_losses" = 0,
  "reference_crashes" = 0, "reference_time_losses" = 0, "reference_illegal_moves" = 0, "reference_delay_losses" = 0
WHERE "status" <> 'complete';--> statement-breakpoint
CREATE INDEX "spsa_batch_unfolded" ON "spsa_batch" USING btree ("iteration_id","reported_at","id") WHERE not "spsa_batch"."folded" and ("spsa_batch"."status" = 'done' or "spsa_batch"."refused");--> statement-breakpoint
-- A report, a draw, a refusal or a heartbeat names its batch: found by its primary key alone, then checked. With
-- status = 'claimed' in the condition the planner took the partial index of leases instead, whose
-- dead entries (every batch's claimed version, until a vacuum) each such statement then walked.
CREATE OR REPLACE FUNCTION spsa_report_batch(p_batch bigint, p_worker text, p_wins int, p_losses int, p_draws int, p_pairs int[],
  p_faults jsonb, p_replays int, p_replay_limit_pairs int, p_reference int[] DEFAULT NULL)
RETURNS text
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  v_plus int := coalesce(p_reference[1] + p_reference[2] + p_reference[3], 0);
  v_minus int := coalesce(p_reference[4] + p_reference[5] + p_reference[6], 0);
  v_played int := p_wins + p_losses + p_draws + v_plus + v_minus;
  v_batch spsa_batch%ROWTYPE;
  v_reference boolean;
  v_unknown text;
  f jsonb := p_faults;
BEGIN
  PERFORM spsa_own_worker(p_worker);
  SELECT k INTO v_unknown FROM jsonb_object_keys(f) k WHERE k NOT IN ('plusCrashes', 'minusCrashes', 'referenceCrashes',
    'plusTimeLosses', 'minusTimeLosses', 'referenceTimeLosses', 'plusIllegalMoves', 'minusIllegalMoves', 'referenceIllegalMoves',
    'plusDelayLosses', 'minusDelayLosses', 'referenceDelayLosses') LIMIT 1;
  IF v_unknown IS NOT NULL THEN
    RAISE EXCEPTION 'batch %: unknown fault counter "%"', p_batch, v_unknown USING ERRCODE = 'invalid_parameter_value';
  END IF;
  IF least(p_wins, p_losses, p_draws, p_replays, p_replay_limit_pairs) < 0 OR cardinality(p_pairs) <> 5 OR EXISTS (SELECT 1 FROM unnest(p_pairs) n WHERE n < 0 OR n IS NULL)
     OR EXISTS (SELECT 1 FROM jsonb_each(f) e WHERE jsonb_typeof(e.value) <> 'number' OR (e.value)::numeric < 0)
     OR (p_reference IS NOT NULL AND (cardinality(p_reference) <> 6 OR EXISTS (SELECT 1 FROM unnest(p_reference) n WHERE n < 0 OR n IS NULL))) THEN
    RAISE EXCEPTION 'batch %: a report holds no negative or missing counts', p_batch USING ERRCODE = 'invalid_parameter_value';
  END IF;
  SELECT * INTO v_batch FROM spsa_batch WHERE id = p_batch FOR UPDATE;
  IF NOT FOUND OR v_batch.worker_name IS DISTINCT FROM p_worker THEN RETURN 'refused'; END IF;
  IF v_batch.status = 'done' THEN RETURN 'duplicate'; END IF;
  IF v_batch.status <> 'claimed' THEN RETURN 'refused'; END IF;
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
  IF v_batch.games <> v_played THEN
    RAISE EXCEPTION 'batch % has % games, the report has %', p_batch, v_batch.games, v_played USING ERRCODE = 'invalid_parameter_value';
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
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION spsa_record_draw(p_batch bigint, p_run int, p_batch_number int, p_worker text, p_games int, p_k int, p_ck float8, p_ak float8,
  p_theta_before jsonb, p_signs jsonb, p_plus jsonb, p_minus jsonb)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  v_batch spsa_batch%ROWTYPE;
BEGIN
  PERFORM spsa_own_worker(p_worker);
  SELECT * INTO v_batch FROM spsa_batch WHERE id = p_batch;
  IF NOT FOUND OR v_batch.worker_name IS DISTINCT FROM p_worker OR v_batch.status <> 'claimed' OR v_batch.games <> p_games
     OR NOT EXISTS (SELECT 1 FROM spsa_option_run o WHERE o.iteration_id = v_batch.iteration_id AND o.run_id = p_run) THEN
    RAISE EXCEPTION 'batch % is not a claimed batch of worker "%" in option run %', p_batch, p_worker, p_run USING ERRCODE = 'insufficient_privilege';
  END IF;
  INSERT INTO spsa_perturbation (batch_id, run_id, batch_number, worker_name, games, k, c_k, a_k, theta_before, signs, plus_parameters, minus_parameters)
  VALUES (p_batch, p_run, p_batch_number, p_worker, p_games, p_k, p_ck, p_ak, p_theta_before, p_signs, p_plus, p_minus);
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION spsa_refuse_batch(p_batch bigint, p_worker text) RETURNS int
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  v_refused spsa_batch%ROWTYPE;
BEGIN
  PERFORM spsa_own_worker(p_worker);
  SELECT * INTO v_refused FROM spsa_batch WHERE id = p_batch FOR UPDATE;
  IF NOT FOUND OR v_refused.worker_name IS DISTINCT FROM p_worker OR v_refused.status <> 'claimed' THEN RETURN 0; END IF;
  UPDATE spsa_batch SET status = 'expired', refused = true WHERE id = p_batch;
  INSERT INTO spsa_batch (iteration_id, games, games_before, status) VALUES (v_refused.iteration_id, v_refused.games, v_refused.games_before, 'open');
  RETURN 1;
END $$;
--> statement-breakpoint
-- A worker's batches, each by its primary key (a worker holds a few).
CREATE OR REPLACE FUNCTION spsa_heartbeat(p_worker text, p_session text, p_batches bigint[], p_lease_seconds float8)
RETURNS TABLE (owns_name boolean, held bigint[])
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  v_id bigint;
  v_batch spsa_batch%ROWTYPE;
  v_held bigint[] := '{}';
BEGIN
  UPDATE spsa_worker SET last_seen_at = now() WHERE name = p_worker AND session_id = p_session AND login_role = session_user;
  IF NOT FOUND THEN RETURN QUERY SELECT false, '{}'::bigint[]; RETURN; END IF;
  FOREACH v_id IN ARRAY (SELECT coalesce(array_agg(DISTINCT x ORDER BY x), '{}') FROM unnest(p_batches) x) LOOP
    SELECT * INTO v_batch FROM spsa_batch WHERE id = v_id FOR UPDATE;
    CONTINUE WHEN NOT FOUND OR v_batch.worker_name IS DISTINCT FROM p_worker OR v_batch.status <> 'claimed';
    UPDATE spsa_batch SET lease_expires_at = now() + make_interval(secs => p_lease_seconds) WHERE id = v_id;
    v_held := v_held || v_id;
  END LOOP;
  RETURN QUERY SELECT true, v_held;
END $$;
--> statement-breakpoint
-- Leases that ran out are found by a range of the leases index (a condition on the lease that
-- depends on p_worker could use none, and each claim of every worker runs this first).
CREATE OR REPLACE FUNCTION spsa_return_to_pool(p_worker text) RETURNS TABLE (batches int, games int)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
  IF p_worker IS NOT NULL THEN PERFORM spsa_own_worker(p_worker); END IF;
  RETURN QUERY
    WITH expired AS (
      UPDATE spsa_batch b SET status = 'expired'
      WHERE b.status = 'claimed' AND b.lease_expires_at < (CASE WHEN p_worker IS NULL THEN now() ELSE 'infinity' END)
        AND (p_worker IS NULL OR b.worker_name = p_worker)
      RETURNING b.iteration_id, b.games, b.games_before
    ), reopened AS (
      INSERT INTO spsa_batch (iteration_id, games, games_before, status)
      SELECT e.iteration_id, e.games, e.games_before, 'open' FROM expired e
      RETURNING id
    )
    SELECT count(*)::int, coalesce(sum(expired.games), 0)::int FROM expired;
END $$;
--> statement-breakpoint
-- Vacuumed after a fixed number of dead rows, not after a fifth of the table (autovacuum's default):
-- each batch leaves three dead versions (open, claimed, done) and claims step over the dead entries
-- of spsa_batch_open until a vacuum, so with the default their number grew with the run.
ALTER TABLE "spsa_batch" SET (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 10000);
