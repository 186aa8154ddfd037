CREATE TABLE "spsa_batch" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"iteration_id" integer NOT NULL,
	"worker_name" text NOT NULL,
	"games" integer NOT NULL,
	"status" text DEFAULT 'claimed' NOT NULL,
	"claimed_at" timestamp with time zone DEFAULT now() NOT NULL,
	"lease_expires_at" timestamp with time zone NOT NULL,
	"reported_at" timestamp with time zone,
	"plus_wins" integer,
	"minus_wins" integer,
	"draws" integer,
	"pairs" jsonb,
	"faults" jsonb,
	CONSTRAINT "spsa_batch_status" CHECK ("spsa_batch"."status" in ('claimed', 'done', 'expired')),
	CONSTRAINT "spsa_batch_games" CHECK ("spsa_batch"."games" > 0)
);
--> statement-breakpoint
CREATE TABLE "spsa_binary" (
	"sha256" text PRIMARY KEY NOT NULL,
	"size" integer NOT NULL,
	"content" "bytea" NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "spsa_iteration" (
	"id" serial PRIMARY KEY NOT NULL,
	"run_id" integer NOT NULL,
	"iteration_number" integer NOT NULL,
	"plus_engine_path" text NOT NULL,
	"minus_engine_path" text NOT NULL,
	"plus_engine_sha256" text NOT NULL,
	"minus_engine_sha256" text NOT NULL,
	"timelow_ms" integer NOT NULL,
	"timehigh_ms" integer NOT NULL,
	"target_games" integer DEFAULT 150 NOT NULL,
	"games_claimed" integer DEFAULT 0 NOT NULL,
	"games_played" integer DEFAULT 0 NOT NULL,
	"plus_wins" integer DEFAULT 0 NOT NULL,
	"minus_wins" integer DEFAULT 0 NOT NULL,
	"draws" integer DEFAULT 0 NOT NULL,
	"pairs_ll" integer DEFAULT 0 NOT NULL,
	"pairs_ld" integer DEFAULT 0 NOT NULL,
	"pairs_dd" integer DEFAULT 0 NOT NULL,
	"pairs_dw" integer DEFAULT 0 NOT NULL,
	"pairs_ww" integer DEFAULT 0 NOT NULL,
	"plus_crashes" integer DEFAULT 0 NOT NULL,
	"minus_crashes" integer DEFAULT 0 NOT NULL,
	"plus_time_losses" integer DEFAULT 0 NOT NULL,
	"minus_time_losses" integer DEFAULT 0 NOT NULL,
	"plus_illegal_moves" integer DEFAULT 0 NOT NULL,
	"minus_illegal_moves" integer DEFAULT 0 NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"c_k" double precision,
	"a_k" double precision,
	"base_parameters" jsonb,
	"plus_parameters" jsonb,
	"minus_parameters" jsonb,
	"perturbation_signs" jsonb,
	"gradient_estimate" jsonb,
	"elo_diff" double precision,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp with time zone,
	CONSTRAINT "spsa_iteration_status" CHECK ("spsa_iteration"."status" in ('pending', 'in_progress', 'complete')),
	CONSTRAINT "spsa_iteration_claims" CHECK ("spsa_iteration"."games_claimed" <= "spsa_iteration"."target_games" and "spsa_iteration"."games_played" <= "spsa_iteration"."games_claimed"),
	CONSTRAINT "spsa_iteration_results" CHECK ("spsa_iteration"."plus_wins" + "spsa_iteration"."minus_wins" + "spsa_iteration"."draws" = "spsa_iteration"."games_played")
);
--> statement-breakpoint
CREATE TABLE "spsa_run" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"seed" text NOT NULL,
	"config" jsonb NOT NULL,
	"initial_parameters" jsonb NOT NULL,
	"current_parameters" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp with time zone,
	CONSTRAINT "spsa_run_name_unique" UNIQUE("name"),
	CONSTRAINT "spsa_run_status" CHECK ("spsa_run"."status" in ('active', 'complete', 'stopped'))
);
--> statement-breakpoint
CREATE TABLE "spsa_worker" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"host" text NOT NULL,
	"concurrency" integer DEFAULT 1 NOT NULL,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	"games_played" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "spsa_worker_name_unique" UNIQUE("name")
);
--> statement-breakpoint
ALTER TABLE "spsa_batch" ADD CONSTRAINT "spsa_batch_iteration_id_spsa_iteration_id_fk" FOREIGN KEY ("iteration_id") REFERENCES "public"."spsa_iteration"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "spsa_iteration" ADD CONSTRAINT "spsa_iteration_run_id_spsa_run_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."spsa_run"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "spsa_batch_iteration_status" ON "spsa_batch" USING btree ("iteration_id","status");--> statement-breakpoint
CREATE UNIQUE INDEX "spsa_iteration_run_number" ON "spsa_iteration" USING btree ("run_id","iteration_number");--> statement-breakpoint
CREATE INDEX "spsa_iteration_open" ON "spsa_iteration" USING btree ("status") WHERE "spsa_iteration"."status" <> 'complete';