-- The columns people look at first, one row per iteration, newest run first.
CREATE VIEW "spsa_progress" AS
SELECT
	r.name AS run,
	i.iteration_number AS iteration,
	i.status,
	i.games_played || '/' || i.target_games AS games,
	i.plus_wins,
	i.minus_wins,
	i.draws,
	round(i.elo_diff::numeric, 1) AS elo_diff,
	i.pairs_ll || '/' || i.pairs_ld || '/' || i.pairs_dd || '/' || i.pairs_dw || '/' || i.pairs_ww AS pentanomial,
	i.plus_crashes + i.minus_crashes + i.plus_time_losses + i.minus_time_losses
		+ i.plus_illegal_moves + i.minus_illegal_moves AS faults,
	round(i.c_k::numeric, 3) AS c_k,
	round(i.a_k::numeric, 4) AS a_k,
	i.created_at,
	i.completed_at - i.created_at AS duration
FROM spsa_iteration i
JOIN spsa_run r ON r.id = i.run_id
ORDER BY r.id DESC, i.iteration_number DESC;
--> statement-breakpoint
-- θ per parameter per iteration, for graphs: select * from spsa_parameter_history where parameter = 'LMR_MIN_DEPTH'.
CREATE VIEW "spsa_parameter_history" AS
SELECT
	r.name AS run,
	i.iteration_number AS iteration,
	p.key AS parameter,
	p.value::double precision AS value,
	(i.perturbation_signs ->> p.key)::int AS sign,
	(i.gradient_estimate ->> p.key)::double precision AS gradient
FROM spsa_iteration i
JOIN spsa_run r ON r.id = i.run_id
CROSS JOIN LATERAL jsonb_each_text(i.base_parameters) AS p(key, value)
ORDER BY r.id, p.key, i.iteration_number;
