import { beforeAll, describe, expect, it } from "vitest";
import { claimBatch, reportBatch } from "../../src/db/batches.js";
import { foldIteration } from "../../src/db/fold.js";
import { readIteration } from "../../src/db/iterations.js";
import { faultyIterations } from "../../src/db/run-status.js";
import { useMigratedDatabase } from "../support/database.js";
import { registerTestWorker, seedIteration } from "../support/iterations.js";
import { noFaults } from "../../src/types/faults.js";

describe("fault counters in the database, built from the list of fault kinds", () => {
  const database = useMigratedDatabase(4);
  let sql: typeof database.sql;

  beforeAll(async () => {
    sql = database.sql;
    await registerTestWorker(sql, "faulty");
  });

  it("adds each kind to its side's counter column, delay losses apart from engine faults", async () => {
    const { run, iteration } = await seedIteration(sql, { runName: "fault-columns", targetGames: 8 });
    const batch = await claimBatch(sql, "faulty", 8);
    const accepted = await reportBatch(sql, {
      batchId: batch!.batchId,
      workerName: "faulty",
      wins: 3,
      losses: 5,
      draws: 0,
      pairs: [1, 1, 1, 1, 0],
      faults: [
        { ...noFaults(), crash: 1, startup: 1, garbage: 1 },
        { ...noFaults(), timeout: 2, illegal: 1, delay: 1 },
      ],
      replays: 2,
      replayLimitPairs: 1,
    });
    expect(accepted).toBe("accepted");
    await foldIteration(sql, iteration.id);
    const [row] = await sql`
      select plus_crashes, minus_crashes, plus_time_losses, minus_time_losses, plus_illegal_moves, minus_illegal_moves,
        plus_delay_losses, minus_delay_losses, replays, replay_limit_pairs
      from spsa_iteration where id = ${iteration.id}`;
    expect(row).toEqual({
      plus_crashes: 2,
      minus_crashes: 0,
      plus_time_losses: 0,
      minus_time_losses: 2,
      plus_illegal_moves: 1,
      minus_illegal_moves: 1,
      plus_delay_losses: 0,
      minus_delay_losses: 1,
      replays: 2,
      replay_limit_pairs: 1,
    });
    expect(await readIteration(sql, iteration.id)).toMatchObject({
      faults: 6,
      delayLosses: 1,
      replays: 2,
      replayLimitPairs: 1,
    });
    expect(await faultyIterations(sql, run.id, 5)).toEqual([
      {
        iteration: 1,
        plusCrashes: 2,
        minusCrashes: 0,
        plusTimeLosses: 0,
        minusTimeLosses: 2,
        plusIllegalMoves: 1,
        minusIllegalMoves: 1,
        plusDelayLosses: 0,
        minusDelayLosses: 1,
        replays: 2,
        replayLimitPairs: 1,
        referenceCrashes: 0,
        referenceTimeLosses: 0,
        referenceIllegalMoves: 0,
        referenceDelayLosses: 0,
      },
    ]);
    const [worker] =
      await sql`select delay_losses::int as delay_losses, replays::int as replays from spsa_worker where name = 'faulty'`;
    expect(worker).toEqual({ delay_losses: 1, replays: 2 });
  });
});

describe("fault counters of reference mode's three engines", () => {
  const database = useMigratedDatabase(2);

  it("counts the reference engine's faults in columns of its own, as engine faults and delay losses", async () => {
    const sql = database.sql;
    await registerTestWorker(sql, "faulty-ref");
    const reference = { path: "/nonexistent/reference", sha256: "1".repeat(64) };
    const { run, iteration } = await seedIteration(sql, { runName: "reference-faults", targetGames: 8, reference });
    const batch = await claimBatch(sql, "faulty-ref", 8);
    expect(batch?.games).toBe(8);
    const accepted = await reportBatch(sql, {
      batchId: batch!.batchId,
      workerName: "faulty-ref",
      wins: 0,
      losses: 0,
      draws: 0,
      pairs: [0, 1, 2, 1, 0],
      faults: [{ ...noFaults(), crash: 1 }, noFaults(), { ...noFaults(), illegal: 2, delay: 1 }],
      replays: 0,
      replayLimitPairs: 0,
      reference: { plus: { wins: 2, draws: 1, losses: 1 }, minus: { wins: 1, draws: 1, losses: 2 } },
    });
    expect(accepted).toBe("accepted");
    await foldIteration(sql, iteration.id);
    expect(await readIteration(sql, iteration.id)).toMatchObject({ faults: 3, delayLosses: 1 });
    expect(await faultyIterations(sql, run.id, 5)).toEqual([
      expect.objectContaining({
        plusCrashes: 1,
        minusCrashes: 0,
        referenceCrashes: 0,
        referenceIllegalMoves: 2,
        referenceDelayLosses: 1,
      }),
    ]);
    const [worker] = await sql`select delay_losses::int as delay_losses from spsa_worker where name = 'faulty-ref'`;
    expect(worker).toEqual({ delay_losses: 1 });
  });
});
