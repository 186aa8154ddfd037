ALTER TABLE "spsa_faulted_game" DROP CONSTRAINT "spsa_faulted_game_side";--> statement-breakpoint
ALTER TABLE "spsa_iteration" DROP CONSTRAINT "spsa_iteration_results";--> statement-breakpoint
ALTER TABLE "spsa_batch" ADD COLUMN "ref_plus_wins" integer;--> statement-breakpoint
ALTER TABLE "spsa_batch" ADD COLUMN "ref_plus_draws" integer;--> statement-breakpoint
ALTER TABLE "spsa_batch" ADD COLUMN "ref_plus_losses" integer;--> statement-breakpoint
ALTER TABLE "spsa_batch" ADD COLUMN "ref_minus_wins" integer;--> statement-breakpoint
ALTER TABLE "spsa_batch" ADD COLUMN "ref_minus_draws" integer;--> statement-breakpoint
ALTER TABLE "spsa_batch" ADD COLUMN "ref_minus_losses" integer;--> statement-breakpoint
ALTER TABLE "spsa_iteration" ADD COLUMN "reference_engine_path" text;--> statement-breakpoint
ALTER TABLE "spsa_iteration" ADD COLUMN "reference_engine_sha256" text;--> statement-breakpoint
ALTER TABLE "spsa_iteration" ADD COLUMN "reference_engine_signature" text;--> statement-breakpoint
ALTER TABLE "spsa_iteration" ADD COLUMN "ref_plus_wins" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "spsa_iteration" ADD COLUMN "ref_plus_draws" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "spsa_iteration" ADD COLUMN "ref_plus_losses" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "spsa_iteration" ADD COLUMN "ref_minus_wins" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "spsa_iteration" ADD COLUMN "ref_minus_draws" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "spsa_iteration" ADD COLUMN "ref_minus_losses" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "spsa_iteration" ADD COLUMN "reference_crashes" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "spsa_iteration" ADD COLUMN "reference_time_losses" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "spsa_iteration" ADD COLUMN "reference_illegal_moves" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "spsa_iteration" ADD COLUMN "reference_delay_losses" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "spsa_run" ADD COLUMN "reference" text;--> statement-breakpoint
ALTER TABLE "spsa_run" ADD COLUMN "reference_path" text;--> statement-breakpoint
ALTER TABLE "spsa_run" ADD COLUMN "reference_sha256" text;--> statement-breakpoint
ALTER TABLE "spsa_faulted_game" ADD CONSTRAINT "spsa_faulted_game_side" CHECK ("spsa_faulted_game"."side" in ('plus', 'minus', 'reference'));--> statement-breakpoint
ALTER TABLE "spsa_iteration" ADD CONSTRAINT "spsa_iteration_reference_sides" CHECK ("spsa_iteration"."ref_plus_wins" + "spsa_iteration"."ref_plus_draws" + "spsa_iteration"."ref_plus_losses" = "spsa_iteration"."ref_minus_wins" + "spsa_iteration"."ref_minus_draws" + "spsa_iteration"."ref_minus_losses");--> statement-breakpoint
ALTER TABLE "spsa_iteration" ADD CONSTRAINT "spsa_iteration_one_kind" CHECK (case when "spsa_iteration"."reference_engine_sha256" is null then "spsa_iteration"."ref_plus_wins" + "spsa_iteration"."ref_plus_draws" + "spsa_iteration"."ref_plus_losses" = 0 else "spsa_iteration"."plus_wins" + "spsa_iteration"."minus_wins" + "spsa_iteration"."draws" = 0 end);--> statement-breakpoint
ALTER TABLE "spsa_iteration" ADD CONSTRAINT "spsa_iteration_results" CHECK ("spsa_iteration"."plus_wins" + "spsa_iteration"."minus_wins" + "spsa_iteration"."draws" + "spsa_iteration"."ref_plus_wins" + "spsa_iteration"."ref_plus_draws" + "spsa_iteration"."ref_plus_losses" + "spsa_iteration"."ref_minus_wins" + "spsa_iteration"."ref_minus_draws" + "spsa_iteration"."ref_minus_losses" = "spsa_iteration"."games_played");--> statement-breakpoint
ALTER TABLE "spsa_run" ADD CONSTRAINT "spsa_run_reference" CHECK ("spsa_run"."reference_sha256" is null or ("spsa_run"."reference" is not null and "spsa_run"."reference_path" is not null));--> statement-breakpoint
-- Reference mode (docs/reference-mode.md): an iteration with a reference engine is played in
-- units of four games on one opening (θ+ as white and as black against the reference, θ− the
-- same), so its rows are whole units and a claim takes whole units, at least one (a worker asking
-- for fewer gets one unit). Otherwise as in 0014.
CREATE OR REPLACE FUNCTION spsa_claim_batch(p_worker text, p_max_games int, p_lease_seconds float8, p_skip int[])
RETURNS TABLE (batch_id bigint, iteration_id int, games int)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  v_iteration int;
  v_reference boolean;
  v_open spsa_batch%ROWTYPE;
  v_games int;
BEGIN
  PERFORM spsa_own_worker(p_worker);
  IF p_max_games IS NULL OR p_max_games < 1 THEN
    RAISE EXCEPTION 'a claim needs at least one game, got %', p_max_games USING ERRCODE = 'invalid_parameter_value';
  END IF;
  -- Iteration by iteration (there are few open ones), so that the batch is the first unlocked
  -- entry of spsa_batch_open in order, not a sort of every open row of a long UCI-option run.
  FOR v_iteration, v_reference IN
    SELECT i.id, i.reference_engine_sha256 IS NOT NULL FROM spsa_iteration i JOIN spsa_run r ON r.id = i.run_id
    WHERE i.status <> 'complete' AND r.status = 'active' AND i.id <> ALL(coalesce(p_skip, '{}')) ORDER BY i.id
  LOOP
    SELECT b.* INTO v_open FROM spsa_batch b WHERE b.iteration_id = v_iteration AND b.status = 'open'
    ORDER BY b.iteration_id, b.id LIMIT 1 FOR UPDATE SKIP LOCKED;
    EXIT WHEN FOUND;
  END LOOP;
  IF v_open.id IS NULL THEN RETURN; END IF;
  v_games := least(CASE WHEN v_reference THEN greatest(4, p_max_games - p_max_games % 4) ELSE p_max_games END, v_open.games);
  IF v_games < v_open.games THEN
    INSERT INTO spsa_batch (iteration_id, games, games_before, status)
    VALUES (v_open.iteration_id, v_open.games - v_games, v_open.games_before + v_games, 'open');
  END IF;
  UPDATE spsa_batch SET status = 'claimed', worker_name = p_worker, games = v_games, claimed_at = now(),
    lease_expires_at = now() + make_interval(secs => p_lease_seconds)
  WHERE id = v_open.id;
  RETURN QUERY SELECT v_open.id, v_open.iteration_id, v_games;
END $$;
--> statement-breakpoint
DROP FUNCTION spsa_report_batch(bigint, text, int, int, int, int[], jsonb, int, int);--> statement-breakpoint
-- As in 0014, plus reference mode: p_reference holds θ+'s and θ−'s wins, draws and losses against
-- the reference ([plus wins, draws, losses, minus wins, draws, losses]); null (the default, so a
-- worker of the version before still reports plus-vs-minus batches) for a plus-vs-minus batch. The
-- report's kind must be its iteration's, and a reference-mode report has as many games of θ+ as
-- of θ− and no plus-against-minus games. Fault keys as in src/db/fault-columns.ts.
CREATE FUNCTION spsa_report_batch(p_batch bigint, p_worker text, p_wins int, p_losses int, p_draws int, p_pairs int[],
  p_faults jsonb, p_replays int, p_replay_limit_pairs int, p_reference int[] DEFAULT NULL)
RETURNS text
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  v_plus int := coalesce(p_reference[1] + p_reference[2] + p_reference[3], 0);
  v_minus int := coalesce(p_reference[4] + p_reference[5] + p_reference[6], 0);
  v_played int := p_wins + p_losses + p_draws + v_plus + v_minus;
  v_reference boolean;
  v_status text;
  v_games int;
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
  SELECT i.reference_engine_sha256 IS NOT NULL INTO v_reference
  FROM spsa_batch b JOIN spsa_iteration i ON i.id = b.iteration_id WHERE b.id = p_batch AND b.worker_name = p_worker;
  IF v_reference IS NOT NULL AND v_reference <> (p_reference IS NOT NULL) THEN
    RAISE EXCEPTION 'batch %: its iteration plays %, the report is of %', p_batch,
      CASE WHEN v_reference THEN 'θ+ and θ− against a reference engine' ELSE 'plus against minus' END,
      CASE WHEN v_reference THEN 'plus against minus' ELSE 'games against a reference engine' END USING ERRCODE = 'invalid_parameter_value';
  END IF;
  IF p_reference IS NOT NULL AND (v_plus <> v_minus OR p_wins + p_losses + p_draws > 0) THEN
    RAISE EXCEPTION 'batch %: a reference-mode report has as many games of θ+ as of θ− (here % and %) and no plus-against-minus games',
      p_batch, v_plus, v_minus USING ERRCODE = 'invalid_parameter_value';
  END IF;
  UPDATE spsa_batch SET status = 'done', reported_at = now(), plus_wins = p_wins, minus_wins = p_losses, draws = p_draws,
    pairs = to_jsonb(p_pairs), faults = f, replays = p_replays, replay_limit_pairs = p_replay_limit_pairs,
    ref_plus_wins = p_reference[1], ref_plus_draws = p_reference[2], ref_plus_losses = p_reference[3],
    ref_minus_wins = p_reference[4], ref_minus_draws = p_reference[5], ref_minus_losses = p_reference[6]
  WHERE id = p_batch AND worker_name = p_worker AND status = 'claimed' AND spsa_batch.games = v_played;
  IF NOT FOUND THEN
    SELECT b.status, b.games INTO v_status, v_games FROM spsa_batch b WHERE b.id = p_batch AND b.worker_name = p_worker;
    IF v_status = 'claimed' THEN
      RAISE EXCEPTION 'batch % has % games, the report has %', p_batch, v_games, v_played USING ERRCODE = 'invalid_parameter_value';
    END IF;
    RETURN CASE WHEN v_status = 'done' THEN 'duplicate' ELSE 'refused' END;
  END IF;
  UPDATE spsa_worker SET games_played = games_played + v_played, last_seen_at = now(),
    delay_losses = delay_losses + coalesce((f->>'plusDelayLosses')::int, 0) + coalesce((f->>'minusDelayLosses')::int, 0)
      + coalesce((f->>'referenceDelayLosses')::int, 0),
    replays = spsa_worker.replays + p_replays
  WHERE name = p_worker;
  RETURN 'accepted';
END $$;
--> statement-breakpoint
REVOKE EXECUTE ON FUNCTION spsa_report_batch(bigint, text, int, int, int, int[], jsonb, int, int, int[]) FROM PUBLIC;--> statement-breakpoint
-- The worker group had the old function; src/db/worker-role.ts grants it again after every
-- migration, and so does this, for a database migrated by other means.
DO $$ BEGIN
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'spsa_workers') THEN
    GRANT EXECUTE ON FUNCTION spsa_report_batch(bigint, text, int, int, int, int[], jsonb, int, int, int[]) TO spsa_workers;
  END IF;
END $$;
--> statement-breakpoint
-- The first columns people look at, as in 0001, with the reference engine's faults and, at the
-- end, both sides' results against the reference in reference mode (null otherwise).
CREATE OR REPLACE VIEW "spsa_progress" AS
SELECT
	r.name AS run,
	i.iteration_number AS iteration,
	i.status,
	i.games_played || '/' || i.target_games AS games,
	i.plus_wins,
	i.minus_wins,
	i.draws,
	round(i.elo_diff::numeric, 1) AS elo_diff,
	i.pairs_ll || '/' || i.pairs_ld || '/' || i.pairs_dd || '/' || i.pairs_dw || '/' || i.pairs_ww AS pentanomial,
	i.plus_crashes + i.minus_crashes + i.reference_crashes + i.plus_time_losses + i.minus_time_losses + i.reference_time_losses
		+ i.plus_illegal_moves + i.minus_illegal_moves + i.reference_illegal_moves AS faults,
	round(i.c_k::numeric, 3) AS c_k,
	round(i.a_k::numeric, 4) AS a_k,
	i.created_at,
	i.completed_at - i.created_at AS duration,
	CASE WHEN i.reference_engine_sha256 IS NOT NULL THEN
		'θ+ +' || i.ref_plus_wins || ' -' || i.ref_plus_losses || ' =' || i.ref_plus_draws
		|| ', θ− +' || i.ref_minus_wins || ' -' || i.ref_minus_losses || ' =' || i.ref_minus_draws END AS vs_reference
FROM spsa_iteration i
JOIN spsa_run r ON r.id = i.run_id
ORDER BY r.id DESC, i.iteration_number DESC;
