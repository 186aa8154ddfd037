CREATE TABLE "spsa_run_worker" (
	"run_id" integer NOT NULL,
	"worker_name" text NOT NULL,
	"batches" integer DEFAULT 0 NOT NULL,
	"games" integer DEFAULT 0 NOT NULL,
	"plus_wins" integer DEFAULT 0 NOT NULL,
	"minus_wins" integer DEFAULT 0 NOT NULL,
	"draws" integer DEFAULT 0 NOT NULL,
	"engine_faults" integer DEFAULT 0 NOT NULL,
	"delay_losses" integer DEFAULT 0 NOT NULL,
	"replays" integer DEFAULT 0 NOT NULL,
	"replay_limit_pairs" integer DEFAULT 0 NOT NULL,
	"first_reported_at" timestamp with time zone,
	"last_reported_at" timestamp with time zone,
	CONSTRAINT "spsa_run_worker_run_id_worker_name_pk" PRIMARY KEY("run_id","worker_name")
);
--> statement-breakpoint
ALTER TABLE "spsa_run_worker" ADD CONSTRAINT "spsa_run_worker_run_id_spsa_run_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."spsa_run"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
-- The batches already in their iterations' counters (folded, done, neither held nor undone), by run and worker.
INSERT INTO "spsa_run_worker" ("run_id", "worker_name", "batches", "games", "plus_wins", "minus_wins", "draws", "engine_faults", "delay_losses",
  "replays", "replay_limit_pairs", "first_reported_at", "last_reported_at")
SELECT i."run_id", b."worker_name", count(*)::int, coalesce(sum(b."games"), 0)::int, coalesce(sum(b."plus_wins"), 0)::int,
  coalesce(sum(b."minus_wins"), 0)::int, coalesce(sum(b."draws"), 0)::int,
  coalesce(sum((SELECT coalesce(sum((v.value)::int), 0) FROM jsonb_each_text(coalesce(b."faults", '{}'::jsonb)) v
    WHERE v.key ~ '^(plus|minus|reference)(Crashes|TimeLosses|IllegalMoves)$')), 0)::int,
  coalesce(sum((SELECT coalesce(sum((v.value)::int), 0) FROM jsonb_each_text(coalesce(b."faults", '{}'::jsonb)) v
    WHERE v.key ~ '^(plus|minus|reference)DelayLosses$')), 0)::int,
  coalesce(sum(b."replays"), 0)::int, coalesce(sum(b."replay_limit_pairs"), 0)::int, min(b."reported_at"), max(b."reported_at")
FROM "spsa_batch" b JOIN "spsa_iteration" i ON i."id" = b."iteration_id"
WHERE b."folded" AND b."status" = 'done' AND b."held_at" IS NULL AND b."undo_id" IS NULL AND b."worker_name" IS NOT NULL
GROUP BY i."run_id", b."worker_name";
