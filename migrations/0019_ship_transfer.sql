-- Transfer in the run (docs/ship-check.md): a verification that plays a tuning iteration's own plus
-- and minus at the ship limits names that iteration; unique, so a restarted master never queues
-- one twice. The worker role gets nothing new: it has no privilege on spsa_verification.
ALTER TABLE "spsa_verification" ADD COLUMN "transfer_iteration_id" integer;--> statement-breakpoint
ALTER TABLE "spsa_verification" ADD CONSTRAINT "spsa_verification_transfer_iteration_id_spsa_iteration_id_fk" FOREIGN KEY ("transfer_iteration_id") REFERENCES "public"."spsa_iteration"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "spsa_verification_transfer_iteration" ON "spsa_verification" USING btree ("transfer_iteration_id");