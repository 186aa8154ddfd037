-- Issue 24: spsa_run.config no longer holds [database] (its url may carry the password, and the
-- dashboard serves the config). Rows stored before lose it here.
UPDATE "spsa_run" SET "config" = "config" - 'database' WHERE "config"->'database' IS NOT NULL;
