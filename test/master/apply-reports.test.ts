import type postgres from "postgres";
import { describe, expect, it } from "vitest";
import { claimBatch, expireLeases, reportBatch, type BatchReport } from "../../src/db/batches.js";
import { insertOptionRun } from "../../src/db/option-run.js";
import { readAppliedChain } from "../../src/db/applied-chain.js";
import { replayAppliedChain } from "../../src/spsa/option-chain.js";
import { applyReports } from "../../src/master/apply-reports.js";
import { scheduleStep } from "../../src/spsa/option-batches.js";
import { topUpDraws } from "../../src/master/draw-pool.js";
import { CachedTheta, writeCachedTheta } from "../../src/master/cached-theta.js";
import { useMigratedDatabase } from "../support/database.js";
import {
  clean,
  crowdOfWorkers,
  killWhileWaitingOnBatch,
  registerTestWorker,
  seedIteration,
} from "../support/iterations.js";
import { expectConsistentRun } from "../support/options-run.js";

/** The carrier iteration's counters, and the same sums over its done batches: equal when each was counted once. */
async function countsAndSums(sql: postgres.Sql, iterationId: number) {
  const [row] = await sql`
    select i.games_played, i.plus_wins, i.minus_wins, i.draws, i.pairs_dd, s.games_played as done_games, s.plus_wins as done_plus_wins,
      s.minus_wins as done_minus_wins, s.draws as done_draws, s.pairs_dd as done_pairs_dd
    from spsa_iteration i, (select coalesce(sum(games), 0)::int as games_played, coalesce(sum(plus_wins), 0)::int as plus_wins,
      coalesce(sum(minus_wins), 0)::int as minus_wins, coalesce(sum(draws), 0)::int as draws, coalesce(sum((pairs->>2)::int), 0)::int as pairs_dd
      from spsa_batch where iteration_id = ${iterationId} and status = 'done') s
    where i.id = ${iterationId}`;
  return {
    counted: {
      games: row!.games_played,
      plusWins: row!.plus_wins,
      minusWins: row!.minus_wins,
      draws: row!.draws,
      pairsDd: row!.pairs_dd,
    },
    done: {
      games: row!.done_games,
      plusWins: row!.done_plus_wins,
      minusWins: row!.done_minus_wins,
      draws: row!.done_draws,
      pairsDd: row!.done_pairs_dd,
    },
  };
}

/** The pairs of `games` games without draws of which plus won all, none or half (each pair split). */
function pairsOf(wins: number, games: number): BatchReport["pairs"] {
  const pairs = games / 2;
  return wins === games ? [0, 0, 0, 0, pairs] : wins === 0 ? [pairs, 0, 0, 0, 0] : [0, 0, pairs, 0, 0];
}

/** A UCI-option run of one float parameter X over `target` games, as the master opens it; `draw` tops its pool of drawn batches of 4 games up, as the master's polls do. */
async function seedOptionRun(sql: postgres.Sql, runName: string, target: number, gamesPerIteration: number) {
  const { run, iteration } = await seedIteration(sql, {
    runName,
    targetGames: target,
    batchSize: 4,
    openBatches: false,
  });
  const parameters = {
    X: { min: 0, max: 10, step: 1, type: "float" as const, frozen: false, option: "X", optionScale: undefined },
  };
  const gains = { a: 2, c: 1, A: 2, alpha: 0.602, gamma: 0.101, maxIterations: target / gamesPerIteration };
  // θ stored after every other batch: the chain between is replayed from the rows.
  const optionRun = {
    runId: run.id,
    iterationId: iteration.id,
    enginePath: "/x",
    engineSha256: "x",
    parameters,
    names: ["X"],
    thetaEvery: 2,
    gains,
    gamesPerIteration,
    parametersSignature: null,
  };
  await insertOptionRun(sql, optionRun);
  const [{ seed } = { seed: "" }] = await sql<{ seed: string }[]>`select seed from spsa_run where id = ${run.id}`;
  const draw = (cached?: CachedTheta) => topUpDraws(sql, { ...optionRun, seed }, target, 4, cached);
  await draw();
  return { run, iteration, gains, seed, draw, optionRun };
}

describe("UCI-option mode: the master draws and moves θ, workers only play and report", () => {
  const database = useMigratedDatabase(4);

  it("keeps θ one replayable chain with 20 connections claiming, reporting and expiring while two masters draw and apply", async () => {
    const sql = database.sql;
    const target = 240;
    const gamesPerIteration = 16;
    const { run, iteration, gains, seed, draw } = await seedOptionRun(sql, "async", target, gamesPerIteration);
    const names = Array.from({ length: 20 }, (_, i) => `async-${i}`);
    for (const name of names) await registerTestWorker(sql, name);
    let applying = true;
    // Two masters (one restarted while the other still runs): they take turns on the run's lock.
    const master = async () => {
      while (applying) {
        await applyReports(sql, run.id);
        await draw();
        await new Promise((resolve) => setTimeout(resolve, 3));
      }
    };
    const masters = [master(), master()];
    let late = 0;
    const w = (name: string) => names.indexOf(name);
    try {
      await crowdOfWorkers(
        database.url,
        names,
        iteration.id,
        (db, name, round) => claimBatch(db, name, 2 + 2 * ((w(name) + round) % 3)),
        async (db, name, batch, round) => {
          expect(batch.optionDraw).toBeDefined();
          const kind = (w(name) + round) % 3;
          const wins = kind === 0 ? batch.games : kind === 1 ? 0 : batch.games / 2;
          const report: BatchReport = {
            batchId: batch.batchId,
            workerName: name,
            wins,
            losses: batch.games - wins,
            draws: 0,
            pairs: pairsOf(wins, batch.games),
            ...clean(),
          };
          if ((w(name) * 5 + round) % 9 === 0) {
            // A dead worker: its lease runs out, its draw is dropped and its late report refused.
            await db`update spsa_batch set lease_expires_at = now() - interval '1 second' where id = ${batch.batchId}`;
            await expireLeases(db);
            expect(await reportBatch(db, report)).toBe("refused");
            late++;
          } else {
            expect(await reportBatch(db, report)).toBe("accepted");
          }
        },
      );
    } finally {
      applying = false;
      await Promise.all(masters);
    }
    await applyReports(sql, run.id);
    expect(late).toBeGreaterThan(0);

    // Every draw as the formulas give it from its θ before, every reported one applied once, one chain to the run's θ.
    const final = await expectConsistentRun(sql, "async", seed);
    expect(final.X).not.toBe(1);
    const rows = await sql<{ applied: number | null; status: string; k: number; before: number; games: number }[]>`
      select p.applied_number as applied, b.status, p.k, b.games_before as before, p.games
      from spsa_perturbation p join spsa_batch b on b.id = p.batch_id where p.run_id = ${run.id} order by p.applied_number`;
    const done = rows.filter((r) => r.status === "done");
    expect(done.map((r) => r.applied)).toEqual(done.map((_, i) => i + 1));
    expect(done.reduce((n, r) => n + r.games, 0)).toBe(target);
    // Each draw's place in the schedule is its batch's place in the iteration, however many were drawn before.
    for (const r of rows) expect(r.k).toBe(scheduleStep(r.before, gamesPerIteration, gains.maxIterations));
    // The carrier's counters were added to as the batches moved θ, each once.
    const { counted, done: doneSums } = await countsAndSums(sql, iteration.id);
    expect(counted).toEqual(doneSums);
    expect(counted.games).toBe(target);
  }, 120_000);

  it("shares each draw of the run's first half among an iteration's batches, drawn together; one per batch after; θ replays", async () => {
    const sql = database.sql;
    const { run, seed, draw } = await seedOptionRun(sql, "shared-draws", 64, 16);
    await registerTestWorker(sql, "sd");
    for (let k = 0; ; k++) {
      await draw();
      const batch = await claimBatch(sql, "sd", 4);
      if (!batch) break;
      const wins = [batch.games, 0, batch.games / 2][k % 3]!;
      await reportBatch(sql, {
        batchId: batch.batchId,
        workerName: "sd",
        wins,
        losses: batch.games - wins,
        draws: 0,
        pairs: pairsOf(wins, batch.games),
        ...clean(),
      });
      await applyReports(sql, run.id);
    }
    const rows = await sql<{ games_before: number; batch_number: number; draw_number: number }[]>`
      select b.games_before, p.batch_number, p.draw_number from spsa_perturbation p join spsa_batch b on b.id = p.batch_id
      where p.run_id = ${run.id} order by b.games_before`;
    // Games 0–31 (the first half): two draws of 16 games, four batches each, numbered by their first batch.
    const firstHalf = rows.filter((r) => r.games_before < 32);
    expect(firstHalf).toHaveLength(8);
    expect(new Set(firstHalf.map((r) => r.draw_number)).size).toBe(2);
    for (const r of firstHalf) expect(r.draw_number).toBe(firstHalf[r.games_before < 16 ? 0 : 4]!.batch_number);
    // Games 32–63: every batch its own draw.
    const secondHalf = rows.filter((r) => r.games_before >= 32);
    expect(secondHalf.map((r) => r.draw_number)).toEqual(secondHalf.map((r) => r.batch_number));
    await expectConsistentRun(sql, "shared-draws", seed);
  });

  it("applies and counts each batch once: not when the master is killed midway through its fold, not again when it folds twice", async () => {
    const sql = database.sql;
    const { run, iteration, seed, draw } = await seedOptionRun(sql, "killed-fold", 64, 16);
    await registerTestWorker(sql, "kf");
    for (let k = 0; k < 6; k++) {
      await draw();
      const batch = await claimBatch(sql, "kf", 4);
      const wins = [batch!.games, 0, batch!.games / 2][k % 3]!;
      const report: BatchReport = {
        batchId: batch!.batchId,
        workerName: "kf",
        wins,
        losses: batch!.games - wins,
        draws: 0,
        pairs: pairsOf(wins, batch!.games),
        ...clean(),
      };
      expect(await reportBatch(sql, report)).toBe("accepted");
    }
    const [last] = await sql<
      { id: number }[]
    >`select max(id)::int as id from spsa_batch where iteration_id = ${iteration.id} and status = 'done'`;
    // Killed once it has moved θ by every report in its transaction, waiting to mark the last batch folded.
    await killWhileWaitingOnBatch(database.url, last!.id, {
      module: "master/apply-reports.js",
      fn: "applyReports",
      args: [run.id],
    });
    const [before] = await sql`select current_parameters as theta from spsa_run where id = ${run.id}`;
    expect(before?.theta).toEqual({ X: 1 });
    expect(
      (await sql`select count(applied_number)::int as n from spsa_perturbation where run_id = ${run.id}`)[0]?.n,
    ).toBe(0);
    expect((await countsAndSums(sql, iteration.id)).counted.games).toBe(0);
    expect(await applyReports(sql, run.id)).toBe(6);
    expect(await applyReports(sql, run.id)).toBe(0);
    await expectConsistentRun(sql, "killed-fold", seed);
    // The all-wins batches moved θ (their moves may cancel out over the run).
    const chain = await readAppliedChain(sql, run.id);
    let moved = 0;
    let previous = chain.start.theta.X;
    replayAppliedChain(chain.run, chain.start, chain.batches, (_, theta) => {
      if (theta.X !== previous) moved++;
      previous = theta.X;
    });
    expect(moved).toBeGreaterThan(0);
    const { counted, done: doneSums } = await countsAndSums(sql, iteration.id);
    expect(counted).toEqual(doneSums);
    expect(counted.games).toBeGreaterThan(0);
  }, 60_000);

  it("a master holding θ writes it only with a stored θ (every other batch here); a restarted master, or another one, replays the rest from the rows", async () => {
    const sql = database.sql;
    const { run, iteration, seed, draw, optionRun } = await seedOptionRun(sql, "held", 64, 16);
    const fullRun = { ...optionRun, thetaEvery: 2 };
    await registerTestWorker(sql, "hd");
    // The runs of the tests before keep open iterations in this database: claims pass them over.
    const others = (
      await sql<{ id: number }[]>`select id from spsa_iteration where id <> ${iteration.id} and status <> 'complete'`
    ).map((r) => r.id);
    const playOne = async (k: number) => {
      const batch = await claimBatch(sql, "hd", 4, { skip: others });
      const wins = [batch!.games, 0, batch!.games / 2, batch!.games][k % 4]!;
      expect(
        await reportBatch(sql, {
          batchId: batch!.batchId,
          workerName: "hd",
          wins,
          losses: batch!.games - wins,
          draws: 0,
          pairs: pairsOf(wins, batch!.games),
          ...clean(),
        }),
      ).toBe("accepted");
    };
    const written = async () =>
      (
        await sql<{ applied: number; theta: Record<string, number> }[]>`
      select o.theta_applied as applied, r.current_parameters as theta from spsa_option_run o join spsa_run r on r.id = o.run_id where o.run_id = ${run.id}`
      )[0]!;
    // A master's polls: each applies the batch reported since and draws from the θ it caches.
    const polls = async (cached: CachedTheta, ks: number[]) => {
      for (const k of ks) {
        await playOne(k);
        expect(await applyReports(sql, fullRun, cached)).toBe(1);
        await draw(cached);
      }
    };
    const first = new CachedTheta();
    await polls(first, [0, 1, 2]);
    // Three applied, θ written after the second (a stored θ), cached after the third.
    expect(first.applied).toBe(3);
    expect((await written()).applied).toBe(2);
    // Killed: a new master (nothing cached) replays the third batch from θ after the second, and goes on.
    const second = new CachedTheta();
    await polls(second, [3, 4, 5]);
    expect(second.applied).toBe(6);
    await writeCachedTheta(sql, fullRun, second);
    expect(await written()).toEqual({ applied: 6, theta: second.theta });
    // Both masters' θ is the chain of the rows, drawn again and replayed independently.
    expect(await expectConsistentRun(sql, "held", seed)).toEqual(second.theta);
  }, 60_000);
});
