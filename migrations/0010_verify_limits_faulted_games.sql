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
CREATE INDEX "spsa_faulted_game_run" ON "spsa_faulted_game" USING btree ("run_id","iteration_id","worker_name");;--> statement-breakpoint
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
