-- The ship check of a build-mode run (docs/ship-check.md). Only the master writes it: the worker
-- role gets nothing on spsa_ship_check (src/postgres/worker-role.ts grants only what it lists,
-- after every migration), so no worker can write or read a verdict.
CREATE TABLE "spsa_ship_check" (
	"id" serial PRIMARY KEY NOT NULL,
	"run_id" integer NOT NULL,
	"status" text DEFAULT 'running' NOT NULL,
	"limits" jsonb NOT NULL,
	"sprt" jsonb NOT NULL,
	"max_games" integer NOT NULL,
	"elimination_games" integer NOT NULL,
	"candidates" jsonb NOT NULL,
	"elimination" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"chosen" text,
	"chosen_parameters" jsonb,
	"verdict" text,
	"elo" double precision,
	"elo_error" double precision,
	"llr" double precision,
	"games" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp with time zone,
	CONSTRAINT "spsa_ship_check_run_id_unique" UNIQUE("run_id"),
	CONSTRAINT "spsa_ship_check_status" CHECK ("spsa_ship_check"."status" in ('running', 'complete')),
	CONSTRAINT "spsa_ship_check_verdict" CHECK ("spsa_ship_check"."verdict" in ('pass', 'fail', 'undecided'))
);
--> statement-breakpoint
ALTER TABLE "spsa_verification" ADD COLUMN "ship_check_id" integer;--> statement-breakpoint
ALTER TABLE "spsa_verification" ADD COLUMN "ship_stage" text;--> statement-breakpoint
ALTER TABLE "spsa_ship_check" ADD CONSTRAINT "spsa_ship_check_run_id_spsa_run_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."spsa_run"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "spsa_verification" ADD CONSTRAINT "spsa_verification_ship_check_id_spsa_ship_check_id_fk" FOREIGN KEY ("ship_check_id") REFERENCES "public"."spsa_ship_check"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "spsa_verification_ship_stage" ON "spsa_verification" USING btree ("ship_check_id","ship_stage");