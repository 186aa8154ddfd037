import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type postgres from "postgres";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/config.js";
import { storedRunConfig } from "../../src/config/secrets.js";
import { createRng, type Rng } from "../../src/core/rng.js";
import { claimBatch } from "../../src/db/batches.js";
import { foldIteration } from "../../src/db/fold.js";
import { completeIteration, outcomeOf, readIteration } from "../../src/db/iterations.js";
import { completeOptionRun } from "../../src/db/option-run.js";
import { readAppliedChain } from "../../src/db/applied-chain.js";
import { openRun } from "../../src/db/runs.js";
import { recordDecision } from "../../src/db/worker-decisions.js";
import { recordedParams } from "../../src/config/iteration-settings.js";
import { acceptWorker } from "../../src/master/accept-worker.js";
import { applyReports } from "../../src/master/apply-reports.js";
import { topUpDraws } from "../../src/master/draw-pool.js";
import { perturb, update } from "../../src/spsa/math.js";
import { paramsAt } from "../../src/spsa/option-batches.js";
import { replayAppliedChain } from "../../src/spsa/option-chain.js";
import type { IterationSettings } from "../../src/types/config.js";
import type { IterationResult, Values } from "../../src/types/spsa.js";
import { useMigratedDatabase } from "../support/database.js";
import { registerTestWorker, reportResult } from "../support/iterations.js";
import { loadParams, valuesOf } from "../../src/params/params.js";
import { spsa } from "../support/cli.js";
import {
  openPlayedIteration,
  openPlayedOptionRun,
  playedParamsToml,
  runRows,
  runTheta,
} from "../support/played-run.js";
import { replayOptionChain } from "../support/replay-chain.js";

/**
 * `spsa workers accept` of a worker whose batches the master held (docs/bad-workers.md): its held
 * batches are given back, in build mode to their iterations' counters with every completed step
 * taken again, in UCI-option mode to the chain where they were reported; θ after it equals an
 * independent replay of the run's rows with every batch, in both modes, on a run still going and
 * on a completed one.
 */

const DECISION = { worker: "framed", reason: "looked fine after all", who: "tester@test" };

/** Whole pairs of wins, losses and draws: an honest worker's report. */
function honest(games: number, rng: Rng): IterationResult {
  const result = { plusWins: 0, minusWins: 0, draws: 0 };
  for (let g = 0; g < games; g += 2) {
    const x = rng.next();
    result[x < 0.35 ? "plusWins" : x < 0.7 ? "minusWins" : "draws"] += 2;
  }
  return result;
}

async function suspect(sql: postgres.Sql, runId: number) {
  await recordDecision(sql, {
    runId,
    workerName: "framed",
    decision: "suspect",
    reason: "framed by a liar",
    who: "master (pid 1 on test)",
  });
}

async function heldCount(sql: postgres.Sql): Promise<number> {
  const [row] = await sql<{ n: number }[]>`select count(*)::int as n from spsa_batch where held_at is not null`;
  return row!.n;
}

/**
 * A build-mode run as its master and workers write it: five completed iterations of 16 games
 * and a sixth in flight, framed a suspect from the third on (its batch of each held, its games
 * played again by h2; in the sixth still open). Returns the run, the sixth iteration and
 * how to play a batch of it.
 */
async function heldBuildRun(sql: postgres.Sql, name: string) {
  const config = loadConfig("config.toml");
  const { run } = await openRun(sql, { name, fresh: false, config: storedRunConfig(config), values: { X: 5, Y: 5 } });
  for (const w of ["h1", "h2", "framed"]) await registerTestWorker(sql, w);
  const rng = createRng(name);
  const gains = { a: 4, c: 1, A: 1, alpha: 0.602, gamma: 0.101, maxIterations: 10 };
  const open = (k: number) =>
    openPlayedIteration(sql, run, k, {
      config,
      gains,
      batches: 4,
      seed: `${name}:${k}`,
      stepScale: { X: 1, Y: 2 },
    });
  // The master's fold: a set-aside worker's reports are held and their games given out again.
  const fold = (iterationId: number) => foldIteration(sql, iterationId, { runId: run.id, reopen: true });
  const play = async (iterationId: number, workers: readonly string[]) => {
    for (const worker of workers) {
      const batch = await claimBatch(sql, worker, 4);
      expect(batch?.iterationId).toBe(iterationId);
      expect(await reportResult(sql, worker, batch!, honest(batch!.games, rng))).toBe("accepted");
      await fold(iterationId);
    }
  };
  const step = async (iterationId: number) => {
    const row = await readIteration(sql, iterationId);
    expect(row.gamesPlayed).toBe(row.targetGames);
    const settings = row.settings!;
    const masterStep = (theta: Values) => {
      const updated = update(
        recordedParams(settings, theta),
        { ak: row.ak, plus: row.plusParameters, minus: row.minusParameters, scale: settings.stepScale! },
        outcomeOf(row),
        settings.spsa,
      );
      return { ...updated, newValues: { ...theta, ...updated.newValues } };
    };
    expect(
      await sql.begin((tx) =>
        completeIteration(tx, { runId: run.id, iterationId, step: masterStep, finalIteration: false }),
      ),
    ).toBeDefined();
  };
  for (let k = 1; k <= 5; k++) {
    if (k === 3) await suspect(sql, run.id);
    const iteration = await open(k);
    // From iteration 3 on its batch is held and its games played again by h2.
    await play(iteration.id, k >= 3 ? ["h1", "framed", "h2", "h1", "h2"] : ["h1", "framed", "h2", "h1"]);
    await step(iteration.id);
  }
  // Iteration 6 in flight: framed's batch held, the copy of its games still open.
  const sixth = await open(6);
  await play(sixth.id, ["framed", "h2"]);
  return { run, sixth, play };
}

describe("spsa workers accept in build mode", () => {
  const database = useMigratedDatabase(3);

  it("gives the held batches back to their iterations and takes every completed step again, as an independent replay", async () => {
    const sql = database.sql;
    const { run, sixth, play } = await heldBuildRun(sql, "accept-build");
    expect(await heldCount(sql)).toBe(4);
    const held = await runTheta(sql, run.id);

    // A dry run computes the same acceptance and rolls every row back, the decision too.
    const untouched = await runRows(sql);
    const dry = await acceptWorker(sql, run, DECISION, () => false);
    expect(dry).toMatchObject({ applied: false, mode: "build", batches: 4, games: 16, countedGames: 4 });
    expect(dry).toMatchObject({ replayedSteps: 5, current: held, thetaBefore: held });
    expect(await runRows(sql)).toEqual(untouched);

    const accepted = await acceptWorker(sql, run, DECISION);
    expect(accepted).toMatchObject({ applied: true, batches: 4, games: 16, countedGames: 4 });
    expect(accepted.thetaAfter).toEqual(dry.thetaAfter);
    expect(await heldCount(sql)).toBe(0);

    // The independent replay: each completed iteration's step on the sums of all its reported batches.
    const rows = await sql<
      {
        id: number;
        a_k: number;
        plus_parameters: Values;
        minus_parameters: Values;
        settings: IterationSettings;
        theta_after: Values;
        status: string;
        games_played: number;
        plus_wins: number;
        target_games: number;
      }[]
    >`
      select id, a_k, plus_parameters, minus_parameters, settings, theta_after, status, games_played, plus_wins, target_games
      from spsa_iteration where run_id = ${run.id} order by iteration_number`;
    let theta: Values = { X: 5, Y: 5 };
    for (const row of rows) {
      const [counts] = await sql<(IterationResult & { games: number })[]>`
        select coalesce(sum(plus_wins), 0)::int as "plusWins", coalesce(sum(minus_wins), 0)::int as "minusWins",
          coalesce(sum(draws), 0)::int as draws, coalesce(sum(games), 0)::int as games
        from spsa_batch where iteration_id = ${row.id} and status = 'done'`;
      // The counters hold every reported batch: framed's given back, none twice.
      expect([row.games_played, row.plus_wins], `counters of iteration ${row.id}`).toEqual([
        counts!.games,
        counts!.plusWins,
      ]);
      if (row.status !== "complete") continue;
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
    expect(accepted.thetaAfter).toEqual(theta);
    expect(await runTheta(sql, run.id)).toEqual(theta);
    expect(theta).not.toEqual(held);
    // Completed iterations grew by the games given back; iteration 6 plays fewer: the open copy is gone.
    expect(rows.slice(2, 5).map((r) => [r.games_played, r.target_games])).toEqual(
      Array.from({ length: 3 }, () => [20, 20]),
    );
    const sixthNow = await readIteration(sql, sixth.id);
    expect([sixthNow.gamesPlayed, sixthNow.targetGames]).toEqual([8, 16]);
    const [openGames] = await sql<{ n: number }[]>`
      select coalesce(sum(games), 0)::int as n from spsa_batch where iteration_id = ${sixth.id} and status = 'open'`;
    expect(openGames!.n).toBe(8);
    // The run's counters by worker count framed's batches once each.
    const [byWorker] = await sql<{ batches: number; games: number }[]>`
      select batches, games from spsa_run_worker where run_id = ${run.id} and worker_name = 'framed'`;
    expect(byWorker).toEqual({ batches: 6, games: 24 });
    // Accepted, its next report counts: the iteration completes with it.
    await play(sixth.id, ["framed", "h1"]);
    expect(await heldCount(sql)).toBe(0);
    expect((await readIteration(sql, sixth.id)).gamesPlayed).toBe(16);
    // Nothing is held any more: a second acceptance gives nothing back and leaves θ.
    const again = await acceptWorker(sql, run, DECISION);
    expect(again).toMatchObject({ batches: 0, thetaAfter: theta });
  }, 60_000);
});

describe("spsa workers accept in UCI-option mode", () => {
  const database = useMigratedDatabase(3);

  it("after the run completed, puts the held batches into the chain where they were reported, as an independent replay", async () => {
    const sql = database.sql;
    const target = 96;
    const { run, iteration, optionRun } = await openPlayedOptionRun(sql, {
      name: "accept-options",
      seed: "accept-options",
      target,
    });
    const { parameters, gains } = optionRun;
    for (const w of ["h1", "framed"]) await registerTestWorker(sql, w);
    const rng = createRng("accept-options");
    // One batch each in turn until no game is left to claim, each report applied (or held) at once.
    const play = async (workers: readonly string[]) => {
      for (;;) {
        for (const worker of workers) {
          await topUpDraws(sql, { ...optionRun, seed: run.seed }, target, 8);
          const batch = await claimBatch(sql, worker, 8);
          if (!batch) return;
          expect(await reportResult(sql, worker, batch, honest(batch.games, rng))).toBe("accepted");
          await applyReports(sql, run.id);
        }
      }
    };
    // Three batches each, then framed is a suspect: its reports are held, and h1 plays their games.
    for (let i = 0; i < 3; i++) {
      await topUpDraws(sql, { ...optionRun, seed: run.seed }, target, 8);
      for (const worker of ["h1", "framed"]) {
        const batch = await claimBatch(sql, worker, 8);
        expect(await reportResult(sql, worker, batch!, honest(batch!.games, rng))).toBe("accepted");
        await applyReports(sql, run.id);
      }
    }
    await suspect(sql, run.id);
    await play(["h1", "framed", "h1"]);
    expect(await completeOptionRun(sql, optionRun)).toBe(true);
    const heldBatches = await heldCount(sql);
    expect(heldBatches).toBeGreaterThanOrEqual(3);
    const held = await runTheta(sql, run.id);

    type Row = {
      batch_id: number;
      draw_number: number;
      worker_name: string;
      games: number;
      k: number;
      a_k: number;
      drawn_from: number;
      plus_wins: number;
      minus_wins: number;
      draws: number;
      n: number | null;
    };
    // Every reported batch in the order reported, with its draw (a held one's result is its batch's).
    const reported = await sql<Row[]>`
      select b.id::int as batch_id, p.draw_number, b.worker_name, b.games, p.k, p.a_k, p.drawn_from,
        b.plus_wins, b.minus_wins, b.draws, p.applied_number as n
      from spsa_batch b join spsa_perturbation p on p.batch_id = b.id
      where p.run_id = ${run.id} and b.status = 'done' order by b.reported_at, b.id`;
    const list = { parameters, names: ["X", "Y"] };
    const chain = { list, gains, gamesPerIteration: 16 };
    // The values each batch played: drawn again from θ after its drawn_from batches of the chain as it stood.
    const applied = reported.filter((r) => r.n !== null).sort((x, y) => x.n! - y.n!);
    const draw = (b: Row, thetas: readonly Values[]) =>
      perturb(paramsAt(list, thetas[b.drawn_from]!), gains, b.k, createRng(`${run.seed}:batch:${b.draw_number}`));
    const values = new Map<number, { plus: Values; minus: Values }>();
    const stood = replayOptionChain(applied, { X: 5, Y: 5 }, chain, (b, thetas) => draw(b, thetas));
    expect(stood.at(-1)).toEqual(held);
    for (const b of reported) values.set(b.batch_id, draw(b, stood));

    const untouched = await runRows(sql);
    const dry = await acceptWorker(sql, run, DECISION, () => false);
    expect(dry).toMatchObject({ applied: false, mode: "options", batches: heldBatches, thetaBefore: held });
    expect(await runRows(sql)).toEqual(untouched);

    const accepted = await acceptWorker(sql, run, DECISION);
    expect(accepted).toMatchObject({ applied: true, mode: "options", batches: heldBatches });
    expect(accepted.thetaAfter).toEqual(dry.thetaAfter);

    // The independent replay: every reported batch in the order reported, with the values it played.
    const thetas = replayOptionChain(reported, { X: 5, Y: 5 }, chain, (b) => values.get(b.batch_id)!);
    const theta = thetas.at(-1)!;
    expect(accepted.thetaAfter).toEqual(theta);
    expect(await runTheta(sql, run.id)).toEqual(theta);
    expect(theta).not.toEqual(held);
    const now = await sql<{ batch_id: number; n: number; theta_after: number[] | null }[]>`
      select batch_id::int, applied_number as n, theta_after from spsa_perturbation
      where run_id = ${run.id} and applied_number is not null order by applied_number`;
    expect(now.map((r) => r.batch_id)).toEqual(reported.map((r) => r.batch_id));
    expect(now.map((r) => r.n)).toEqual(reported.map((_, i) => i + 1));
    expect(now.map((r) => r.theta_after)).toEqual(
      reported.map((_, i) => ((i + 1) % 2 === 0 ? [thetas[i + 1]!.X, thetas[i + 1]!.Y] : null)),
    );
    // The master's own replay of the rewritten chain gives the same θ (each row's Elo and result check).
    const after = await readAppliedChain(sql, run.id);
    expect(replayAppliedChain(after.run, after.start, after.batches)).toEqual(theta);
    // The complete carrier counts every game reported, framed's once each.
    const carrier = await readIteration(sql, iteration.id);
    const games = reported.reduce((n, b) => n + b.games, 0);
    expect([carrier.status, carrier.gamesPlayed, carrier.targetGames]).toEqual(["complete", games, games]);
    expect(await heldCount(sql)).toBe(0);
  }, 60_000);
});

describe("spsa workers accept on the command line", () => {
  const database = useMigratedDatabase(3);

  it("with held batches is a dry run without --yes, as spsa undo; with it, θ and the params file move", async () => {
    const sql = database.sql;
    const { run } = await heldBuildRun(sql, "accept-cli");
    const held = await runTheta(sql, run.id);
    const dir = mkdtempSync(join(tmpdir(), "spsa-accept-"));
    try {
      const params = join(dir, "params.toml");
      writeFileSync(params, playedParamsToml(held));
      const env = { env: { DATABASE_URL: database.url } };
      const args = ["workers", "accept", "framed", "--name", run.name, "--params", params];
      const rows = await runRows(sql);
      const dry = await spsa(args, env);
      expect(dry.exitCode, dry.all).toBe(2);
      expect(dry.stdout.split("\n").slice(0, 2)).toEqual([
        'run "accept-cli" (build mode): accepting worker framed would give its 4 held batches (16 games) back to θ',
        "  5 completed iterations' steps taken again with them; 4 games of iterations not stepped yet would be " +
          "counted (fewer played again)",
      ]);
      expect(dry.stdout.split("\n").at(-1)).toBe(
        `${params} holds the run's θ: it would be rewritten with θ after the acceptance`,
      );
      expect(dry.stderr).toBe(
        "error: --yes: nothing was changed (a dry run): run it again with --yes to accept the worker and give " +
          "the 4 held batches back",
      );
      expect(await runRows(sql)).toEqual(rows);
      expect(readFileSync(params, "utf8")).toBe(playedParamsToml(held));

      const done = await spsa([...args, "--yes"], env);
      expect(done.exitCode, done.all).toBe(0);
      expect(done.stdout.split("\n")[0]).toMatch(
        /^run "accept-cli": worker framed accepted by \S+ \(was suspect since \S+\): its 4 held batches \(16 games\) are given back to θ, and the master does not flag it again in this run$/,
      );
      const theta = await runTheta(sql, run.id);
      expect(theta).not.toEqual(held);
      expect(valuesOf(loadParams(params))).toEqual(theta);
      expect(await heldCount(sql)).toBe(0);
      const [decision] = await sql<{ decision: string; reason: string }[]>`
        select decision, reason from spsa_worker_decision where worker_name = 'framed' order by id desc limit 1`;
      expect(decision).toEqual({ decision: "accepted", reason: "accepted by an operator" });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
