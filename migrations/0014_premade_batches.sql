ALTER TABLE "spsa_batch" DROP CONSTRAINT "spsa_batch_status";--> statement-breakpoint
ALTER TABLE "spsa_batch" ALTER COLUMN "worker_name" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "spsa_batch" ALTER COLUMN "status" SET DEFAULT 'open';--> statement-breakpoint
ALTER TABLE "spsa_batch" ALTER COLUMN "claimed_at" DROP DEFAULT;--> statement-breakpoint
ALTER TABLE "spsa_batch" ALTER COLUMN "claimed_at" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "spsa_batch" ALTER COLUMN "lease_expires_at" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "spsa_batch" ADD COLUMN "games_before" integer;--> statement-breakpoint
ALTER TABLE "spsa_batch" ADD COLUMN "replays" integer;--> statement-breakpoint
ALTER TABLE "spsa_batch" ADD COLUMN "replay_limit_pairs" integer;--> statement-breakpoint
ALTER TABLE "spsa_batch" ADD COLUMN "refused" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "spsa_perturbation" ADD COLUMN "applied_number" integer;--> statement-breakpoint
CREATE INDEX "spsa_batch_leases" ON "spsa_batch" USING btree ("lease_expires_at") WHERE "spsa_batch"."status" = 'claimed';--> statement-breakpoint
CREATE INDEX "spsa_batch_open" ON "spsa_batch" USING btree ("iteration_id","id") WHERE "spsa_batch"."status" = 'open';--> statement-breakpoint
CREATE UNIQUE INDEX "spsa_perturbation_run_applied" ON "spsa_perturbation" USING btree ("run_id","applied_number");--> statement-breakpoint
CREATE INDEX "spsa_perturbation_unapplied" ON "spsa_perturbation" USING btree ("run_id") WHERE "spsa_perturbation"."applied_number" is null;--> statement-breakpoint
ALTER TABLE "spsa_batch" ADD CONSTRAINT "spsa_batch_claimed" CHECK ("spsa_batch"."status" = 'open' or ("spsa_batch"."worker_name" is not null and "spsa_batch"."claimed_at" is not null and "spsa_batch"."lease_expires_at" is not null));--> statement-breakpoint
ALTER TABLE "spsa_batch" ADD CONSTRAINT "spsa_batch_status" CHECK ("spsa_batch"."status" in ('open', 'claimed', 'done', 'expired'));--> statement-breakpoint
-- Claims no longer lock the iteration row (docs/scaling-out.md, "Claims at scale"): an iteration's
-- games are open spsa_batch rows made with it, claimed FOR UPDATE SKIP LOCKED; reports write only
-- their batch and worker; the master folds the done batches into the iteration's counters and,
-- in UCI-option mode, into θ. Batches of older versions keep their results; an iteration in
-- flight gets one open row for its unclaimed games (a claim splits it to its size).
UPDATE spsa_batch SET replays = 0, replay_limit_pairs = 0 WHERE status = 'done';--> statement-breakpoint
-- An iteration in flight keeps what its older reports counted on the iteration row: its replays
-- on its last done batch, its refusals as that many of its expired batches.
UPDATE spsa_batch b SET replays = i.replays, replay_limit_pairs = i.replay_limit_pairs
FROM spsa_iteration i
WHERE i.status <> 'complete' AND b.id = (SELECT max(d.id) FROM spsa_batch d WHERE d.iteration_id = i.id AND d.status = 'done');--> statement-breakpoint
UPDATE spsa_batch b SET refused = true
FROM (SELECT e.id, row_number() OVER (PARTITION BY e.iteration_id ORDER BY e.id DESC) AS n, i.binaries_refused
      FROM spsa_batch e JOIN spsa_iteration i ON i.id = e.iteration_id WHERE i.status <> 'complete' AND e.status = 'expired') x
WHERE b.id = x.id AND x.n <= x.binaries_refused;--> statement-breakpoint
INSERT INTO spsa_batch (iteration_id, games, games_before, status)
SELECT i.id, i.target_games - s.claimed, s.claimed, 'open'
FROM spsa_iteration i
CROSS JOIN LATERAL (SELECT coalesce(sum(b.games) FILTER (WHERE b.status IN ('claimed', 'done')), 0)::int AS claimed FROM spsa_batch b WHERE b.iteration_id = i.id) s
WHERE i.status <> 'complete' AND i.target_games > s.claimed;--> statement-breakpoint
-- Reports already applied to θ, numbered in the order they moved it.
UPDATE spsa_perturbation p SET applied_number = n.n
FROM (SELECT batch_id, row_number() OVER (PARTITION BY run_id ORDER BY reported_at, batch_number) AS n FROM spsa_perturbation WHERE reported_at IS NOT NULL) n
WHERE p.batch_id = n.batch_id;--> statement-breakpoint
-- Takes the oldest open batch of the oldest open iteration (not in p_skip, whose binaries the
-- worker refused), skipping rows other claims hold: no claim waits on another. A batch larger
-- than p_max_games is split, its rest staying open, so the open, claimed and done rows of an
-- iteration always add up to its target.
CREATE OR REPLACE FUNCTION spsa_claim_batch(p_worker text, p_max_games int, p_lease_seconds float8, p_skip int[])
RETURNS TABLE (batch_id bigint, iteration_id int, games int)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  v_iteration int;
  v_open spsa_batch%ROWTYPE;
  v_games int;
BEGIN
  PERFORM spsa_own_worker(p_worker);
  IF p_max_games IS NULL OR p_max_games < 1 THEN
    RAISE EXCEPTION 'a claim needs at least one game, got %', p_max_games USING ERRCODE = 'invalid_parameter_value';
  END IF;
  -- Iteration by iteration (there are few open ones), so that the batch is the first unlocked
  -- entry of spsa_batch_open in order, not a sort of every open row of a long UCI-option run.
  FOR v_iteration IN
    SELECT i.id FROM spsa_iteration i JOIN spsa_run r ON r.id = i.run_id
    WHERE i.status <> 'complete' AND r.status = 'active' AND i.id <> ALL(coalesce(p_skip, '{}')) ORDER BY i.id
  LOOP
    SELECT b.* INTO v_open FROM spsa_batch b WHERE b.iteration_id = v_iteration AND b.status = 'open'
    ORDER BY b.iteration_id, b.id LIMIT 1 FOR UPDATE SKIP LOCKED;
    EXIT WHEN FOUND;
  END LOOP;
  IF v_open.id IS NULL THEN RETURN; END IF;
  v_games := least(p_max_games, v_open.games);
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
-- Claimed batches back to the pool: a worker's (p_worker) or those whose lease ran out (null).
-- Each becomes 'expired' (a late report is refused) and its games a new open row.
CREATE OR REPLACE FUNCTION spsa_return_to_pool(p_worker text) RETURNS TABLE (batches int, games int)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
  IF p_worker IS NOT NULL THEN PERFORM spsa_own_worker(p_worker); END IF;
  RETURN QUERY
    WITH expired AS (
      UPDATE spsa_batch b SET status = 'expired'
      WHERE b.status = 'claimed' AND (CASE WHEN p_worker IS NULL THEN b.lease_expires_at < now() ELSE b.worker_name = p_worker END)
      RETURNING b.iteration_id, b.games, b.games_before
    ), reopened AS (
      INSERT INTO spsa_batch (iteration_id, games, games_before, status)
      SELECT e.iteration_id, e.games, e.games_before, 'open' FROM expired e
      RETURNING id
    )
    SELECT count(*)::int, coalesce(sum(expired.games), 0)::int FROM expired;
END $$;
--> statement-breakpoint
-- A worker refused the batch's binaries: the batch expires as refused (the master's fold counts
-- it in binaries_refused) and its games are open again, once. Returns the batches released.
CREATE OR REPLACE FUNCTION spsa_refuse_batch(p_batch bigint, p_worker text) RETURNS int
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  v_refused spsa_batch%ROWTYPE;
BEGIN
  PERFORM spsa_own_worker(p_worker);
  UPDATE spsa_batch SET status = 'expired', refused = true WHERE id = p_batch AND worker_name = p_worker AND status = 'claimed'
  RETURNING * INTO v_refused;
  IF NOT FOUND THEN RETURN 0; END IF;
  INSERT INTO spsa_batch (iteration_id, games, games_before, status) VALUES (v_refused.iteration_id, v_refused.games, v_refused.games_before, 'open');
  RETURN 1;
END $$;
--> statement-breakpoint
-- A batch's results go to its row and its worker's, once: only if the batch goes from claimed to
-- done here, with exactly its claimed games. 'duplicate' for a replay, 'refused' for an expired batch.
-- The iteration's counters are the master's to fold (src/db/batches.ts foldIteration), so
-- reports of one iteration never wait on each other. Fault keys as in src/db/fault-columns.ts.
CREATE OR REPLACE FUNCTION spsa_report_batch(p_batch bigint, p_worker text, p_wins int, p_losses int, p_draws int, p_pairs int[],
  p_faults jsonb, p_replays int, p_replay_limit_pairs int)
RETURNS text
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  v_played int := p_wins + p_losses + p_draws;
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
    pairs = to_jsonb(p_pairs), faults = f, replays = p_replays, replay_limit_pairs = p_replay_limit_pairs
  WHERE id = p_batch AND worker_name = p_worker AND status = 'claimed' AND spsa_batch.games = v_played;
  IF NOT FOUND THEN
    SELECT b.status, b.games INTO v_status, v_games FROM spsa_batch b WHERE b.id = p_batch AND b.worker_name = p_worker;
    IF v_status = 'claimed' THEN
      RAISE EXCEPTION 'batch % has % games, the report has %', p_batch, v_games, v_played USING ERRCODE = 'invalid_parameter_value';
    END IF;
    RETURN CASE WHEN v_status = 'done' THEN 'duplicate' ELSE 'refused' END;
  END IF;
  UPDATE spsa_worker SET games_played = games_played + v_played, last_seen_at = now(),
    delay_losses = delay_losses + coalesce((f->>'plusDelayLosses')::int, 0) + coalesce((f->>'minusDelayLosses')::int, 0),
    replays = spsa_worker.replays + p_replays
  WHERE name = p_worker;
  RETURN 'accepted';
END $$;
--> statement-breakpoint
-- UCI-option mode: workers draw from θ without a lock and no longer write θ; the master applies
-- the reports (src/uci-tune/apply-reports.ts), as the tables' owner.
DROP FUNCTION spsa_lock_option_run(int);--> statement-breakpoint
DROP FUNCTION spsa_record_option_result(bigint, int, int, int, int, jsonb, float8, jsonb, jsonb);
