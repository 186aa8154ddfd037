CREATE TABLE "spsa_verification" (
	"id" serial PRIMARY KEY NOT NULL,
	"run_id" integer NOT NULL,
	"carrier_run_id" integer NOT NULL,
	"from_label" text NOT NULL,
	"to_label" text NOT NULL,
	"from_parameters" jsonb NOT NULL,
	"to_parameters" jsonb NOT NULL,
	"max_games" integer NOT NULL,
	"sprt" jsonb,
	"status" text DEFAULT 'running' NOT NULL,
	"verdict" text,
	"elo" double precision,
	"elo_error" double precision,
	"los" double precision,
	"llr" double precision,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp with time zone,
	CONSTRAINT "spsa_verification_status" CHECK ("spsa_verification"."status" in ('running', 'complete'))
);
--> statement-breakpoint
ALTER TABLE "spsa_verification" ADD CONSTRAINT "spsa_verification_run_id_spsa_run_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."spsa_run"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "spsa_verification" ADD CONSTRAINT "spsa_verification_carrier_run_id_spsa_run_id_fk" FOREIGN KEY ("carrier_run_id") REFERENCES "public"."spsa_run"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
-- One row per verification: what was compared, the games so far and the outcome (the "to" engine's view).
CREATE VIEW "spsa_verification_result" AS
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
	v.completed_at
FROM spsa_verification v
JOIN spsa_run r ON r.id = v.run_id
JOIN spsa_iteration i ON i.run_id = v.carrier_run_id
ORDER BY v.id DESC;
