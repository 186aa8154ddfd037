import { randomBytes } from "node:crypto";
import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRng } from "../../src/core/rng.js";
import { readAppliedChain } from "../../src/db/applied-chain.js";
import { claimBatch } from "../../src/db/batches.js";
import { foldBatches, foldIteration } from "../../src/db/fold.js";
import { insertOptionRun } from "../../src/db/option-run.js";
import { latestDecisions, recordDecision } from "../../src/db/worker-decisions.js";
import { fromSetAsideWorker, setAsideWorkers } from "../../src/db/set-aside-workers.js";
import { claimWorkerName } from "../../src/db/workers.js";
import { acceptWorker } from "../../src/master/accept-worker.js";
import { applyReports } from "../../src/master/apply-reports.js";
import { topUpDraws } from "../../src/master/draw-pool.js";
import { BuildReview, OptionReview } from "../../src/master/worker-review.js";
import { replayAppliedChain } from "../../src/spsa/option-chain.js";
import { connect } from "../../src/postgres/connection.js";
import { DatabaseHandle } from "../../src/postgres/database-handle.js";
import { issueWorkerLogin, revokeWorkerLogin } from "../../src/postgres/worker-role.js";
import type { IterationResult } from "../../src/types/spsa.js";
import { useMigratedDatabase } from "../support/database.js";
import { registerTestWorker, reportResult, seedIteration } from "../support/iterations.js";

/** Permission denied (SQLSTATE 42501). */
const DENIED = { code: "42501" };

/** Reports `result(games)` for the batch's games. */
async function report(
  sql: postgres.Sql,
  worker: string,
  batch: { batchId: number; games: number },
  outcome: (games: number) => IterationResult,
) {
  return reportResult(sql, worker, batch, outcome(batch.games));
}

/** Claims take the oldest open iteration of any active run: a test's run stops when it is done. */
const stop = (sql: postgres.Sql, runId: number) => sql`update spsa_run set status = 'stopped' where id = ${runId}`;

const sweep = (games: number): IterationResult => ({ plusWins: games, minusWins: 0, draws: 0 });
const lost = (games: number): IterationResult => ({ plusWins: 0, minusWins: games, draws: 0 });
/** Half the pairs drawn, the others split one win each. */
const even = (games: number): IterationResult => {
  const pairs = games / 2;
  const split = Math.floor(pairs / 2);
  return { plusWins: split, minusWins: split, draws: games - 2 * split };
};

/**
 * Honest games for the master's review, from a seeded generator: each game won, lost or drawn
 * independently (30 %, 30 %, 40 %), so each batch's result varies as honest games do. (The same
 * `even` result on every batch has a spread far below its games': the review's spread test
 * reads that as a worker that frames the others.)
 */
const honestGames = (seed: string) => {
  const rng = createRng(seed);
  return (games: number): IterationResult => {
    const result = { plusWins: 0, minusWins: 0, draws: 0 };
    for (let game = 0; game < games; game++) {
      const u = rng.next();
      if (u < 0.3) result.plusWins++;
      else if (u < 0.6) result.minusWins++;
      else result.draws++;
    }
    return result;
  };
};

describe("suspects set aside (docs/bad-workers.md)", () => {
  const database = useMigratedDatabase(4);
  const machine = `b${randomBytes(4).toString("hex")}`;
  let guest: postgres.Sql;

  beforeAll(async () => {
    const login = await issueWorkerLogin(database.sql, machine);
    const url = new URL(database.url);
    url.username = login.role;
    url.password = login.password;
    guest = connect(url.toString(), 2);
  });
  afterAll(async () => {
    await guest?.end();
    await revokeWorkerLogin(database.sql, machine);
  });

  it("build mode: the fold holds a suspect's reports and gives their games out again; an accepted worker's count again", async () => {
    const sql = database.sql;
    const { run, iteration } = await seedIteration(sql, { runName: "held-build", targetGames: 16, batchSize: 4 });
    for (const w of ["honest", "suspect"]) await registerTestWorker(sql, w);
    await recordDecision(sql, {
      runId: run.id,
      workerName: "suspect",
      decision: "suspect",
      reason: "test",
      who: "master (test)",
    });
    const mine = await claimBatch(sql, "suspect", 4);
    expect(await report(sql, "suspect", mine!, sweep)).toBe("accepted");
    const theirs = await claimBatch(sql, "honest", 4);
    expect(await report(sql, "honest", theirs!, even)).toBe("accepted");
    await foldIteration(sql, iteration.id, { runId: run.id, reopen: true });
    const [held] =
      await sql`select status, folded, held_at is not null as held from spsa_batch where id = ${mine!.batchId}`;
    expect(held).toEqual({ status: "done", folded: true, held: true });
    const [counted] = await sql`select games_played, plus_wins from spsa_iteration where id = ${iteration.id}`;
    expect(counted).toEqual({ games_played: 4, plus_wins: 1 });
    // Its games are open again: the whole iteration's 16 games are still to be had.
    const [open] = await sql<
      { n: number }[]
    >`select coalesce(sum(games), 0)::int as n from spsa_batch where iteration_id = ${iteration.id} and status = 'open'`;
    expect(open!.n).toBe(12);
    // A fold again holds nothing twice.
    await foldIteration(sql, iteration.id, { runId: run.id, reopen: true });
    expect((await sql`select games_played from spsa_iteration where id = ${iteration.id}`)[0]!.games_played).toBe(4);

    await recordDecision(sql, {
      runId: run.id,
      workerName: "suspect",
      decision: "accepted",
      reason: "looked fine",
      who: "alice@box",
    });
    const next = await claimBatch(sql, "suspect", 4);
    await report(sql, "suspect", next!, even);
    await foldIteration(sql, iteration.id, { runId: run.id, reopen: true });
    expect((await sql`select games_played from spsa_iteration where id = ${iteration.id}`)[0]!.games_played).toBe(8);
    const [state] = await latestDecisions(sql, run.id);
    expect(state).toMatchObject({ workerName: "suspect", decision: "accepted", reason: "looked fine" });
    expect(state!.decidedBy).toMatch(/^alice@box \(database role .+\)$/);
    await stop(sql, run.id);
  });

  it("a fold skips a suspect's report that its hold did not see (one that landed between the two statements)", async () => {
    const sql = database.sql;
    const { run, iteration } = await seedIteration(sql, { runName: "held-late", targetGames: 8, batchSize: 4 });
    await registerTestWorker(sql, "late");
    const batch = await claimBatch(sql, "late", 4);
    expect(await report(sql, "late", batch!, sweep)).toBe("accepted");
    await recordDecision(sql, {
      runId: run.id,
      workerName: "late",
      decision: "suspect",
      reason: "test",
      who: "master (test)",
    });
    // The fold's own statement, as if the report had landed after the hold read the batches.
    await sql.begin((tx) => foldBatches(tx, iteration.id, "undrawn", fromSetAsideWorker(tx, run.id)));
    const [left] = await sql`select folded, held_at is not null as held from spsa_batch where id = ${batch!.batchId}`;
    expect(left).toEqual({ folded: false, held: false });
    expect((await sql`select games_played from spsa_iteration where id = ${iteration.id}`)[0]!.games_played).toBe(0);
    // The next fold holds it.
    await foldIteration(sql, iteration.id, { runId: run.id, reopen: true });
    const [held] = await sql`select folded, held_at is not null as held from spsa_batch where id = ${batch!.batchId}`;
    expect(held).toEqual({ folded: true, held: true });
    expect((await sql`select games_played from spsa_iteration where id = ${iteration.id}`)[0]!.games_played).toBe(0);
    await stop(sql, run.id);
  });

  it("holds every name of a suspect's worker machine, not the other machines' (a new name does not start it over)", async () => {
    const sql = database.sql;
    const { run, iteration } = await seedIteration(sql, { runName: "held-machine", targetGames: 16, batchSize: 4 });
    for (const name of [`${machine}-a`, `${machine}-b`]) {
      const claim = await claimWorkerName(
        guest,
        { name, sessionId: name, host: "m", pid: 1, concurrency: 1 },
        () => false,
      );
      expect(claim.taken).toBe(false);
    }
    await registerTestWorker(sql, "owner-w");
    await recordDecision(sql, {
      runId: run.id,
      workerName: `${machine}-a`,
      decision: "suspect",
      reason: "test",
      who: "master (test)",
    });
    expect(await setAsideWorkers(sql, run.id)).toEqual([
      { name: `${machine}-a`, because: `${machine}-a` },
      { name: `${machine}-b`, because: `${machine}-a` },
    ]);
    for (const name of [`${machine}-b`, "owner-w"]) {
      const batch = await claimBatch(name === "owner-w" ? sql : guest, name, 4);
      expect(await report(name === "owner-w" ? sql : guest, name, batch!, even)).toBe("accepted");
    }
    await foldIteration(sql, iteration.id, { runId: run.id, reopen: true });
    const rows = await sql<{ worker_name: string; held: boolean }[]>`
      select worker_name, held_at is not null as held from spsa_batch where iteration_id = ${iteration.id} and status = 'done' order by worker_name`;
    expect(rows).toEqual([
      { worker_name: `${machine}-b`, held: true },
      { worker_name: "owner-w", held: false },
    ]);
    await stop(sql, run.id);
  });

  it("the worker role can neither read nor write a decision, the evidence or an undo, nor clear a hold", async () => {
    await expect(guest`select * from spsa_worker_decision`).rejects.toMatchObject(DENIED);
    await expect(guest`select * from spsa_worker_review`).rejects.toMatchObject(DENIED);
    await expect(guest`select * from spsa_undo`).rejects.toMatchObject(DENIED);
    await expect(
      guest`insert into spsa_worker_decision (run_id, worker_name, decision, reason, decided_by) values (1, ${`${machine}-a`}, 'accepted', 'me', 'me')`,
    ).rejects.toMatchObject(DENIED);
    await expect(
      guest`update spsa_batch set held_at = null where worker_name = ${`${machine}-b`}`,
    ).rejects.toMatchObject(DENIED);
    await expect(guest`delete from spsa_worker_decision`).rejects.toMatchObject(DENIED);
  });

  it("UCI-option mode: a suspect's reports are never applied, and the pool draws their games again", async () => {
    const sql = database.sql;
    const { run, iteration } = await seedIteration(sql, {
      runName: "held-options",
      targetGames: 32,
      batchSize: 4,
      openBatches: false,
    });
    const parameters = {
      X: { min: 0, max: 10, step: 1, type: "float" as const, frozen: false, option: "X", optionScale: undefined },
    };
    const optionRun = {
      runId: run.id,
      iterationId: iteration.id,
      enginePath: "/x",
      engineSha256: "x",
      parameters,
      names: ["X"],
      thetaEvery: 1,
      gains: { a: 2, c: 1, A: 2, alpha: 0.602, gamma: 0.101, maxIterations: 2 },
      gamesPerIteration: 16,
      parametersSignature: null,
    };
    await insertOptionRun(sql, optionRun);
    for (const w of ["honest-o", "suspect-o"]) await registerTestWorker(sql, w);
    await recordDecision(sql, {
      runId: run.id,
      workerName: "suspect-o",
      decision: "rejected",
      reason: "test",
      who: "alice@box",
    });
    await topUpDraws(sql, { ...optionRun, seed: "s" }, 32, 4);
    const mine = await claimBatch(sql, "suspect-o", 4);
    await report(sql, "suspect-o", mine!, sweep);
    expect(await applyReports(sql, run.id)).toBe(0);
    const [held] =
      await sql`select b.held_at is not null as held, b.folded, p.applied_number from spsa_batch b join spsa_perturbation p on p.batch_id = b.id where b.id = ${mine!.batchId}`;
    expect(held).toEqual({ held: true, folded: true, applied_number: null });
    const [theta] = await sql`select current_parameters from spsa_run where id = ${run.id}`;
    expect(theta!.current_parameters).toEqual({ X: 1 });
    // Its games count as given out no more: the pool draws them again, until all 32 are drawn once besides it.
    for (;;) {
      await topUpDraws(sql, { ...optionRun, seed: "s" }, 32, 4);
      const batch = await claimBatch(sql, "honest-o", 4);
      if (!batch) break;
      await report(sql, "honest-o", batch, even);
    }
    const [drawn] = await sql<
      { n: number }[]
    >`select coalesce(sum(games), 0)::int as n from spsa_batch where iteration_id = ${iteration.id} and held_at is null`;
    expect(drawn!.n).toBe(32);
    await stop(sql, run.id);
  });

  it("the master's review flags a liar by name before the step its batches would move, and sets them aside", async () => {
    const sql = database.sql;
    const { run, iteration } = await seedIteration(sql, { runName: "review-build", targetGames: 16, batchSize: 4 });
    for (const w of ["r1", "r2", "r3", "rliar"]) await registerTestWorker(sql, w);
    const lines: string[] = [];
    const review = await BuildReview.start({
      db: new DatabaseHandle(sql, (line) => lines.push(line)),
      runId: run.id,
      names: ["X"],
      log: (line) => lines.push(line),
    });
    // One iteration's batches, many times over: each round is the iteration's stratum again (its signs: X +1), 16 games of four workers.
    const honest = Object.fromEntries(["r1", "r2", "r3"].map((w) => [w, honestGames(w)]));
    let verdict = true;
    for (let round = 0; round < 12 && verdict; round++) {
      for (const w of ["r1", "r2", "r3", "rliar"]) {
        const batch = await claimBatch(sql, w, 4);
        await report(sql, w, batch!, honest[w] ?? sweep);
      }
      await foldIteration(sql, iteration.id, { runId: run.id, reopen: true });
      verdict = await review.beforeStep(1);
      if (verdict) {
        // Not stepped here: the next round's batches join the same iteration.
        await sql`update spsa_iteration set target_games = target_games + 16 where id = ${iteration.id}`;
        await sql`insert into spsa_batch (iteration_id, games, games_before, status) select ${iteration.id}, 4, 16 * ${round + 1} + 4 * n, 'open' from generate_series(0, 3) n`;
      }
    }
    expect(verdict).toBe(false);
    const decisions = await latestDecisions(sql, run.id);
    expect(decisions.map((d) => [d.workerName, d.decision])).toEqual([["rliar", "suspect"]]);
    expect(decisions[0]!.decidedBy).toMatch(/^master \(pid \d+ on .+\) \(database role .+\)$/);
    expect(lines.some((l) => l.startsWith("suspect worker rliar: "))).toBe(true);
    // Its batches in the open iteration are held, their games open again.
    const [left] = await sql<
      { counted: number }[]
    >`select count(*)::int as counted from spsa_batch where iteration_id = ${iteration.id} and worker_name = 'rliar' and held_at is null`;
    expect(left!.counted).toBe(0);
    const [review2] = await sql<
      { n: number }[]
    >`select jsonb_array_length(evidence) as n from spsa_worker_review where run_id = ${run.id}`;
    expect(review2!.n).toBe(4);
    await stop(sql, run.id);
  });

  /** A UCI-option run of two options, X and Y, at 5 (the draws' seed is the run's). */
  async function optionTestRun(sql: postgres.Sql, runName: string) {
    const { run, iteration } = await seedIteration(sql, {
      runName,
      targetGames: 640,
      batchSize: 4,
      openBatches: false,
    });
    const parameters = {
      X: { min: 0, max: 10, step: 1, type: "float" as const, frozen: false, option: "X", optionScale: undefined },
      Y: { min: 0, max: 10, step: 1, type: "float" as const, frozen: false, option: "Y", optionScale: undefined },
    };
    const optionRun = {
      runId: run.id,
      iterationId: iteration.id,
      enginePath: "/x",
      engineSha256: "x",
      parameters,
      names: ["X", "Y"],
      thetaEvery: 1,
      gains: { a: 0.5, c: 1, A: 2, alpha: 0.602, gamma: 0.101, maxIterations: 40 },
      gamesPerIteration: 16,
      parametersSignature: null,
    };
    await insertOptionRun(sql, optionRun);
    // The run's seed is the draws' (the chain is replayed from it when the suspect's batches are taken out).
    await sql`update spsa_run set current_parameters = '{"X": 5, "Y": 5}', initial_parameters = '{"X": 5, "Y": 5}', seed = 's' where id = ${run.id}`;
    return { run, iteration, optionRun };
  }

  it("a master that starts on a suspect whose batches θ still holds takes them out (one stopped between the two)", async () => {
    const sql = database.sql;
    const { run, optionRun } = await optionTestRun(sql, "review-restart");
    for (const w of ["s1", "sliar"]) await registerTestWorker(sql, w);
    const honest = honestGames("s1");
    for (let round = 0; round < 4; round++)
      for (const w of ["s1", "sliar"]) {
        await topUpDraws(sql, { ...optionRun, seed: "s" }, 640, 4);
        const batch = await claimBatch(sql, w, 4);
        await report(sql, w, batch!, w === "s1" ? honest : sweep);
      }
    await applyReports(sql, run.id);
    // Recorded a suspect, but stopped before its batches were taken out of θ.
    await recordDecision(sql, {
      runId: run.id,
      workerName: "sliar",
      decision: "suspect",
      reason: "a test",
      who: "a test",
    });
    const lines: string[] = [];
    const start = () =>
      OptionReview.start(
        {
          db: new DatabaseHandle(sql, (line) => lines.push(line)),
          runId: run.id,
          names: ["X", "Y"],
          log: (line) => lines.push(line),
        },
        optionRun,
      );
    await start();
    expect(lines).toContainEqual(expect.stringMatching(/^4 batches \(16 games\) that θ held of sliar taken out of it/));
    const chain = await readAppliedChain(sql, run.id);
    expect(chain.batches.map((b) => b.workerName)).toEqual(["s1", "s1", "s1", "s1"]);
    const [theta] = await sql<
      { theta: Record<string, number> }[]
    >`select current_parameters as theta from spsa_run where id = ${run.id}`;
    expect(replayAppliedChain(chain.run, chain.start, chain.batches)).toEqual(theta!.theta);
    // A second start finds nothing left to take out.
    lines.length = 0;
    await start();
    expect(lines).toEqual([]);
    await stop(sql, run.id);
  });

  it("the UCI-option master's review flags a liar from the reports it applied, and its next report is held", async () => {
    const sql = database.sql;
    const { run, optionRun } = await optionTestRun(sql, "review-options");
    for (const w of ["o1", "o2", "o3", "oliar"]) await registerTestWorker(sql, w);
    const lines: string[] = [];
    const review = await OptionReview.start(
      {
        db: new DatabaseHandle(sql, (line) => lines.push(line)),
        runId: run.id,
        names: ["X", "Y"],
        log: (line) => lines.push(line),
      },
      optionRun,
    );
    const honest = Object.fromEntries(["o1", "o2", "o3"].map((w) => [w, honestGames(w)]));
    let flaggedAfter = 0;
    for (let round = 0; round < 40 && flaggedAfter === 0; round++) {
      for (const w of ["o1", "o2", "o3", "oliar"]) {
        await topUpDraws(sql, { ...optionRun, seed: "s" }, 640, 4);
        const batch = await claimBatch(sql, w, 4);
        const draw = batch!.optionDraw!;
        await report(sql, w, batch!, honest[w] ?? (draw.plus.Y! > draw.minus.Y! ? sweep : lost));
      }
      await applyReports(sql, run.id);
      await review.afterApply();
      if ((await latestDecisions(sql, run.id)).length > 0) flaggedAfter = round + 1;
    }
    expect(flaggedAfter).toBeGreaterThan(0);
    const [decision] = await latestDecisions(sql, run.id);
    expect(decision).toMatchObject({ workerName: "oliar", decision: "suspect" });
    expect(lines.find((l) => l.startsWith("suspect worker oliar: "))).toBeDefined();
    // The batches of it that θ held were taken out of the chain when it was flagged, and held.
    expect(lines.find((l) => /^\d+ batches \(\d+ games\) that θ held of oliar taken out of it/.test(l))).toBeDefined();
    const [inChain] = await sql<{ n: number }[]>`
      select count(*)::int as n from spsa_perturbation p join spsa_batch b on b.id = p.batch_id
      where p.run_id = ${run.id} and b.worker_name = 'oliar' and p.applied_number is not null`;
    expect(inChain!.n).toBe(0);
    const chain = await readAppliedChain(sql, run.id);
    expect(chain.batches.length).toBeGreaterThan(0);
    const [theta] = await sql<
      { theta: Record<string, number> }[]
    >`select current_parameters as theta from spsa_run where id = ${run.id}`;
    // θ is the chain of the others' batches replayed from θ₀.
    expect(replayAppliedChain(chain.run, chain.start, chain.batches)).toEqual(theta!.theta);
    await topUpDraws(sql, { ...optionRun, seed: "s" }, 640, 4);
    const next = await claimBatch(sql, "oliar", 4);
    await report(sql, "oliar", next!, sweep);
    await applyReports(sql, run.id);
    const [held] = await sql`select held_at is not null as held from spsa_batch where id = ${next!.batchId}`;
    expect(held!.held).toBe(true);
    // Accepted, every batch of it goes back into the chain, those the master took out of θ too.
    const accepted = await acceptWorker(sql, run, { worker: "oliar", reason: "a test", who: "a test" });
    expect(accepted.batches).toBe(flaggedAfter + 1);
    const [back] = await sql<{ n: number }[]>`
      select count(*)::int as n from spsa_perturbation p join spsa_batch b on b.id = p.batch_id
      where p.run_id = ${run.id} and b.worker_name = 'oliar' and p.applied_number is not null`;
    expect(back!.n).toBe(flaggedAfter + 1);
    const again = await readAppliedChain(sql, run.id);
    const [after] = await sql<
      { theta: Record<string, number> }[]
    >`select current_parameters as theta from spsa_run where id = ${run.id}`;
    expect(replayAppliedChain(again.run, again.start, again.batches)).toEqual(after!.theta);
    await stop(sql, run.id);
  });
});
