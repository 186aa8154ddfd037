import { beforeAll, describe, expect, it } from "vitest";
import { claimBatch, expireLeases, heartbeat, reportBatch, type BatchReport } from "../../src/db/batches.js";
import { useMigratedDatabase } from "../support/database.js";
import { clean, registerTestWorker, seedIteration } from "../support/iterations.js";

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

  async function counters(iterationId: number) {
    const [row] = await sql`select games_claimed, games_played, plus_wins, minus_wins, draws, pairs_dd, status
                            from spsa_iteration where id = ${iterationId}`;
    return row;
  }

  it("never grants more than target - claimed", async () => {
    const { iteration } = await seedIteration(sql, { runName: "claims", targetGames: 10 });
    const grants = [];
    for (let i = 0; i < 4; i++) grants.push((await claimBatch(sql, "w1", 4, 60))?.games);
    expect(grants).toEqual([4, 4, 2, undefined]);
    expect(await counters(iteration.id)).toMatchObject({ games_claimed: 10, games_played: 0, status: "in_progress" });
    await sql`update spsa_iteration set status = 'complete', games_claimed = 0 where id = ${iteration.id}`;
  });

  it("counts a report once: a replay is a duplicate and changes nothing", async () => {
    const { iteration } = await seedIteration(sql, { runName: "replay", targetGames: 4 });
    const batch = await claimBatch(sql, "w1", 4, 60);
    expect(batch?.iterationId).toBe(iteration.id);
    const report = { ...drawsReport(batch!.batchId, "w1", 4), wins: 1, draws: 3, pairs: [0, 0, 1, 1, 0] as BatchReport["pairs"] };
    expect(await reportBatch(sql, report)).toBe("accepted");
    expect(await reportBatch(sql, report)).toBe("duplicate");
    expect(await counters(iteration.id)).toMatchObject({ games_played: 4, plus_wins: 1, draws: 3, pairs_dd: 1 });
    const [worker] = await sql`select games_played::int as games_played from spsa_worker where name = 'w1'`;
    expect(worker?.games_played).toBe(4);
  });

  it("refuses a report from another worker or with the wrong number of games", async () => {
    const { iteration } = await seedIteration(sql, { runName: "wrong", targetGames: 4 });
    const batch = await claimBatch(sql, "w1", 4, 60);
    expect(await reportBatch(sql, drawsReport(batch!.batchId, "w2", 4))).toBe("refused");
    await expect(reportBatch(sql, drawsReport(batch!.batchId, "w1", 2))).rejects.toThrow(/has 4 games, the report has 2/);
    expect(await counters(iteration.id)).toMatchObject({ games_played: 0 });
    expect(await reportBatch(sql, drawsReport(batch!.batchId, "w1", 4))).toBe("accepted");
  });

  it("returns an expired lease to the pool and refuses the late report", async () => {
    const { iteration } = await seedIteration(sql, { runName: "lease", targetGames: 4 });
    const dead = await claimBatch(sql, "w1", 4, 60);
    expect(await claimBatch(sql, "w2", 4, 60)).toBeUndefined();
    // The worker died: age its lease by hand instead of waiting for it.
    await sql`update spsa_batch set lease_expires_at = now() - interval '1 second' where id = ${dead!.batchId}`;
    expect(await heartbeat(sql, { name: "w1", sessionId: "w1" }, [], 60)).toEqual({ held: [], ownsName: true });
    expect(await expireLeases(sql)).toBe(1);
    expect(await counters(iteration.id)).toMatchObject({ games_claimed: 0 });
    const again = await claimBatch(sql, "w2", 4, 60);
    expect(again?.games).toBe(4);
    expect(await reportBatch(sql, drawsReport(dead!.batchId, "w1", 4))).toBe("refused");
    expect(await reportBatch(sql, drawsReport(again!.batchId, "w2", 4))).toBe("accepted");
    expect(await counters(iteration.id)).toMatchObject({ games_claimed: 4, games_played: 4, draws: 4 });
  });

  it("keeps a lease alive with heartbeats", async () => {
    await seedIteration(sql, { runName: "heartbeat", targetGames: 2 });
    const batch = await claimBatch(sql, "w1", 2, 1);
    await sql`update spsa_batch set lease_expires_at = now() + interval '100 milliseconds' where id = ${batch!.batchId}`;
    expect(await heartbeat(sql, { name: "w1", sessionId: "w1" }, [batch!.batchId], 60)).toEqual({ held: [batch!.batchId], ownsName: true });
    const [row] = await sql`select lease_expires_at > now() + interval '30 seconds' as extended from spsa_batch where id = ${batch!.batchId}`;
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
          const batch = await claimBatch(sql, name, 6, 60);
          if (!batch) return games;
          expect(await reportBatch(sql, drawsReport(batch.batchId, name, batch.games))).toBe("accepted");
          games += batch.games;
        }
      }),
    );
    expect(played.reduce((a, b) => a + b, 0)).toBe(target);
    expect(await counters(iteration.id)).toMatchObject({ games_claimed: target, games_played: target, draws: target });
    const [sum] = await sql`select sum(games)::int as games, count(*)::int as batches from spsa_batch where iteration_id = ${iteration.id} and status = 'done'`;
    expect(sum?.games).toBe(target);
  });
});
