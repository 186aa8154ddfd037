ALTER TABLE "spsa_iteration" DROP CONSTRAINT "spsa_iteration_one_kind";--> statement-breakpoint
ALTER TABLE "spsa_option_run" ADD COLUMN "pilot_games" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "spsa_option_run" ADD COLUMN "pilot" jsonb;--> statement-breakpoint
ALTER TABLE "spsa_perturbation" ADD COLUMN "reference_parameters" jsonb;--> statement-breakpoint
CREATE INDEX "spsa_perturbation_pilot" ON "spsa_perturbation" USING btree ("run_id") WHERE "spsa_perturbation"."reference_parameters" is not null;--> statement-breakpoint
ALTER TABLE "spsa_iteration" ADD CONSTRAINT "spsa_iteration_one_kind" CHECK ("spsa_iteration"."reference_engine_sha256" is null or "spsa_iteration"."plus_wins" + "spsa_iteration"."minus_wins" + "spsa_iteration"."draws" = 0);--> statement-breakpoint
-- The curvature pilot of UCI-option mode (src/master/option-pilot.ts): as in 0017, and a batch
-- whose draw names a reference (θ₀, spsa_perturbation.reference_parameters, written by the master
-- only) is reported as θ+'s and θ−'s games against it, as a reference-mode iteration's are; its
-- counts are checked as those are.
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
  -- Against a reference: a reference-mode iteration's batch, or a batch of a UCI-option run's curvature pilot.
  SELECT i.reference_engine_sha256 IS NOT NULL
      OR EXISTS (SELECT 1 FROM spsa_perturbation p WHERE p.batch_id = p_batch AND p.reference_parameters IS NOT NULL)
    INTO v_reference FROM spsa_iteration i WHERE i.id = v_batch.iteration_id;
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
END $$;
