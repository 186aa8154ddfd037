-- A worker role reads only what it needs to play its own batches (docs/worker-role.md): no
-- select on spsa_batch, spsa_perturbation or spsa_worker any more (src/postgres/worker-role.ts),
-- so it sees neither other machines' names, hosts, pids and sessions, nor other batches' results,
-- nor which batches are held or applied. What a claim reads of its batch comes from here: where
-- its games start in the iteration, and the values it plays (a UCI-option batch's draw, or a
-- verification's two θ), only for a batch a name of the caller's login role holds claimed; the
-- owner (who plays through the same code) reads any batch.
CREATE FUNCTION spsa_claimed_batch(p_batch bigint)
RETURNS TABLE (games_before int, list_run int, signature text, plus jsonb, minus jsonb, reference jsonb)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
  IF NOT pg_has_role(session_user, (SELECT c.relowner FROM pg_class c WHERE c.oid = 'public.spsa_batch'::regclass), 'MEMBER')
    AND NOT EXISTS (
      SELECT 1 FROM spsa_batch b JOIN spsa_worker w ON w.name = b.worker_name
      WHERE b.id = p_batch AND b.status = 'claimed' AND w.login_role = session_user
    ) THEN
    RAISE EXCEPTION 'batch % is not claimed by a worker name of database role "%"', p_batch, session_user USING ERRCODE = 'insufficient_privilege';
  END IF;
  RETURN QUERY
    SELECT b.games_before, d.list_run, d.signature, d.plus, d.minus, d.reference
    FROM spsa_batch b
    LEFT JOIN LATERAL (
      SELECT p.run_id AS list_run, o.parameters_signature AS signature,
        p.plus_parameters AS plus, p.minus_parameters AS minus, p.reference_parameters AS reference
      FROM spsa_perturbation p
      JOIN spsa_option_run o ON o.run_id = p.run_id
      WHERE p.batch_id = b.id
      UNION ALL
      SELECT i.options_run_id, i.options_signature, i.plus_parameters, i.minus_parameters, NULL
      FROM spsa_iteration i
      WHERE i.id = b.iteration_id AND i.options_run_id IS NOT NULL
    ) d ON true
    WHERE b.id = p_batch;
END $$;
--> statement-breakpoint
REVOKE EXECUTE ON FUNCTION spsa_claimed_batch(bigint) FROM PUBLIC;
