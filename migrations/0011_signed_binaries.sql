ALTER TABLE "spsa_iteration" ADD COLUMN "plus_engine_signature" text;--> statement-breakpoint
ALTER TABLE "spsa_iteration" ADD COLUMN "minus_engine_signature" text;--> statement-breakpoint
ALTER TABLE "spsa_iteration" ADD COLUMN "binaries_refused" integer DEFAULT 0 NOT NULL;