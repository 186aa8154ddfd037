-- A verification of a UCI-option run: its carrier iteration plays the run's one binary set up from that run's parameter list (options_run_id), signed for the carrier run (options_signature): docs/uci-options.md#verifying.
ALTER TABLE "spsa_iteration" ADD COLUMN "options_run_id" integer;--> statement-breakpoint
ALTER TABLE "spsa_iteration" ADD COLUMN "options_signature" text;--> statement-breakpoint
ALTER TABLE "spsa_iteration" ADD CONSTRAINT "spsa_iteration_options_run_id_spsa_run_id_fk" FOREIGN KEY ("options_run_id") REFERENCES "public"."spsa_run"("id") ON DELETE no action ON UPDATE no action;
