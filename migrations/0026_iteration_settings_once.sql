-- Each iteration setting stored once. An iteration's time per move and games have columns,
-- timelow_ms, timehigh_ms and target_games (the seed's, NOT NULL, read by the workers' claims
-- and by psql users; target_games is also the live target a claim checks and a verification's
-- early stop lowers); a UCI-option run's games per iteration are spsa_option_run.games_per_iteration.
-- Their copies in the settings JSON go: the columns already hold every value the copies did
-- (a verification's carrier recorded the run's timelow and timehigh there though it played its
-- own, which only the columns have). Only rows holding a copy are rewritten.
UPDATE "spsa_iteration" SET "settings" = "settings" - 'timelowMs' - 'timehighMs' - 'gamesPerIteration'
WHERE "settings" ?| ARRAY['timelowMs', 'timehighMs', 'gamesPerIteration'];
