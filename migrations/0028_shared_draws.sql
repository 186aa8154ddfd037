-- The draw a UCI-option batch plays, by the batch_number of the draw's first batch: batches of one shared draw have the same (docs/uci-options.md, "Shared draws").
-- Every batch before played a draw of its own.
ALTER TABLE "spsa_perturbation" ADD COLUMN "draw_number" integer;--> statement-breakpoint
UPDATE "spsa_perturbation" SET "draw_number" = "batch_number";--> statement-breakpoint
ALTER TABLE "spsa_perturbation" ALTER COLUMN "draw_number" SET NOT NULL;
