import type postgres from "postgres";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/config.js";
import { recordedParams } from "../../src/config/iteration-settings.js";
import { createRng, type Rng } from "../../src/core/rng.js";
import { claimBatch } from "../../src/db/batches.js";
import { foldIteration } from "../../src/db/fold.js";
import { completeIteration, outcomeOf, readIteration } from "../../src/db/iterations.js";
import { readAppliedChain } from "../../src/db/applied-chain.js";
import { openRun } from "../../src/db/runs.js";
import { storedRunConfig } from "../../src/config/secrets.js";
import { applyReports } from "../../src/master/apply-reports.js";
import { topUpDraws } from "../../src/master/draw-pool.js";
import { undoWorker } from "../../src/master/undo-worker.js";
import { stepScales } from "../../src/spsa/adaptive.js";
import { perturb, update } from "../../src/spsa/math.js";
import { paramsAt } from "../../src/spsa/option-batches.js";
import { replayAppliedChain } from "../../src/spsa/option-chain.js";
import type { IterationSettings } from "../../src/types/config.js";
import type { IterationResult, Values } from "../../src/types/spsa.js";
import { useMigratedDatabase } from "../support/database.js";
import { registerTestWorker, reportResult } from "../support/iterations.js";
import { openPlayedIteration, openPlayedOptionRun, runRows } from "../support/played-run.js";
import { replayOptionChain } from "../support/replay-chain.js";

/**
 * `spsa undo --worker` in both modes (docs/bad-workers.md): θ after the undo equals θ of an
 * independent replay of the run's rows without the worker's batches, the rows say what was taken
 * out, and the run goes on from the corrected θ.
 */

/** A report of `games` games: plus's wins for the liar when its sign of X is +1 (all of them), else random. */
function resultFor(worker: string, games: number, signX: number, rng: Rng): IterationResult {
  if (worker === "liar")
    return signX > 0 ? { plusWins: games, minusWins: 0, draws: 0 } : { plusWins: 0, minusWins: games, draws: 0 };
  // Whole pairs of wins, losses and draws.
  const result = { plusWins: 0, minusWins: 0, draws: 0 };
  for (let g = 0; g < games; g += 2) {
    const x = rng.next();
    const key = x < 0.35 ? "plusWins" : x < 0.7 ? "minusWins" : "draws";
    result[key] += 2;
  }
  return result;
}

async function report(
  sql: postgres.Sql,
  worker: string,
  batch: { batchId: number; games: number },
  result: IterationResult,
) {
  expect(await reportResult(sql, worker, batch, result)).toBe("accepted");
}

/**
 * The master's step of a build-mode iteration (src/master/finish-iteration.ts finishIteration), from the θ the
 * database holds.
 */
function masterStep(row: Awaited<ReturnType<typeof readIteration>>) {
  const settings = row.settings!;
  // The scale completeIteration reads under the run's lock (the row's, when it is not rewritten since).
  return (theta: Values, scale = settings.stepScale) => {
    const updated = update(
      recordedParams(settings, theta),
      { ak: row.ak, plus: row.plusParameters, minus: row.minusParameters, ...(scale && { scale }) },
      outcomeOf(row),
      settings.spsa,
    );
    return { ...updated, newValues: { ...theta, ...updated.newValues } };
  };
}

describe("spsa undo --worker in build mode", () => {
  const database = useMigratedDatabase(3);

  it("recomputes θ as an independent replay of the iterations without the worker's batches, and the run goes on from it", async () => {
    const sql = database.sql;
    const config = loadConfig("config.toml");
    const { run } = await openRun(sql, {
      name: "undo-build",
      fresh: false,
      config: storedRunConfig(config),
      values: { X: 5, Y: 5 },
    });
    for (const w of ["h1", "h2", "liar"]) await registerTestWorker(sql, w);
    const rng = createRng("undo-build");
    const cfg = { a: 4, c: 1, A: 1, alpha: 0.602, gamma: 0.101, maxIterations: 10 };
    // Iterations of 16 games in batches of 4, each drawn from θ as the database holds it; one batch of each goes to the liar.
    const open = (k: number) =>
      openPlayedIteration(sql, run, k, {
        config,
        gains: cfg,
        batches: 4,
        seed: `undo-build:${k}`,
        stepScale: { X: 0.5, Y: 1.5 },
      });
    const play = async (iterationId: number, workers: string[]) => {
      const [{ signs } = { signs: {} }] = await sql<
        { signs: Values }[]
      >`select perturbation_signs as signs from spsa_iteration where id = ${iterationId}`;
      for (const worker of workers) {
        const batch = await claimBatch(sql, worker, 4);
        expect(batch?.iterationId).toBe(iterationId);
        await report(sql, worker, batch!, resultFor(worker, batch!.games, signs.X!, rng));
      }
      await foldIteration(sql, iterationId);
    };
    const step = async (iterationId: number) => {
      const row = await readIteration(sql, iterationId);
      expect(
        await sql.begin((tx) =>
          completeIteration(tx, { runId: run.id, iterationId, step: masterStep(row), finalIteration: false }),
        ),
      ).toBeDefined();
    };
    for (let k = 1; k <= 5; k++) {
      const iteration = await open(k);
      await play(iteration.id, ["h1", "liar", "h2", "h1"]);
      await step(iteration.id);
    }
    // Iteration 6 in flight: the liar's batch counted, two batches still open.
    const sixth = await open(6);
    await play(sixth.id, ["liar", "h2"]);
    const [lied] = await sql<
      { theta: Values }[]
    >`select current_parameters as theta from spsa_run where id = ${run.id}`;

    // A dry run computes the same undo and rolls every row back.
    const untouched = await runRows(sql);
    const dry = await undoWorker(sql, run, "liar", "tester@test", () => false);
    expect(dry).toMatchObject({ applied: false, mode: "build", batches: 6, games: 24, thetaBefore: lied!.theta });
    expect(dry).toMatchObject({ replayedSteps: 5, reopenedGames: 4, others: { batches: 16, games: 64 } });
    expect(await runRows(sql)).toEqual(untouched);

    // Iteration 6 as the master read it before the undo.
    const sixthBefore = await readIteration(sql, sixth.id);
    const undone = await undoWorker(sql, run, "liar", "tester@test");
    expect(undone).toMatchObject({ applied: true, mode: "build", batches: 6, games: 24, thetaBefore: lied!.theta });
    expect(undone.thetaAfter).toEqual(dry.thetaAfter);

    // The independent replay: each completed iteration's step from its recorded row and its batches without the liar's.
    const rows = await sql<
      {
        id: number;
        a_k: number;
        plus_parameters: Values;
        minus_parameters: Values;
        settings: IterationSettings;
        theta_after: Values;
        status: string;
      }[]
    >`
      select id, a_k, plus_parameters, minus_parameters, settings, theta_after, status from spsa_iteration where run_id = ${run.id} order by iteration_number`;
    let theta: Values = { X: 5, Y: 5 };
    for (const row of rows.filter((r) => r.status === "complete")) {
      const [counts] = await sql<IterationResult[]>`
        select coalesce(sum(plus_wins), 0)::int as "plusWins", coalesce(sum(minus_wins), 0)::int as "minusWins", coalesce(sum(draws), 0)::int as draws
        from spsa_batch where iteration_id = ${row.id} and status = 'done' and worker_name <> 'liar'`;
      const params = Object.entries(row.settings.parameters).map(([name, s]) => ({ name, value: theta[name]!, ...s }));
      theta = {
        ...theta,
        ...update(
          params,
          { ak: row.a_k, plus: row.plus_parameters, minus: row.minus_parameters, scale: row.settings.stepScale! },
          counts!,
          row.settings.spsa,
        ).newValues,
      };
      expect(row.theta_after, `θ after iteration ${row.id}`).toEqual(theta);
    }
    expect(undone.thetaAfter).toEqual(theta);
    // Each step's scale, iteration 6's too, is the adaptive one of the iterations before it without the liar.
    const measured = await sql<{ elo: number; plusWins: number; minusWins: number; draws: number }[]>`
      select elo_diff as elo, plus_wins as "plusWins", minus_wins as "minusWins", draws
      from spsa_iteration where run_id = ${run.id} and status = 'complete' order by iteration_number`;
    for (const [i, row] of rows.entries()) {
      const before = measured.slice(0, i).map(({ elo, ...result }) => ({ elo, result }));
      expect(row.settings.stepScale, `scale of iteration ${i + 1}`).toEqual(
        stepScales(before, ["X", "Y"], row.settings.spsa.adaptive!),
      );
    }
    const [now] = await sql<{ theta: Values }[]>`select current_parameters as theta from spsa_run where id = ${run.id}`;
    expect(now!.theta).toEqual(theta);
    expect(theta).not.toEqual(lied!.theta);
    // What was taken out is recorded: the undo, and each of the liar's batches names it.
    const [record] =
      await sql`select worker_name, batches, games, theta_before, theta_after, decided_by from spsa_undo where id = ${undone.undoId}`;
    expect(record).toMatchObject({
      worker_name: "liar",
      batches: 6,
      games: 24,
      theta_before: lied!.theta,
      theta_after: theta,
    });
    expect(record!.decided_by).toMatch(/^tester@test \(database role .+\)$/);
    const liar =
      await sql`select count(*)::int as n from spsa_batch where worker_name = 'liar' and undo_id = ${undone.undoId}`;
    expect(liar[0]!.n).toBe(6);
    // Iteration 6 counts only h2's batch, and the liar's games are open again.
    const sixthNow = await readIteration(sql, sixth.id);
    expect(sixthNow.gamesPlayed).toBe(4);
    const [openGames] = await sql<
      { n: number }[]
    >`select coalesce(sum(games), 0)::int as n from spsa_batch where iteration_id = ${sixth.id} and status = 'open'`;
    expect(openGames!.n).toBe(12);
    // A second undo finds nothing left to take out.
    await expect(undoWorker(sql, run, "liar", "tester@test")).rejects.toThrow(
      /has no reported batch in run "undo-build" that θ still holds/,
    );

    // The run goes on: iteration 6's games played by honest workers, its step taken from the corrected θ.
    await play(sixth.id, ["h1", "h2", "h1"]);
    const sixthRow = await readIteration(sql, sixth.id);
    expect(sixthRow.gamesPlayed).toBe(16);
    // Its step takes the scale the undo wrote, read under the run's lock, not the one read before the undo.
    expect(sixthRow.settings!.stepScale).not.toEqual(sixthBefore.settings!.stepScale);
    let taken: Values | undefined;
    const stepped = await sql.begin((tx) =>
      completeIteration(tx, {
        runId: run.id,
        iterationId: sixth.id,
        step: (base, scale) => {
          taken = scale;
          return masterStep(sixthRow)(base, scale);
        },
        finalIteration: false,
      }),
    );
    expect(stepped).toBeDefined();
    expect(taken).toEqual(sixthRow.settings!.stepScale);
    const [after] = await sql<
      { theta: Values }[]
    >`select current_parameters as theta from spsa_run where id = ${run.id}`;
    expect(after!.theta).toEqual(masterStep(sixthRow)(theta).newValues);
  }, 60_000);
});

describe("spsa undo --worker in UCI-option mode", () => {
  const database = useMigratedDatabase(3);

  it("recomputes θ as an independent replay of the chain without the worker's batches, and the run goes on from it", async () => {
    const sql = database.sql;
    // A fixed seed: with a random one the liar's batches can, rarely, leave θ where the honest ones alone take it.
    const target = 160;
    const { run, iteration, optionRun } = await openPlayedOptionRun(sql, {
      name: "undo-options",
      seed: "undo-options",
      target,
    });
    const { parameters, gains } = optionRun;
    for (const w of ["h1", "liar"]) await registerTestWorker(sql, w);
    const rng = createRng("undo-options");
    const play = async (workers: string[]) => {
      for (const worker of workers) {
        await topUpDraws(sql, { ...optionRun, seed: run.seed }, target, 8);
        const batch = await claimBatch(sql, worker, 8);
        expect(batch?.optionDraw).toBeDefined();
        await report(
          sql,
          worker,
          batch!,
          resultFor(worker, batch!.games, batch!.optionDraw!.plus.X! > batch!.optionDraw!.minus.X! ? 1 : -1, rng),
        );
        // Each report applied at once, in the order reported.
        await applyReports(sql, run.id);
      }
    };
    await play(["h1", "liar", "h1", "h1", "liar", "h1", "liar", "h1"]);
    // A liar's report the master has not applied yet is taken out too.
    await topUpDraws(sql, { ...optionRun, seed: run.seed }, target, 8);
    const late = await claimBatch(sql, "liar", 8);
    await report(sql, "liar", late!, resultFor("liar", 8, 1, rng));
    type Applied = {
      batch_number: number;
      draw_number: number;
      worker_name: string;
      games: number;
      k: number;
      a_k: number;
      drawn_from: number;
      plus_wins: number;
      minus_wins: number;
      draws: number;
    };
    const before = await sql<Applied[]>`
      select batch_number::int, draw_number, worker_name, games, k, a_k, drawn_from, plus_wins, minus_wins, draws
      from spsa_perturbation where run_id = ${run.id} and applied_number is not null order by applied_number`;
    expect(before.filter((b) => b.worker_name === "liar")).toHaveLength(3);
    // The values each batch played, drawn again here from θ after its drawn_from batches of the chain as it stood.
    const list = { parameters, names: ["X", "Y"] };
    const chainOf = (
      rows: readonly Applied[],
      played: (b: Applied, thetas: readonly Values[]) => { plus: Values; minus: Values },
    ) => replayOptionChain(rows, { X: 5, Y: 5 }, { list, gains, gamesPerIteration: 16 }, played);
    const values = new Map<number, { plus: Values; minus: Values }>();
    const lied = chainOf(before, (b, thetas) => {
      const drawn = perturb(
        paramsAt(list, thetas[b.drawn_from]!),
        gains,
        b.k,
        createRng(`${run.seed}:batch:${b.draw_number}`),
      );
      values.set(b.batch_number, drawn);
      return drawn;
    }).at(-1)!;

    // A dry run computes the same undo and rolls every row back (the chain, the draws dropped, the carrier's counters).
    const untouched = await runRows(sql);
    const dry = await undoWorker(sql, run, "liar", "tester@test", () => false);
    expect(dry).toMatchObject({ applied: false, mode: "options", batches: 4, games: 32, thetaBefore: lied });
    expect(await runRows(sql)).toEqual(untouched);

    const undone = await undoWorker(sql, run, "liar", "tester@test");
    expect(undone).toMatchObject({ applied: true, mode: "options", batches: 4, games: 32, thetaBefore: lied });
    expect(undone.thetaAfter).toEqual(dry.thetaAfter);

    // The independent replay: the honest batches in the order they moved θ, each with the values it played, its result and the adaptive scale of those before it.
    const honest = before.filter((b) => b.worker_name !== "liar");
    const thetas = chainOf(honest, (b) => values.get(b.batch_number)!);
    const theta = thetas.at(-1)!;
    expect(undone.thetaAfter).toEqual(theta);
    expect(theta).not.toEqual(lied);
    const rows = await sql<
      {
        batch_number: number;
        n: number | null;
        theta_after: number[] | null;
        worker_name: string;
        undo_id: number | null;
      }[]
    >`
      select p.batch_number::int, p.applied_number as n, p.theta_after, p.worker_name, b.undo_id
      from spsa_perturbation p join spsa_batch b on b.id = p.batch_id where p.run_id = ${run.id} and b.status = 'done' order by p.applied_number nulls last, p.batch_id`;
    const applied = rows.filter((r) => r.n !== null);
    expect(applied.map((r) => r.batch_number)).toEqual(honest.map((b) => b.batch_number));
    expect(applied.map((r) => r.n)).toEqual(honest.map((_, i) => i + 1));
    // θ stored after every second place of the new chain, as the replay gives it.
    expect(applied.map((r) => r.theta_after)).toEqual(
      honest.map((_, i) => ((i + 1) % 2 === 0 ? [thetas[i + 1]!.X, thetas[i + 1]!.Y] : null)),
    );
    expect(rows.filter((r) => r.worker_name === "liar").map((r) => [r.n, r.undo_id])).toEqual(
      Array.from({ length: 4 }, () => [null, undone.undoId]),
    );
    // The master's own replay of the rewritten chain gives the same θ.
    const chain = await readAppliedChain(sql, run.id);
    expect(replayAppliedChain(chain.run, chain.start, chain.batches)).toEqual(theta);
    // The carrier counts only the honest games; the liar's games are drawn again.
    const carrier = await readIteration(sql, iteration.id);
    expect(carrier.gamesPlayed).toBe(honest.reduce((n, b) => n + b.games, 0));

    // The run goes on: new draws from the corrected θ, honest reports applied on it, and the chain still replays to the run's θ.
    await play(["h1", "h1"]);
    const [next] = await sql<{ drawn_from: number; n: number }[]>`
      select drawn_from, applied_number as n from spsa_perturbation where run_id = ${run.id} and applied_number = ${honest.length + 1}`;
    expect(next).toEqual({ drawn_from: honest.length, n: honest.length + 1 });
    const [final] = await sql<
      { theta: Values }[]
    >`select current_parameters as theta from spsa_run where id = ${run.id}`;
    const after = await readAppliedChain(sql, run.id);
    expect(after.batches.length + after.start.applied).toBe(honest.length + 2);
    expect(replayAppliedChain(after.run, after.start, after.batches)).toEqual(final!.theta);
  }, 60_000);
});
