import type postgres from "postgres";
import { expect } from "vitest";
import { optionRunOf } from "../../src/db/option-run.js";
import { readAppliedChain } from "../../src/db/applied-chain.js";
import { perturb } from "../../src/spsa/math.js";
import { createRng } from "../../src/core/rng.js";
import { paramsAt, signBits } from "../../src/spsa/option-batches.js";
import { applyBatch, batchStepFactor, batchWindow } from "../../src/spsa/batch-step.js";
import { replayAppliedChain } from "../../src/spsa/option-chain.js";
import { pilotIterationsOf } from "../../src/spsa/option-pilot.js";
import { pilotMeasure, spreadSquared } from "../../src/spsa/pilot.js";
import type { OptionRunRow } from "../../src/db/option-run.js";
import type { OptionPilotRecord } from "../../src/types/spsa.js";
import type { SideSums } from "../../src/db/option-pilot.js";

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
  draw_number: number;
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
  /** θ₀ of a curvature pilot's batch or a gain block (in the run's order), else null. */
  reference_parameters: number[] | null;
  /** A gain block: θ against θ₀, never applied (src/spsa/gain-block-plan.ts). */
  gain: boolean;
}

export async function perturbationsOf(sql: postgres.Sql, runName: string): Promise<PerturbationCheck[]> {
  return sql<PerturbationCheck[]>`
    select p.batch_id::int as batch_id, p.batch_number, p.draw_number, b.status, p.games, b.games_before, p.k, p.c_k, p.a_k, p.drawn_from, p.signs, p.step_scale,
      p.plus_parameters, p.minus_parameters, p.plus_wins, p.minus_wins, p.draws, p.theta_after, p.worker_name, p.applied_number as report_order,
      p.reference_parameters, p.gain
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
  const factor = await expectPilot(sql, run.id, optionRun, rows);
  const inReportOrder = rows
    .filter((r) => r.status === "done" && r.reference_parameters === null)
    .sort((x, y) => (x.report_order ?? 0) - (y.report_order ?? 0));
  expect(inReportOrder.map((r) => r.report_order)).toEqual(inReportOrder.map((_, i) => i + 1));
  for (const row of rows) {
    // An applied batch keeps no values; one that expired unplayed neither, from the next fold (or the run's end) on.
    if (row.report_order !== null || (row.status === "expired" && run.status === "complete")) {
      expect(row.plus_parameters, `values of batch ${row.batch_number} (${row.status})`).toBeNull();
    }
    if (row.status !== "done") expect(row.theta_after).toBeNull();
  }
  // The batches of a shared draw were drawn together: one θ, one k, the same signs.
  const firstOfDraw = new Map<number, PerturbationCheck>();
  for (const row of rows) {
    const first = firstOfDraw.get(row.draw_number) ?? row;
    firstOfDraw.set(row.draw_number, first);
    expect([row.drawn_from, row.k, row.signs], `draw of batch ${row.batch_number}`).toEqual([
      first.drawn_from,
      first.k,
      first.signs,
    ]);
  }
  const thetas: Theta[] = [run.initial_parameters];
  // Every batch after the pilot perturbs c·factor^adapt_widen wide.
  const width = (factor ?? 1) ** (optionRun.gains.adaptive?.widen ?? 0);
  for (const [i, row] of inReportOrder.entries()) {
    const drawnFrom = thetas[row.drawn_from ?? -1];
    expect(drawnFrom, `θ batch ${row.batch_number} was drawn from`).toBeDefined();
    const drawn = perturb(
      paramsAt(optionRun, drawnFrom!),
      { ...optionRun.gains, c: optionRun.gains.c * width },
      row.k,
      createRng(`${seed}:batch:${row.draw_number}`),
    );
    expect(row.signs, `signs of batch ${row.batch_number}`).toBe(signBits(optionRun.names, drawn.signs));
    expect([row.c_k, row.a_k]).toEqual([drawn.ck, drawn.ak]);
    const before = inReportOrder.slice(0, i).map((r) => ({ ...countsOf(r), drawNumber: r.draw_number }));
    const window = batchWindow(optionRun.gains, optionRun.gamesPerIteration, row.games);
    // The batches of one shared draw are read as one sample.
    const adaptive = batchStepFactor(
      before.slice(Math.max(0, before.length - window)),
      optionRun.gains,
      optionRun.gamesPerIteration,
    );
    const floor = optionRun.gains.adaptive?.floor ?? 1;
    // Raised by the pilot's factor, its floor lifted: L + (factor − L)·ρ, L = min(factor, floor·factor^lift).
    const lifted = Math.min(factor ?? 1, floor * (factor ?? 1) ** (optionRun.gains.adaptive?.lift ?? 0));
    const scale =
      adaptive === undefined || factor === undefined || factor === 1
        ? adaptive
        : lifted + (factor - lifted) * ((adaptive - floor) / (1 - floor));
    expect(row.step_scale, `step scale of batch ${row.batch_number}`).toBeCloseTo(scale ?? 1, 12);
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

/**
 * The run's curvature pilot as stored: its batches (those with θ₀ as their reference, not gain
 * blocks) were drawn
 * first, from θ₀, none applied to θ; the reported ones not set aside hold exactly the pilot's games
 * (none lost, none counted twice), each side half of them; no other batch was drawn before they
 * were in; and the stored measure is the one their results and spreads give. Returns its factor
 * (undefined: the run has no pilot).
 */
async function expectPilot(
  sql: postgres.Sql,
  runId: number,
  optionRun: OptionRunRow,
  rows: readonly PerturbationCheck[],
): Promise<number | undefined> {
  const pilotGames = optionRun.pilotGames ?? 0;
  const pilotRows = rows.filter((r) => r.reference_parameters !== null && !r.gain);
  const [stored] = await sql<{ pilot: OptionPilotRecord | null; initial: Theta }[]>`
    select o.pilot, r.initial_parameters as initial from spsa_option_run o join spsa_run r on r.id = o.run_id where o.run_id = ${runId}`;
  if (pilotGames === 0) {
    expect(pilotRows).toEqual([]);
    expect(stored?.pilot).toBeNull();
    return undefined;
  }
  const theta0 = optionRun.names.map((name) => stored?.initial[name]);
  for (const row of pilotRows) {
    expect(row.reference_parameters, `θ₀ of pilot batch ${row.batch_number}`).toEqual(theta0);
    expect([row.drawn_from, row.report_order], `pilot batch ${row.batch_number}: drawn from θ₀, not applied`).toEqual([
      0,
      null,
    ]);
    expect(row.games_before).toBeLessThan(pilotGames);
  }
  const counted = await sql<(SideSums & { games: number; plus: number[]; minus: number[] })[]>`
    select b.games, b.ref_plus_wins as pw, b.ref_plus_draws as pd, b.ref_plus_losses as pl, b.ref_minus_wins as mw, b.ref_minus_draws as md,
      b.ref_minus_losses as ml, p.plus_parameters as plus, p.minus_parameters as minus
    from spsa_perturbation p join spsa_batch b on b.id = p.batch_id
    where p.run_id = ${runId} and p.reference_parameters is not null and not p.gain and b.status = 'done' and b.held_at is null and b.undo_id is null
    order by b.id`;
  const played = counted.reduce((n, b) => n + b.games, 0);
  for (const b of counted) expect([b.pw + b.pd + b.pl, b.mw + b.md + b.ml]).toEqual([b.games / 2, b.games / 2]);
  const lastPilot = Math.max(...pilotRows.map((r) => r.batch_id));
  for (const row of rows.filter((r) => r.reference_parameters === null)) {
    expect(row.batch_id, `batch ${row.batch_number} drawn after the pilot`).toBeGreaterThan(lastPilot);
    expect(row.games_before).toBeGreaterThanOrEqual(pilotGames);
  }
  const steps = Object.fromEntries(optionRun.names.map((name) => [name, optionRun.parameters[name]?.step ?? 1]));
  const byName = (values: number[]) =>
    Object.fromEntries(optionRun.names.map((name, i) => [name, values[i] ?? Number.NaN]));
  const batches = counted.map((b) => ({
    games: b.games,
    outcome: {
      plus: { plusWins: b.pw, minusWins: b.pl, draws: b.pd },
      minus: { plusWins: b.mw, minusWins: b.ml, draws: b.md },
    },
    spreadSquared: spreadSquared(steps, byName(b.plus), byName(b.minus)),
  }));
  const measure = pilotMeasure(pilotIterationsOf(batches, optionRun.gamesPerIteration));
  // Stored once the pilot is in (a run killed before that has none yet, and no batch after it).
  if (stored?.pilot === null) {
    expect(played).toBeLessThanOrEqual(pilotGames);
    expect(rows.filter((r) => r.reference_parameters === null)).toEqual([]);
    return undefined;
  }
  expect(played, "the pilot's games, each once").toBe(pilotGames);
  expect(stored?.pilot).toMatchObject({ ...measure, games: pilotGames });
  return measure.factor;
}
