import { hostname } from "node:os";
import { beforeAll, describe, expect, it } from "vitest";
import { claimBatch, heartbeat, reportBatch, type BatchReport } from "../../src/db/batches.js";
import { foldIteration } from "../../src/db/fold.js";
import { claimWorkerName, recordSpeed, type NameHolder } from "../../src/db/workers.js";
import { holderAlive } from "../../src/worker/name-holder.js";
import { useMigratedDatabase } from "../support/database.js";
import { clean, registerTestWorker, seedIteration } from "../support/iterations.js";

describe("taking a worker name", () => {
  const database = useMigratedDatabase(10);
  let sql: typeof database.sql;
  beforeAll(() => {
    sql = database.sql;
  });

  async function claimedGames(iterationId: number): Promise<number> {
    await foldIteration(sql, iterationId);
    const [row] = await sql<{ n: number }[]>`select games_claimed as n from spsa_iteration where id = ${iterationId}`;
    return row?.n ?? -1;
  }

  it("returns a dead holder's claimed batches to the pool at once, and refuses their late report", async () => {
    await seedIteration(sql, { runName: "dead-holder", targetGames: 8 });
    await registerTestWorker(sql, "restarted");
    const orphan = await claimBatch(sql, "restarted", 4);
    expect(await claimedGames(orphan!.iterationId)).toBe(4);

    const claim = await claimWorkerName(
      sql,
      { name: "restarted", sessionId: "second", host: "test", pid: null, concurrency: 1 },
      () => false,
    );
    expect(claim).toMatchObject({
      taken: false,
      holder: { sessionId: "restarted" },
      released: { batches: 1, games: 4 },
    });
    expect(await claimedGames(orphan!.iterationId)).toBe(0);
    const [batch] = await sql`select status from spsa_batch where id = ${orphan!.batchId}`;
    expect(batch?.status).toBe("expired");
    const late: BatchReport = {
      batchId: orphan!.batchId,
      workerName: "restarted",
      wins: 0,
      losses: 0,
      draws: 4,
      pairs: [0, 0, 2, 0, 0],
      ...clean(),
    };
    expect(await reportBatch(sql, late)).toBe("refused");
    // The old process, if it still ran, learns from its heartbeat that the name is gone.
    expect(await heartbeat(sql, { name: "restarted", sessionId: "restarted" }, [orphan!.batchId])).toEqual({
      held: [],
      ownsName: false,
    });
    expect(await heartbeat(sql, { name: "restarted", sessionId: "second" }, [])).toEqual({ held: [], ownsName: true });
  });

  it("records a process's measured speed for its own session only, and a new process of the name starts unmeasured", async () => {
    await registerTestWorker(sql, "measured");
    const speedOf = async () =>
      (await sql`select measured_nps, time_factor from spsa_worker where name = 'measured'`)[0];
    await recordSpeed(sql, { name: "measured", sessionId: "measured" }, 812_000, 1.25);
    expect(await speedOf()).toEqual({ measured_nps: 812_000, time_factor: 1.25 });
    await claimWorkerName(
      sql,
      { name: "measured", sessionId: "next", host: "test", pid: null, concurrency: 1 },
      () => false,
    );
    expect(await speedOf()).toEqual({ measured_nps: null, time_factor: null });
    // The old process's late record does not land on the new one's row.
    await recordSpeed(sql, { name: "measured", sessionId: "measured" }, 500_000, 2);
    expect(await speedOf()).toEqual({ measured_nps: null, time_factor: null });
  });

  it("leaves a live holder's row and batches alone", async () => {
    await seedIteration(sql, { runName: "live-holder", targetGames: 8 });
    await registerTestWorker(sql, "busy");
    const held = await claimBatch(sql, "busy", 4);
    const claimedBefore = await claimedGames(held!.iterationId);
    let seen: NameHolder | undefined;
    const claim = await claimWorkerName(
      sql,
      { name: "busy", sessionId: "intruder", host: "test", pid: null, concurrency: 1 },
      (holder) => {
        seen = holder;
        return true;
      },
    );
    expect(claim).toEqual({ taken: true, holder: seen });
    expect(seen?.sessionId).toBe("busy");
    expect(seen?.secondsSinceSeen).toBeLessThan(5);
    expect(await claimedGames(held!.iterationId)).toBe(claimedBefore);
    const [batch] = await sql`select status from spsa_batch where id = ${held!.batchId}`;
    expect(batch?.status).toBe("claimed");
    const [row] = await sql`select session_id from spsa_worker where name = 'busy'`;
    expect(row?.session_id).toBe("busy");
  });

  it("gives a name to exactly one of eight processes claiming it at once", async () => {
    const identity = (i: number) => ({
      name: "crowded",
      sessionId: `s${i}`,
      host: hostname(),
      pid: process.ppid,
      concurrency: 1,
    });
    const claims = await Promise.all(
      Array.from({ length: 8 }, (_, i) => claimWorkerName(sql, identity(i), (holder) => holderAlive(holder, 10_000))),
    );
    expect(claims.filter((c) => !c.taken)).toHaveLength(1);
  });
});
