CREATE TABLE "spsa_option_run" (
	"run_id" integer PRIMARY KEY NOT NULL,
	"iteration_id" integer NOT NULL,
	"engine_path" text NOT NULL,
	"engine_sha256" text NOT NULL,
	"parameters" jsonb NOT NULL,
	"gains" jsonb NOT NULL,
	"games_per_iteration" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "spsa_option_run_iteration_id_unique" UNIQUE("iteration_id")
);
--> statement-breakpoint
CREATE TABLE "spsa_perturbation" (
	"batch_id" bigint PRIMARY KEY NOT NULL,
	"run_id" integer NOT NULL,
	"batch_number" integer NOT NULL,
	"worker_name" text NOT NULL,
	"games" integer NOT NULL,
	"k" integer NOT NULL,
	"c_k" double precision NOT NULL,
	"a_k" double precision NOT NULL,
	"theta_before" jsonb NOT NULL,
	"signs" jsonb NOT NULL,
	"plus_parameters" jsonb NOT NULL,
	"minus_parameters" jsonb NOT NULL,
	"plus_wins" integer,
	"minus_wins" integer,
	"draws" integer,
	"pairs" jsonb,
	"elo_diff" double precision,
	"theta_applied" jsonb,
	"theta_after" jsonb,
	"claimed_at" timestamp with time zone DEFAULT now() NOT NULL,
	"reported_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "spsa_option_run" ADD CONSTRAINT "spsa_option_run_run_id_spsa_run_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."spsa_run"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "spsa_option_run" ADD CONSTRAINT "spsa_option_run_iteration_id_spsa_iteration_id_fk" FOREIGN KEY ("iteration_id") REFERENCES "public"."spsa_iteration"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "spsa_perturbation" ADD CONSTRAINT "spsa_perturbation_batch_id_spsa_batch_id_fk" FOREIGN KEY ("batch_id") REFERENCES "public"."spsa_batch"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "spsa_perturbation" ADD CONSTRAINT "spsa_perturbation_run_id_spsa_run_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."spsa_run"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "spsa_perturbation_run_number" ON "spsa_perturbation" USING btree ("run_id","batch_number");--> statement-breakpoint
-- UCI-option runs, one row per claimed batch, newest first: what it played, its result, θ after it.
CREATE VIEW "spsa_perturbation_progress" AS
SELECT
	r.name AS run,
	p.batch_number AS batch,
	b.status,
	p.worker_name AS worker,
	p.games,
	p.k,
	round(p.c_k::numeric, 3) AS c_k,
	round(p.a_k::numeric, 5) AS a_k,
	p.plus_wins,
	p.minus_wins,
	p.draws,
	p.pairs AS pentanomial,
	round(p.elo_diff::numeric, 1) AS elo_diff,
	p.signs,
	p.theta_before,
	p.theta_after,
	p.claimed_at,
	p.reported_at
FROM spsa_perturbation p
JOIN spsa_batch b ON b.id = p.batch_id
JOIN spsa_run r ON r.id = p.run_id
ORDER BY r.id DESC, p.batch_number DESC;
