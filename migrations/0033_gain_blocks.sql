-- Issue 56, the Elo gained so far: a UCI-option run records the share of its games it plays as gain
-- blocks (θ against θ₀, src/spsa/gain-block-plan.ts), and each such batch is marked, so the curvature
-- pilot (which also names θ₀) and the gain reader (src/db/gain-blocks.ts) tell them apart.
ALTER TABLE "spsa_option_run" ADD COLUMN "gain_share" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "spsa_perturbation" ADD COLUMN "gain" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "spsa_perturbation" ADD CONSTRAINT "spsa_perturbation_gain" CHECK (not "spsa_perturbation"."gain" or "spsa_perturbation"."reference_parameters" is not null);