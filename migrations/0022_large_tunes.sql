-- Large tunes (docs/uci-options.md, "Rows that stay small"): a UCI-option run stores its parameter
-- list once, in order (spsa_option_run.parameter_names), and a batch only what it adds to the
-- chain: its signs as one bit per parameter, the number of applied batches whose θ it was drawn
-- from, its step scale, and θ after it only at every theta_every-th applied batch (in the order
-- of parameter_names). The values plus and minus play are kept until the batch is applied or has
-- expired. Runs of earlier versions keep every θ after (theta_every 1) and their values.
DROP VIEW IF EXISTS "spsa_perturbation_progress";--> statement-breakpoint
ALTER TABLE "spsa_option_run" ADD COLUMN "parameter_names" text[];--> statement-breakpoint
ALTER TABLE "spsa_option_run" ADD COLUMN "theta_every" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "spsa_option_run" ADD COLUMN "theta_applied" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Runs of earlier versions wrote θ with every applied batch.
UPDATE "spsa_option_run" o SET "theta_applied" = (SELECT coalesce(max(p."applied_number"), 0) FROM "spsa_perturbation" p WHERE p."run_id" = o."run_id");--> statement-breakpoint
-- The order a resumed master of an earlier version drew in: the keys of the stored list.
UPDATE "spsa_option_run" SET "parameter_names" = ARRAY(SELECT k FROM jsonb_object_keys("parameters") WITH ORDINALITY AS t(k, n) ORDER BY n);--> statement-breakpoint
ALTER TABLE "spsa_option_run" ALTER COLUMN "parameter_names" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "spsa_perturbation" RENAME COLUMN "signs" TO "signs_by_name";--> statement-breakpoint
ALTER TABLE "spsa_perturbation" RENAME COLUMN "theta_after" TO "theta_after_by_name";--> statement-breakpoint
ALTER TABLE "spsa_perturbation" ADD COLUMN "signs" bit varying;--> statement-breakpoint
ALTER TABLE "spsa_perturbation" ADD COLUMN "theta_after" double precision[];--> statement-breakpoint
ALTER TABLE "spsa_perturbation" ADD COLUMN "drawn_from" integer;--> statement-breakpoint
ALTER TABLE "spsa_perturbation" ADD COLUMN "step_scale" double precision;--> statement-breakpoint
-- jsonb numbers are the decimals JSON.stringify wrote: read back as float8 they are the same doubles.
UPDATE "spsa_perturbation" p SET
  "signs" = (SELECT coalesce(string_agg(CASE WHEN (p."signs_by_name" ->> n.name)::float8 > 0 THEN '1' ELSE '0' END, '' ORDER BY n.i), '')::varbit
    FROM "spsa_option_run" o, unnest(o."parameter_names") WITH ORDINALITY AS n(name, i) WHERE o."run_id" = p."run_id"),
  "theta_after" = CASE WHEN p."theta_after_by_name" IS NOT NULL THEN ARRAY(SELECT (p."theta_after_by_name" ->> n.name)::float8
    FROM "spsa_option_run" o, unnest(o."parameter_names") WITH ORDINALITY AS n(name, i) WHERE o."run_id" = p."run_id" ORDER BY n.i) END;--> statement-breakpoint
ALTER TABLE "spsa_perturbation" ALTER COLUMN "signs" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "spsa_perturbation" DROP COLUMN "signs_by_name";--> statement-breakpoint
ALTER TABLE "spsa_perturbation" DROP COLUMN "theta_after_by_name";--> statement-breakpoint
ALTER TABLE "spsa_perturbation" DROP COLUMN "theta_before";--> statement-breakpoint
ALTER TABLE "spsa_perturbation" DROP COLUMN "theta_applied";--> statement-breakpoint
ALTER TABLE "spsa_perturbation" ALTER COLUMN "plus_parameters" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "spsa_perturbation" ALTER COLUMN "minus_parameters" DROP NOT NULL;--> statement-breakpoint
-- A batch that expired unplayed needs its values no more.
UPDATE "spsa_perturbation" p SET "plus_parameters" = NULL, "minus_parameters" = NULL
FROM "spsa_batch" b WHERE b."id" = p."batch_id" AND b."status" = 'expired' AND p."applied_number" IS NULL;--> statement-breakpoint
CREATE INDEX "spsa_perturbation_values" ON "spsa_perturbation" USING btree ("run_id") WHERE "spsa_perturbation"."plus_parameters" is not null;--> statement-breakpoint
-- One row per batch, as before, with θ after it by name where it is stored.
CREATE VIEW "spsa_perturbation_progress" AS
SELECT
	r.name AS run,
	p.batch_number AS batch,
	b.status,
	p.worker_name AS worker,
	p.games,
	p.k,
	round(p.c_k::numeric, 3) AS c_k,
	round(p.a_k::numeric, 5) AS a_k,
	p.plus_wins,
	p.minus_wins,
	p.draws,
	p.pairs AS pentanomial,
	round(p.elo_diff::numeric, 1) AS elo_diff,
	p.applied_number AS applied,
	p.drawn_from,
	p.step_scale,
	p.signs,
	CASE WHEN p.theta_after IS NOT NULL THEN
		(SELECT jsonb_object_agg(n.name, p.theta_after[n.i]) FROM unnest(o.parameter_names) WITH ORDINALITY AS n(name, i)) END AS theta_after,
	p.claimed_at,
	p.reported_at
FROM spsa_perturbation p
JOIN spsa_batch b ON b.id = p.batch_id
JOIN spsa_run r ON r.id = p.run_id
JOIN spsa_option_run o ON o.run_id = p.run_id
ORDER BY r.id DESC, p.batch_number DESC;--> statement-breakpoint
-- A batch's sign of each parameter: +1 or −1 (null for a frozen parameter, which is not perturbed).
CREATE VIEW "spsa_batch_sign" AS
SELECT
	r.name AS run,
	p.batch_number AS batch,
	p.applied_number AS applied,
	n.name AS parameter,
	CASE WHEN (o.parameters -> n.name ->> 'frozen')::boolean THEN NULL WHEN get_bit(p.signs, (n.i - 1)::int) = 1 THEN 1 ELSE -1 END AS sign
FROM spsa_perturbation p
JOIN spsa_run r ON r.id = p.run_id
JOIN spsa_option_run o ON o.run_id = p.run_id
CROSS JOIN LATERAL unnest(o.parameter_names) WITH ORDINALITY AS n(name, i);--> statement-breakpoint
-- θ of a UCI-option run per parameter after `applied` batches: the start (0), every stored θ, and
-- the run's θ (spsa_run.current_parameters, after theta_applied batches).
CREATE VIEW "spsa_option_theta" AS
SELECT r.name AS run, 0 AS applied, n.name AS parameter, (r.initial_parameters ->> n.name)::float8 AS value
FROM spsa_option_run o JOIN spsa_run r ON r.id = o.run_id CROSS JOIN LATERAL unnest(o.parameter_names) AS n(name)
UNION ALL
SELECT r.name, p.applied_number, n.name, p.theta_after[n.i]
FROM spsa_perturbation p JOIN spsa_run r ON r.id = p.run_id JOIN spsa_option_run o ON o.run_id = p.run_id
CROSS JOIN LATERAL unnest(o.parameter_names) WITH ORDINALITY AS n(name, i)
WHERE p.theta_after IS NOT NULL
UNION
SELECT r.name, o.theta_applied, n.name, (r.current_parameters ->> n.name)::float8
FROM spsa_option_run o JOIN spsa_run r ON r.id = o.run_id CROSS JOIN LATERAL unnest(o.parameter_names) AS n(name);
--> statement-breakpoint
-- A batch's drawn values are stored as an array in the run's order (a fifteenth of the bytes of
-- an object by name at 10,000 parameters); by name again where a person or a kept game reads them.
CREATE FUNCTION spsa_values_by_name(p_values jsonb, p_names text[]) RETURNS jsonb
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN jsonb_typeof(p_values) = 'array'
    THEN (SELECT coalesce(jsonb_object_agg(n.name, p_values -> (n.i - 1)::int), '{}') FROM unnest(p_names) WITH ORDINALITY AS n(name, i))
    ELSE p_values END
$$;--> statement-breakpoint
-- As in 0017, with a UCI-option batch's values by name (a kept game names the options it was played with).
CREATE OR REPLACE FUNCTION spsa_keep_faulted_games(p_batch bigint, p_worker text, p_games jsonb) RETURNS int
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  v_iteration int;
  v_run int;
  v_games int;
  v_plus jsonb;
  v_minus jsonb;
  v_plus_sha text;
  v_minus_sha text;
  v_mine int;
  v_all int;
  v_kept int;
BEGIN
  PERFORM spsa_own_worker(p_worker);
  SELECT i.id, i.run_id, b.games, coalesce(spsa_values_by_name(p.plus_parameters, o.parameter_names), i.plus_parameters, '{}'),
    coalesce(spsa_values_by_name(p.minus_parameters, o.parameter_names), i.minus_parameters, '{}'), i.plus_engine_sha256, i.minus_engine_sha256
  INTO v_iteration, v_run, v_games, v_plus, v_minus, v_plus_sha, v_minus_sha
  FROM spsa_batch b JOIN spsa_iteration i ON i.id = b.iteration_id LEFT JOIN spsa_perturbation p ON p.batch_id = b.id
    LEFT JOIN spsa_option_run o ON o.run_id = p.run_id
  WHERE b.id = p_batch AND b.worker_name = p_worker AND b.status = 'done';
  IF NOT FOUND THEN
    RAISE EXCEPTION 'batch % is not a reported batch of worker "%"', p_batch, p_worker USING ERRCODE = 'insufficient_privilege';
  END IF;
  IF jsonb_typeof(p_games) IS DISTINCT FROM 'array' OR jsonb_array_length(p_games) > v_games
     OR EXISTS (SELECT 1 FROM jsonb_array_elements(p_games) g WHERE jsonb_typeof(g) <> 'object'
       OR jsonb_typeof(g->'gameIndex') IS DISTINCT FROM 'number' OR (g->>'gameIndex')::numeric <> trunc((g->>'gameIndex')::numeric)
       OR (g->>'gameIndex')::numeric NOT BETWEEN 0 AND v_games - 1
       OR g->>'side' IS NULL OR g->>'side' NOT IN ('plus', 'minus', 'reference')
       OR g->>'fault' IS NULL OR char_length(g->>'fault') > spsa_limit('fault') OR g->>'fault' ~ '[[:cntrl:]]'
       OR char_length(g->>'reason') > spsa_limit('reason') OR g->>'reason' ~ '[[:cntrl:]]'
       OR g->>'pgn' IS NULL OR char_length(g->>'pgn') > spsa_limit('pgn') OR g->>'pgn' ~ '[\x01-\x08\x0b-\x1f\x7f]') THEN
    RAISE EXCEPTION 'batch %: faulted games are at most its % games, each with its index, side, fault, a reason of at most % and a PGN of at most % characters, without control characters',
      p_batch, v_games, spsa_limit('reason'), spsa_limit('pgn') USING ERRCODE = 'invalid_parameter_value';
  END IF;
  PERFORM pg_advisory_xact_lock(hashtext('spsa_faulted_game:' || v_run));
  SELECT count(*) FILTER (WHERE f.iteration_id = v_iteration AND f.worker_name = p_worker), count(*) INTO v_mine, v_all
  FROM spsa_faulted_game f WHERE f.run_id = v_run;
  INSERT INTO spsa_faulted_game (run_id, iteration_id, batch_id, game_index, worker_name, side, fault, reason, pgn,
    plus_parameters, minus_parameters, plus_engine_sha256, minus_engine_sha256)
  SELECT v_run, v_iteration, p_batch, g."gameIndex", p_worker, g.side, g.fault, g.reason, g.pgn, v_plus, v_minus, v_plus_sha, v_minus_sha
  FROM jsonb_to_recordset(p_games) AS g("gameIndex" int, side text, fault text, reason text, pgn text)
  ORDER BY g."gameIndex" LIMIT greatest(0, least(3 - v_mine, 200 - v_all))
  ON CONFLICT (batch_id, game_index) DO NOTHING;
  GET DIAGNOSTICS v_kept = ROW_COUNT;
  RETURN v_kept;
END $$;
