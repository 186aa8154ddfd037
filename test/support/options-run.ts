import type postgres from "postgres";
import { expect } from "vitest";
import { optionRunOf, readAppliedChain } from "../../src/db/option-runs.js";
import { perturb } from "../../src/spsa/math.js";
import { createRng } from "../../src/core/rng.js";
import { applyBatch, batchStepFactor, batchWindow, paramsAt, signBits } from "../../src/spsa/option-batches.js";
import { replayAppliedChain } from "../../src/spsa/option-chain.js";

/** A UCI-option run of the sample engine in tests: its params, its config section, and the check of its θ chain. */

/** Four of minnow's tunables as UCI options: ints, an array element, a float held as value × 100. */
export const OPTION_PARAMS = `
[LMR_BASE]
type = "float"
value = 0.75
min = 0.0
max = 2.0
step = 0.1
option = "LMR_BASE_X100"
option_scale = 100

[LMR_MIN_DEPTH]
value = 3
min = 1
max = 6
step = 1
option = "LMR_MIN_DEPTH"

[KNIGHT_VALUE_MG]
value = 320
min = 250
max = 400
step = 8
option = "KNIGHT_VALUE_MG"

[ALPHA_PRUNE_MARGINS_1]
value = 260
min = 100
max = 500
step = 20
option = "ALPHA_PRUNE_MARGINS_1"
`;

export const OPTIONS_MODE = `
[engine]
mode = "options"
`;

export type Theta = Record<string, number>;

export interface PerturbationCheck {
  batch_id: number;
  batch_number: number;
  status: string;
  games: number;
  games_before: number;
  k: number;
  c_k: number;
  a_k: number;
  drawn_from: number | null;
  signs: string;
  step_scale: number | null;
  plus_parameters: Theta | null;
  minus_parameters: Theta | null;
  plus_wins: number | null;
  minus_wins: number | null;
  draws: number | null;
  theta_after: number[] | null;
  worker_name: string;
  /** 1, 2, … in the order the master applied the reports to θ (null: not applied). */
  report_order: number | null;
}

export async function perturbationsOf(sql: postgres.Sql, runName: string): Promise<PerturbationCheck[]> {
  return sql<PerturbationCheck[]>`
    select p.batch_id::int as batch_id, p.batch_number, b.status, p.games, b.games_before, p.k, p.c_k, p.a_k, p.drawn_from, p.signs, p.step_scale,
      p.plus_parameters, p.minus_parameters, p.plus_wins, p.minus_wins, p.draws, p.theta_after, p.worker_name, p.applied_number as report_order
    from spsa_perturbation p join spsa_batch b on b.id = p.batch_id join spsa_run r on r.id = p.run_id
    where r.name = ${runName} order by p.batch_number`;
}

/**
 * The run's rows replayed here, from the formulas (not through src/spsa/option-chain.ts): every
 * reported batch, in the order the master applied it, was drawn as perturb draws from θ after
 * its drawn_from batches (its signs, c_k and a_k as stored), and moved the θ the one before left
 * by exactly its own result and step scale (the adaptive window of the batches before it), each
 * once, starting at the initial θ; θ is stored after every theta_every-th and equals the
 * replay's; played and expired batches keep no values; the last θ is the run's, and the
 * master's own replay (readAppliedChain, replayAppliedChain) ends there too. Returns the final θ.
 */
export async function expectConsistentRun(sql: postgres.Sql, runName: string, seed: string): Promise<Theta> {
  const [run] = await sql<{ id: number; initial_parameters: Theta; current_parameters: Theta; status: string }[]>`
    select id, initial_parameters, current_parameters, status from spsa_run where name = ${runName}`;
  if (!run) throw new Error("no run");
  const optionRun = await optionRunOf(sql, run.id);
  if (!optionRun) throw new Error("no option run");
  const rows = await perturbationsOf(sql, runName);
  const countsOf = (row: PerturbationCheck) => ({
    plusWins: row.plus_wins ?? 0,
    minusWins: row.minus_wins ?? 0,
    draws: row.draws ?? 0,
  });
  const inReportOrder = rows
    .filter((r) => r.status === "done")
    .sort((x, y) => (x.report_order ?? 0) - (y.report_order ?? 0));
  expect(inReportOrder.map((r) => r.report_order)).toEqual(inReportOrder.map((_, i) => i + 1));
  for (const row of rows) {
    // An applied batch keeps no values; one that expired unplayed neither, from the next fold (or the run's end) on.
    if (row.report_order !== null || (row.status === "expired" && run.status === "complete")) {
      expect(row.plus_parameters, `values of batch ${row.batch_number} (${row.status})`).toBeNull();
    }
    if (row.status !== "done") expect(row.theta_after).toBeNull();
  }
  const thetas: Theta[] = [run.initial_parameters];
  for (const [i, row] of inReportOrder.entries()) {
    const drawnFrom = thetas[row.drawn_from ?? -1];
    expect(drawnFrom, `θ batch ${row.batch_number} was drawn from`).toBeDefined();
    const drawn = perturb(
      paramsAt(optionRun, drawnFrom!),
      optionRun.gains,
      row.k,
      createRng(`${seed}:batch:${row.batch_number}`),
    );
    expect(row.signs, `signs of batch ${row.batch_number}`).toBe(signBits(optionRun.names, drawn.signs));
    expect([row.c_k, row.a_k]).toEqual([drawn.ck, drawn.ak]);
    const before = inReportOrder.slice(0, i).map(countsOf);
    const window = batchWindow(optionRun.gains, optionRun.gamesPerIteration, row.games);
    const scale = batchStepFactor(
      before.slice(Math.max(0, before.length - window)),
      optionRun.gains,
      optionRun.gamesPerIteration,
    );
    expect(row.step_scale, `step scale of batch ${row.batch_number}`).toBe(scale ?? 1);
    const played = { ak: row.a_k, plus: drawn.plus, minus: drawn.minus, games: row.games };
    const theta = thetas[i]!;
    const after = {
      ...theta,
      ...applyBatch(
        paramsAt(optionRun, theta),
        played,
        countsOf(row),
        optionRun.gains,
        optionRun.gamesPerIteration,
        scale,
      ).newValues,
    };
    thetas.push(after);
    const stored =
      row.theta_after === null
        ? null
        : Object.fromEntries(optionRun.names.map((name, n) => [name, row.theta_after?.[n]]));
    expect(
      stored,
      `θ stored after batch ${row.batch_number} (applied ${i + 1}, every ${optionRun.thetaEvery})`,
    ).toEqual((i + 1) % optionRun.thetaEvery === 0 ? after : null);
  }
  const final = thetas.at(-1)!;
  expect(run.current_parameters).toEqual(final);
  const chain = await readAppliedChain(sql, run.id);
  expect(replayAppliedChain(chain.run, chain.start, chain.batches)).toEqual(final);
  return final;
}
