-- Bad workers (docs/bad-workers.md): the master's and the operators' decisions about a worker in a
-- run, the master's latest evidence, and undos. The worker role gets no privilege on these tables
-- (WORKER_PRIVILEGES in src/postgres/worker-role.ts): it can neither read nor clear a decision.
CREATE TABLE "spsa_undo" (
	"id" serial PRIMARY KEY NOT NULL,
	"run_id" integer NOT NULL,
	"worker_name" text NOT NULL,
	"decided_by" text NOT NULL,
	"batches" integer NOT NULL,
	"games" integer NOT NULL,
	"theta_before" jsonb NOT NULL,
	"theta_after" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "spsa_worker_decision" (
	"id" serial PRIMARY KEY NOT NULL,
	"run_id" integer NOT NULL,
	"worker_name" text NOT NULL,
	"decision" text NOT NULL,
	"reason" text NOT NULL,
	"decided_by" text NOT NULL,
	"evidence" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "spsa_worker_decision_kind" CHECK ("spsa_worker_decision"."decision" in ('suspect', 'accepted', 'rejected'))
);
--> statement-breakpoint
CREATE TABLE "spsa_worker_review" (
	"run_id" integer PRIMARY KEY NOT NULL,
	"evidence" jsonb NOT NULL,
	"strata" integer NOT NULL,
	"reviewed_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "spsa_batch" ADD COLUMN "held_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "spsa_batch" ADD COLUMN "undo_id" integer;--> statement-breakpoint
ALTER TABLE "spsa_undo" ADD CONSTRAINT "spsa_undo_run_id_spsa_run_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."spsa_run"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "spsa_worker_decision" ADD CONSTRAINT "spsa_worker_decision_run_id_spsa_run_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."spsa_run"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "spsa_worker_review" ADD CONSTRAINT "spsa_worker_review_run_id_spsa_run_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."spsa_run"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "spsa_worker_decision_run" ON "spsa_worker_decision" USING btree ("run_id","worker_name","id");--> statement-breakpoint
ALTER TABLE "spsa_batch" ADD CONSTRAINT "spsa_batch_undo_id_spsa_undo_id_fk" FOREIGN KEY ("undo_id") REFERENCES "public"."spsa_undo"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "spsa_batch_set_aside" ON "spsa_batch" USING btree ("iteration_id") WHERE "spsa_batch"."held_at" is not null or "spsa_batch"."undo_id" is not null;