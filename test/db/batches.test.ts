import { beforeAll, describe, expect, it } from "vitest";
import {
  claimBatch,
  expireLeases,
  heartbeat,
  refuseBatch,
  reportBatch,
  returnToPool,
  type BatchReport,
} from "../../src/db/batches.js";
import { foldIteration } from "../../src/db/fold.js";
import { claimWorkerName } from "../../src/db/workers.js";
import { planBatchSizes } from "../../src/spsa/batch-plan.js";
import { useMigratedDatabase } from "../support/database.js";
import {
  clean,
  crowdOfWorkers,
  killWhileWaitingOnBatch,
  registerTestWorker,
  seedIteration,
} from "../support/iterations.js";

/** A report of `games` games: all draws, one DD pair per two games. */
function drawsReport(batchId: number, workerName: string, games: number): BatchReport {
  return { batchId, workerName, wins: 0, losses: 0, draws: games, pairs: [0, 0, games / 2, 0, 0], ...clean() };
}

describe("claiming and reporting batches", () => {
  const database = useMigratedDatabase(40);
  let sql: typeof database.sql;

  beforeAll(async () => {
    sql = database.sql;
    await registerTestWorker(sql, "w1");
    await registerTestWorker(sql, "w2");
  });

  /** The iteration's counters as its master sees them: folded from the batches first. */
  async function counters(iterationId: number) {
    await foldIteration(sql, iterationId);
    const [row] =
      await sql`select games_claimed, games_played, plus_wins, minus_wins, draws, pairs_dd, binaries_refused, status
                            from spsa_iteration where id = ${iterationId}`;
    return row;
  }

  it("makes the iteration's games into open batches and never grants beyond them", async () => {
    const { iteration } = await seedIteration(sql, { runName: "claims", targetGames: 10, batchSize: 4 });
    const planned =
      await sql`select games, games_before from spsa_batch where iteration_id = ${iteration.id} order by id`;
    expect(planned).toEqual([
      { games: 4, games_before: 0 },
      { games: 4, games_before: 4 },
      { games: 2, games_before: 8 },
    ]);
    expect(await counters(iteration.id)).toMatchObject({ games_claimed: 0, status: "pending" });
    // A claim of 3 gets a pair (games are played in pairs: the claim rounds down, to one pair at least) and splits the batch.
    const grants = [];
    for (let i = 0; i < 5; i++) grants.push((await claimBatch(sql, "w1", 3))?.games);
    expect(grants).toEqual([2, 2, 2, 2, 2]);
    expect(await claimBatch(sql, "w1", 1)).toBeUndefined();
    const rows =
      await sql`select games, games_before from spsa_batch where iteration_id = ${iteration.id} order by games_before`;
    expect(rows.map((r) => [r.games_before, r.games])).toEqual([
      [0, 2],
      [2, 2],
      [4, 2],
      [6, 2],
      [8, 2],
    ]);
    expect(await counters(iteration.id)).toMatchObject({ games_claimed: 10, games_played: 0, status: "in_progress" });
    await sql`update spsa_iteration set status = 'complete' where id = ${iteration.id}`;
  });

  it("places each claimed batch in its run: the iteration's offset plus the games before it, with the run's seed", async () => {
    // Iteration 3 of a run of 64 games per iteration (config.toml) starts at game 128.
    const { iteration } = await seedIteration(sql, {
      runName: "offsets",
      targetGames: 64,
      batchSize: 16,
      iterationNumber: 3,
    });
    const [run] = await sql<{ seed: string }[]>`select seed from spsa_run where name = 'offsets'`;
    const claimed: [number, number][] = [];
    for (let batch = await claimBatch(sql, "w1", 6); batch; batch = await claimBatch(sql, "w2", 6)) {
      claimed.push([batch.firstGame, batch.games]);
      expect(batch.runSeed).toBe(run?.seed);
    }
    // However the claims split the batches, each starts where another ended: the claims tile games 128–191, none twice.
    claimed.sort((x, y) => x[0] - y[0]);
    expect(claimed.length).toBeGreaterThan(4);
    expect(claimed[0]![0]).toBe(128);
    claimed.slice(1).forEach(([first], i) => expect(first).toBe(claimed[i]![0] + claimed[i]![1]));
    expect(claimed.at(-1)![0] + claimed.at(-1)![1]).toBe(192);
    await sql`update spsa_iteration set status = 'complete' where id = ${iteration.id}`;
  });

  it("counts a report once: a replay is a duplicate and changes nothing", async () => {
    // An iteration of one pair is one batch, whatever the workers' game slots (planBatchSizes).
    const { iteration } = await seedIteration(sql, { runName: "replay", targetGames: 2 });
    const batch = await claimBatch(sql, "w1", 4);
    expect(batch?.iterationId).toBe(iteration.id);
    const report = {
      ...drawsReport(batch!.batchId, "w1", 2),
      wins: 1,
      draws: 1,
      pairs: [0, 0, 0, 1, 0] as BatchReport["pairs"],
    };
    expect(await reportBatch(sql, report)).toBe("accepted");
    expect(await reportBatch(sql, report)).toBe("duplicate");
    expect(await counters(iteration.id)).toMatchObject({ games_played: 2, plus_wins: 1, draws: 1, pairs_dd: 0 });
    const [worker] = await sql`select games_played::int as games_played from spsa_worker where name = 'w1'`;
    expect(worker?.games_played).toBe(2);
  });

  it("refuses a report from another worker or with the wrong number of games", async () => {
    const { iteration } = await seedIteration(sql, { runName: "wrong", targetGames: 2 });
    const batch = await claimBatch(sql, "w1", 4);
    expect(await reportBatch(sql, drawsReport(batch!.batchId, "w2", 2))).toBe("refused");
    await expect(reportBatch(sql, drawsReport(batch!.batchId, "w1", 4))).rejects.toThrow(
      /has 2 games, the report has 4/,
    );
    expect(await counters(iteration.id)).toMatchObject({ games_played: 0 });
    expect(await reportBatch(sql, drawsReport(batch!.batchId, "w1", 2))).toBe("accepted");
  });

  it("returns an expired lease to the pool and refuses the late report", async () => {
    const { iteration } = await seedIteration(sql, { runName: "lease", targetGames: 2 });
    const dead = await claimBatch(sql, "w1", 2);
    expect(await claimBatch(sql, "w2", 2)).toBeUndefined();
    expect(await counters(iteration.id)).toMatchObject({ games_claimed: 2 });
    // The worker died: age its lease by hand instead of waiting for it.
    await sql`update spsa_batch set lease_expires_at = now() - interval '1 second' where id = ${dead!.batchId}`;
    expect(await heartbeat(sql, { name: "w1", sessionId: "w1" }, [])).toEqual({ held: [], ownsName: true });
    expect(await expireLeases(sql)).toBe(1);
    expect(await counters(iteration.id)).toMatchObject({ games_claimed: 0 });
    const again = await claimBatch(sql, "w2", 2);
    expect(again?.games).toBe(2);
    expect(await reportBatch(sql, drawsReport(dead!.batchId, "w1", 2))).toBe("refused");
    expect(await reportBatch(sql, drawsReport(again!.batchId, "w2", 2))).toBe("accepted");
    expect(await counters(iteration.id)).toMatchObject({ games_claimed: 2, games_played: 2, draws: 2 });
  });

  it("keeps a lease alive with heartbeats", async () => {
    await seedIteration(sql, { runName: "heartbeat", targetGames: 2 });
    const batch = await claimBatch(sql, "w1", 2);
    await sql`update spsa_batch set lease_expires_at = now() + interval '100 milliseconds' where id = ${batch!.batchId}`;
    expect(await heartbeat(sql, { name: "w1", sessionId: "w1" }, [batch!.batchId])).toEqual({
      held: [batch!.batchId],
      ownsName: true,
    });
    const [row] =
      await sql`select lease_expires_at > now() + interval '30 seconds' as extended from spsa_batch where id = ${batch!.batchId}`;
    expect(row?.extended).toBe(true);
    expect(await reportBatch(sql, drawsReport(batch!.batchId, "w1", 2))).toBe("accepted");
  });

  it("serves 32 concurrent claimers without over-claiming", async () => {
    const target = 200;
    const { iteration } = await seedIteration(sql, { runName: "crowd", targetGames: target });
    const names = Array.from({ length: 32 }, (_, i) => `crowd-${i}`);
    for (const name of names) await registerTestWorker(sql, name);
    const played = await Promise.all(
      names.map(async (name) => {
        let games = 0;
        for (;;) {
          const batch = await claimBatch(sql, name, 6);
          if (!batch) return games;
          expect(await reportBatch(sql, drawsReport(batch.batchId, name, batch.games))).toBe("accepted");
          games += batch.games;
        }
      }),
    );
    expect(played.reduce((a, b) => a + b, 0)).toBe(target);
    expect(await counters(iteration.id)).toMatchObject({ games_claimed: target, games_played: target, draws: target });
    const [sum] =
      await sql`select sum(games)::int as games, count(*)::int as batches from spsa_batch where iteration_id = ${iteration.id} and status = 'done'`;
    expect(sum?.games).toBe(target);
  });

  it("stays exact with 20 connections claiming, reporting, replaying, refusing and expiring while the master folds", async () => {
    const target = 400;
    const { iteration } = await seedIteration(sql, { runName: "storm", targetGames: target, batchSize: 6 });
    const names = Array.from({ length: 20 }, (_, i) => `storm-${i}`);
    for (const name of names) await registerTestWorker(sql, name);
    const accepted = new Map<number, number>();
    const late: { batchId: number; name: string; games: number }[] = [];
    let folding = true;
    // The master: folds the batches into the iteration every few milliseconds, so the
    // iteration's CHECK constraints are tested against every state the workers leave.
    const master = (async () => {
      while (folding) {
        await foldIteration(sql, iteration.id);
        const [row] = await sql<
          { claimed: number; played: number }[]
        >`select games_claimed as claimed, games_played as played from spsa_iteration where id = ${iteration.id}`;
        expect(row!.claimed).toBeLessThanOrEqual(target);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    })();
    const w = (name: string) => names.indexOf(name);
    try {
      await crowdOfWorkers(
        database.url,
        names,
        iteration.id,
        // Some claims ask for more than a planned batch, some for less (the row is split).
        (db, name, round) => claimBatch(db, name, 2 + 2 * ((w(name) + round) % 4)),
        async (db, name, batch, round) => {
          const kind = (w(name) * 7 + round) % 10;
          if (kind === 0) {
            // Refused binaries: the games go back at once, and a report after it is refused.
            await refuseBatch(db, batch.batchId, name);
            late.push({ batchId: batch.batchId, name, games: batch.games });
          } else if (kind === 1) {
            // A dead worker: its lease runs out, and its report comes late.
            await db`update spsa_batch set lease_expires_at = now() - interval '1 second' where id = ${batch.batchId}`;
            late.push({ batchId: batch.batchId, name, games: batch.games });
          } else {
            const report = drawsReport(batch.batchId, name, batch.games);
            expect(await reportBatch(db, report)).toBe("accepted");
            expect(await reportBatch(db, report)).toBe("duplicate");
            accepted.set(batch.batchId, batch.games);
          }
        },
      );
    } finally {
      folding = false;
      await master;
    }
    for (const l of late) expect(await reportBatch(sql, drawsReport(l.batchId, l.name, l.games))).toBe("refused");
    const reported = [...accepted.values()].reduce((a, b) => a + b, 0);
    expect(reported).toBe(target);
    const refusals =
      late.length -
      (
        await sql`select count(*)::int as n from spsa_batch where iteration_id = ${iteration.id} and status = 'expired' and not refused`
      )[0]!.n;
    expect(await counters(iteration.id)).toMatchObject({
      games_claimed: target,
      games_played: target,
      draws: target,
      binaries_refused: refusals,
    });
    const [sum] =
      await sql`select sum(games)::int as games, count(*)::int as batches from spsa_batch where iteration_id = ${iteration.id} and status = 'done'`;
    expect(sum).toEqual({ games: target, batches: accepted.size });
    expect(late.length).toBeGreaterThan(0);
  }, 120_000);

  it("adds each reported batch to the counters once: not when its fold is killed midway, not again by a second fold or a second master", async () => {
    const target = 96;
    const { iteration } = await seedIteration(sql, { runName: "folds", targetGames: target, batchSize: 4 });
    // Mixed results, so that every counter's sum tells which batches were added.
    const report = (batchId: number, name: string, games: number, k: number): BatchReport => {
      const kind = k % 3;
      return {
        batchId,
        workerName: name,
        wins: kind === 0 ? games : 0,
        losses: kind === 1 ? games : 0,
        draws: kind === 2 ? games : 0,
        pairs: [kind === 1 ? games / 2 : 0, 0, kind === 2 ? games / 2 : 0, 0, kind === 0 ? games / 2 : 0],
        ...clean(),
        replays: k % 2,
      };
    };
    const doneSums = async () =>
      (
        await sql`
      select coalesce(sum(games), 0)::int as games_played, coalesce(sum(plus_wins), 0)::int as plus_wins, coalesce(sum(minus_wins), 0)::int as minus_wins,
        coalesce(sum(draws), 0)::int as draws, coalesce(sum((pairs->>0)::int), 0)::int as pairs_ll, coalesce(sum((pairs->>4)::int), 0)::int as pairs_ww,
        coalesce(sum(replays), 0)::int as replays
      from spsa_batch where iteration_id = ${iteration.id} and status = 'done'`
      )[0];
    const counted = async () =>
      (
        await sql`
      select games_played, plus_wins, minus_wins, draws, pairs_ll, pairs_ww, replays from spsa_iteration where id = ${iteration.id}`
      )[0];
    let k = 0;
    const playSome = async (name: string, games: number) => {
      for (let left = games; left > 0;) {
        const batch = await claimBatch(sql, name, 4);
        expect(await reportBatch(sql, report(batch!.batchId, name, batch!.games, k++))).toBe("accepted");
        left -= batch!.games;
      }
    };
    await playSome("w1", 32);
    const [last] = await sql<
      { id: number }[]
    >`select max(id)::int as id from spsa_batch where iteration_id = ${iteration.id} and status = 'done'`;
    // The fold waits for the last batch's lock with the others marked; its connection dies there.
    await killWhileWaitingOnBatch(database.url, last!.id, {
      module: "db/fold.js",
      fn: "foldIteration",
      args: [iteration.id],
    });
    expect(await counted()).toMatchObject({ games_played: 0, draws: 0 });
    expect(
      (await sql`select count(*)::int as n from spsa_batch where iteration_id = ${iteration.id} and folded`)[0]?.n,
    ).toBe(0);
    expect(await foldIteration(sql, iteration.id)).toBe(true);
    expect(await foldIteration(sql, iteration.id)).toBe(false);
    expect(await counted()).toEqual({ ...(await doneSums()), games_played: 32 });

    // Two masters fold at once while the rest is reported: each batch is still added once.
    let folding = true;
    const master = async () => {
      while (folding) {
        await foldIteration(sql, iteration.id);
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
    };
    const masters = [master(), master()];
    try {
      await Promise.all([playSome("w1", 32), playSome("w2", 32)]);
    } finally {
      folding = false;
      await Promise.all(masters);
    }
    await foldIteration(sql, iteration.id);
    expect(await counted()).toEqual({ ...(await doneSums()), games_played: target });
    expect(await counters(iteration.id)).toMatchObject({ games_claimed: target, games_played: target });
  }, 60_000);

  it("takes a worker's claimed batches back when it restarts, and their games are claimable again", async () => {
    const { iteration } = await seedIteration(sql, { runName: "restart", targetGames: 8, batchSize: 4 });
    await registerTestWorker(sql, "w3");
    const held = await claimBatch(sql, "w3", 4);
    expect(await returnToPool(sql, "w3")).toEqual({ batches: 1, games: held!.games });
    expect(await reportBatch(sql, drawsReport(held!.batchId, "w3", held!.games))).toBe("refused");
    for (let batch = await claimBatch(sql, "w2", 8); batch; batch = await claimBatch(sql, "w2", 8)) {
      expect(await reportBatch(sql, drawsReport(batch.batchId, "w2", batch.games))).toBe("accepted");
    }
    expect(await counters(iteration.id)).toMatchObject({ games_claimed: 8, games_played: 8 });
  });
});

describe("batch sizes at an iteration's end", () => {
  const database = useMigratedDatabase(4);

  it("shrinks the open rows over the game slots of the workers seen, and counts every game once", async () => {
    const { sql } = database;
    for (const name of ["a", "b"])
      await claimWorkerName(sql, { name, sessionId: name, host: "test", pid: null, concurrency: 4 }, () => false);
    const { iteration } = await seedIteration(sql, { runName: "tail", targetGames: 64, batchSize: 8 });
    const planned = (
      await sql<
        { games: number }[]
      >`select games from spsa_batch where iteration_id = ${iteration.id} order by games_before`
    ).map((r) => r.games);
    // 8 slots: full batches first, pairs for the last games.
    expect(planned).toEqual(planBatchSizes(64, 8, 8));
    expect(planned.slice(0, 2)).toEqual([8, 8]);
    expect(planned.slice(-4)).toEqual([2, 2, 2, 2]);
    const granted: number[] = [];
    for (let turn = 0; ; turn++) {
      const name = turn % 2 === 0 ? "a" : "b";
      const batch = await claimBatch(sql, name, 8);
      if (!batch) break;
      granted.push(batch.games);
      expect(await reportBatch(sql, drawsReport(batch.batchId, name, batch.games))).toBe("accepted");
    }
    expect(granted).toEqual(planned);
    await foldIteration(sql, iteration.id);
    const [row] = await sql`select games_played, games_claimed, draws from spsa_iteration where id = ${iteration.id}`;
    expect(row).toEqual({ games_played: 64, games_claimed: 64, draws: 64 });
    const [done] =
      await sql`select count(*)::int as n, sum(games)::int as games from spsa_batch where iteration_id = ${iteration.id} and status = 'done'`;
    expect(done).toEqual({ n: planned.length, games: 64 });
  });
});
