import type postgres from "postgres";
import { expect } from "vitest";
import { optionRunOf } from "../../src/db/perturbations.js";
import { perturb } from "../../src/spsa/math.js";
import { createRng } from "../../src/core/rng.js";
import { applyBatch, batchStepScales, batchWindow, paramsAt } from "../../src/spsa/option-batches.js";

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
  k: number;
  a_k: number;
  theta_before: Theta;
  signs: Theta;
  plus_parameters: Theta;
  minus_parameters: Theta;
  plus_wins: number | null;
  minus_wins: number | null;
  draws: number | null;
  theta_applied: Theta | null;
  theta_after: Theta | null;
  worker_name: string;
  /** 1, 2, … in the order the master applied the reports to θ (null: not applied). */
  report_order: number | null;
}

export async function perturbationsOf(sql: postgres.Sql, runName: string): Promise<PerturbationCheck[]> {
  return sql<PerturbationCheck[]>`
    select p.batch_id::int as batch_id, p.batch_number, b.status, p.games, p.k, p.a_k, p.theta_before, p.signs, p.plus_parameters, p.minus_parameters,
      p.plus_wins, p.minus_wins, p.draws, p.theta_applied, p.theta_after, p.worker_name,
      p.applied_number as report_order
    from spsa_perturbation p join spsa_batch b on b.id = p.batch_id join spsa_run r on r.id = p.run_id
    where r.name = ${runName} order by p.batch_number`;
}

/**
 * Every perturbation as the formulas draw it from its θ before, and the reported ones
 * chained in the order the master applied them: each moved the θ the one before left by
 * exactly its own result, starting at the initial θ, each once, and the last θ is the
 * run's. Returns the final θ.
 */
export async function expectConsistentRun(sql: postgres.Sql, runName: string, seed: string): Promise<Theta> {
  const [run] = await sql<{ id: number; initial_parameters: Theta; current_parameters: Theta; status: string }[]>`
    select id, initial_parameters, current_parameters, status from spsa_run where name = ${runName}`;
  if (!run) throw new Error("no run");
  const optionRun = await optionRunOf(sql, run.id);
  if (!optionRun) throw new Error("no option run");
  const rows = await perturbationsOf(sql, runName);
  for (const row of rows) {
    const drawn = perturb(paramsAt(optionRun.parameters, row.theta_before), optionRun.gains, row.k, createRng(`${seed}:batch:${row.batch_number}`));
    expect(row.signs, `signs of batch ${row.batch_number}`).toEqual(drawn.signs);
    expect(row.plus_parameters).toEqual(drawn.plus);
    expect(row.a_k).toBe(drawn.ak);
    // Only reported batches have a result; an expired one changed nothing.
    expect(row.theta_after !== null, `batch ${row.batch_number} (${row.status})`).toBe(row.status === "done");
  }
  const reported = rows.filter((r) => r.status === "done");
  const countsOf = (row: PerturbationCheck) => ({ plusWins: row.plus_wins ?? 0, minusWins: row.minus_wins ?? 0, draws: row.draws ?? 0 });
  const inReportOrder = [...reported].sort((x, y) => (x.report_order ?? 0) - (y.report_order ?? 0));
  const stepOf = (row: PerturbationCheck, from: Theta) => {
    const played = { ak: row.a_k, plus: row.plus_parameters, minus: row.minus_parameters, games: row.games };
    // Adaptive gains: the scale comes from the batches reported before this one.
    const before = inReportOrder.slice(0, inReportOrder.indexOf(row)).map(countsOf);
    const window = batchWindow(optionRun.gains, optionRun.gamesPerIteration, row.games);
    const scale = batchStepScales(optionRun.parameters, before.slice(Math.max(0, before.length - window)), optionRun.gains, optionRun.gamesPerIteration);
    return { ...from, ...applyBatch(paramsAt(optionRun.parameters, from), played, countsOf(row), optionRun.gains, optionRun.gamesPerIteration, scale).newValues };
  };
  for (const row of reported) expect(row.theta_after, `θ after batch ${row.batch_number}`).toEqual(stepOf(row, row.theta_applied ?? {}));
  // In the order the master applied them, each report starts from the θ the one before left: one chain from the initial θ.
  let theta = run.initial_parameters;
  for (const row of inReportOrder) {
    expect(row.theta_applied, `θ applied by batch ${row.batch_number} (applied ${row.report_order})`).toEqual(theta);
    theta = row.theta_after ?? theta;
  }
  expect(inReportOrder.map((r) => r.report_order)).toEqual(inReportOrder.map((_, i) => i + 1));
  expect(run.current_parameters).toEqual(theta);
  return theta;
}

