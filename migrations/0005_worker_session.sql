ALTER TABLE "spsa_worker" ADD COLUMN "pid" integer;--> statement-breakpoint
ALTER TABLE "spsa_worker" ADD COLUMN "session_id" text;