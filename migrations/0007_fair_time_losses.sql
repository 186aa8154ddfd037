ALTER TABLE "spsa_iteration" ADD COLUMN "plus_delay_losses" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "spsa_iteration" ADD COLUMN "minus_delay_losses" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "spsa_iteration" ADD COLUMN "replays" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "spsa_iteration" ADD COLUMN "replay_limit_pairs" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "spsa_worker" ADD COLUMN "delay_losses" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "spsa_worker" ADD COLUMN "replays" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "spsa_worker" ADD COLUMN "concurrency_note" text;