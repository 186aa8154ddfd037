-- Binaries kept only while something can still run them (src/engine-build/retention.ts): a
-- pruned row keeps its sha256 and size, its content is null and pruned_at says when. The bytes of
-- binaries stored before are pruned by the first master (or `spsa verify`) that runs after this.
-- One master per run (src/master/run-hold.ts): the holder's session, host, pid, since when, its
-- last heartbeat and when its hold lapses, on spsa_run. The worker role gets nothing new (it
-- reads only the spsa_run columns granted by name, and spsa_binary as before).
ALTER TABLE "spsa_binary" ALTER COLUMN "content" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "spsa_binary" ADD COLUMN "pruned_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "spsa_run" ADD COLUMN "master_session" text;--> statement-breakpoint
ALTER TABLE "spsa_run" ADD COLUMN "master_host" text;--> statement-breakpoint
ALTER TABLE "spsa_run" ADD COLUMN "master_pid" integer;--> statement-breakpoint
ALTER TABLE "spsa_run" ADD COLUMN "master_since" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "spsa_run" ADD COLUMN "master_seen_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "spsa_run" ADD COLUMN "master_expires_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "spsa_binary" ADD CONSTRAINT "spsa_binary_pruned" CHECK (("spsa_binary"."content" is null) = ("spsa_binary"."pruned_at" is not null));