-- Issue 56, the stop rule: a build-mode run ended early records its last iteration, so that a
-- master restarted after the decision ends it at the same iteration (a UCI-option run cuts its
-- carrier's target_games instead). Null while a run is not ended early.
ALTER TABLE "spsa_run" ADD COLUMN "ended_early_at" integer;