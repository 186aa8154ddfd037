ALTER TABLE "spsa_worker" ADD COLUMN "measured_nps" double precision;--> statement-breakpoint
ALTER TABLE "spsa_worker" ADD COLUMN "time_factor" double precision;