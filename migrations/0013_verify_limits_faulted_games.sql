CREATE TABLE "spsa_faulted_game" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"run_id" integer NOT NULL,
	"iteration_id" integer NOT NULL,
	"batch_id" bigint NOT NULL,
	"game_index" integer NOT NULL,
	"worker_name" text NOT NULL,
	"side" text NOT NULL,
	"fault" text NOT NULL,
	"reason" text NOT NULL,
	"pgn" text NOT NULL,
	"plus_parameters" jsonb NOT NULL,
	"minus_parameters" jsonb NOT NULL,
	"plus_engine_sha256" text NOT NULL,
	"minus_engine_sha256" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "spsa_faulted_game_side" CHECK ("spsa_faulted_game"."side" in ('plus', 'minus'))
);
--> statement-breakpoint
ALTER TABLE "spsa_verification" ADD COLUMN "limits" jsonb;--> statement-breakpoint
-- Verifications made before this column played at their carrier iteration's limits: its nodes or depth, else its times per move.
UPDATE "spsa_verification" v SET "limits" = coalesce(i.settings->'moveLimit', jsonb_build_object('timelowMs', i.timelow_ms, 'timehighMs', i.timehigh_ms))
FROM "spsa_iteration" i WHERE i.run_id = v.carrier_run_id;--> statement-breakpoint
ALTER TABLE "spsa_verification" ALTER COLUMN "limits" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "spsa_faulted_game" ADD CONSTRAINT "spsa_faulted_game_run_id_spsa_run_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."spsa_run"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "spsa_faulted_game" ADD CONSTRAINT "spsa_faulted_game_iteration_id_spsa_iteration_id_fk" FOREIGN KEY ("iteration_id") REFERENCES "public"."spsa_iteration"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "spsa_faulted_game" ADD CONSTRAINT "spsa_faulted_game_batch_id_spsa_batch_id_fk" FOREIGN KEY ("batch_id") REFERENCES "public"."spsa_batch"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "spsa_faulted_game_batch_game" ON "spsa_faulted_game" USING btree ("batch_id","game_index");--> statement-breakpoint
CREATE INDEX "spsa_faulted_game_run" ON "spsa_faulted_game" USING btree ("run_id","iteration_id","worker_name");--> statement-breakpoint
-- The view gains the limits as its last column (create or replace keeps the columns before it).
CREATE OR REPLACE VIEW "spsa_verification_result" AS
SELECT
	v.id,
	r.name AS run,
	v.to_label || ' vs ' || v.from_label AS comparison,
	v.status,
	i.games_played || '/' || v.max_games AS games,
	i.plus_wins AS wins,
	i.minus_wins AS losses,
	i.draws,
	i.pairs_ll || '/' || i.pairs_ld || '/' || i.pairs_dd || '/' || i.pairs_dw || '/' || i.pairs_ww AS pentanomial,
	round(v.elo::numeric, 1) AS elo,
	round(v.elo_error::numeric, 1) AS elo_error,
	round((100 * v.los)::numeric, 1) AS los_percent,
	v.sprt,
	round(v.llr::numeric, 2) AS llr,
	v.verdict,
	v.created_at,
	v.completed_at,
	v.limits
FROM spsa_verification v
JOIN spsa_run r ON r.id = v.run_id
JOIN spsa_iteration i ON i.run_id = v.carrier_run_id
ORDER BY v.id DESC;
--> statement-breakpoint
-- Keeps a reported batch's faulted games (docs/faulted-games.md), called in the report's transaction
-- once the batch is done: only for the batch's own worker (registered by this database role), with the θ of its iteration (or, in
-- UCI-option mode, of its perturbation), at most 3 per iteration and worker and 200 per run
-- (FAULTED_GAME_LIMITS of src/db/faulted-games.ts). Reports of one run count under one lock, so
-- the cap holds exactly; a game already kept is not kept twice. SECURITY DEFINER so that a
-- worker's database role needs only EXECUTE on it.
CREATE FUNCTION spsa_keep_faulted_games(p_batch bigint, p_worker text, p_games jsonb) RETURNS int
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  v_iteration int;
  v_run int;
  v_plus jsonb;
  v_minus jsonb;
  v_plus_sha text;
  v_minus_sha text;
  v_mine int;
  v_all int;
  v_kept int;
BEGIN
  PERFORM spsa_own_worker(p_worker);
  SELECT i.id, i.run_id, coalesce(p.plus_parameters, i.plus_parameters, '{}'), coalesce(p.minus_parameters, i.minus_parameters, '{}'),
    i.plus_engine_sha256, i.minus_engine_sha256
  INTO v_iteration, v_run, v_plus, v_minus, v_plus_sha, v_minus_sha
  FROM spsa_batch b JOIN spsa_iteration i ON i.id = b.iteration_id LEFT JOIN spsa_perturbation p ON p.batch_id = b.id
  WHERE b.id = p_batch AND b.worker_name = p_worker AND b.status = 'done';
  IF NOT FOUND THEN
    RAISE EXCEPTION 'batch % is not a reported batch of worker "%"', p_batch, p_worker USING ERRCODE = 'insufficient_privilege';
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
END $$;
--> statement-breakpoint
REVOKE ALL ON FUNCTION spsa_keep_faulted_games(bigint, text, jsonb) FROM PUBLIC;
