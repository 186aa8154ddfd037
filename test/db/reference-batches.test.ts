import { beforeAll, describe, expect, it } from "vitest";
import { claimBatch, reportBatch, type BatchReport } from "../../src/db/batches.js";
import { foldIteration } from "../../src/db/fold.js";
import { outcomeOf, readIteration } from "../../src/db/iterations.js";
import { useMigratedDatabase } from "../support/database.js";
import { clean, pairsOf, registerTestWorker, seedIteration } from "../support/iterations.js";

const REFERENCE = { path: "/nonexistent/reference", sha256: "2".repeat(64) };

/** A reference-mode report of `units` units: θ+ and θ− each win, draw and lose as given per unit's pair. */
function referenceReport(
  batchId: number,
  workerName: string,
  plus: [number, number, number],
  minus: [number, number, number],
): BatchReport {
  const side = ([wins, draws, losses]: [number, number, number]) => ({ wins, draws, losses });
  const pairs = pairsOf(plus[0] + minus[0], plus[2] + minus[2], plus[1] + minus[1]);
  return {
    batchId,
    workerName,
    wins: 0,
    losses: 0,
    draws: 0,
    pairs,
    ...clean(),
    reference: { plus: side(plus), minus: side(minus) },
  };
}

describe("reference mode's batches", () => {
  const database = useMigratedDatabase(4);
  let sql: typeof database.sql;

  beforeAll(async () => {
    sql = database.sql;
    await registerTestWorker(sql, "r1");
  });

  async function counters(iterationId: number) {
    await foldIteration(sql, iterationId);
    const [row] = await sql`
      select games_played, plus_wins, minus_wins, draws, ref_plus_wins, ref_plus_draws, ref_plus_losses,
        ref_minus_wins, ref_minus_draws, ref_minus_losses, pairs_dd from spsa_iteration where id = ${iterationId}`;
    return row;
  }

  it("makes rows of whole units and grants at least one unit, whatever a worker asks for", async () => {
    const { iteration } = await seedIteration(sql, { runName: "units", targetGames: 12, reference: REFERENCE });
    const rows = await sql`select games from spsa_batch where iteration_id = ${iteration.id} order by id`;
    expect(rows.map((r) => r.games)).toEqual([8, 4]);
    // Two games asked: one unit of four granted, the row's other unit stays open after it.
    const first = await claimBatch(sql, "r1", 2);
    expect(first?.games).toBe(4);
    expect(first).toMatchObject({ referenceEnginePath: REFERENCE.path, referenceEngineSha256: REFERENCE.sha256 });
    expect(first?.referenceEngineSignature).toMatch(/^[A-Za-z0-9+/]+=*$/);
    // Seven asked: one unit (whole units only).
    expect((await claimBatch(sql, "r1", 7))?.games).toBe(4);
    expect((await claimBatch(sql, "r1", 8))?.games).toBe(4);
    expect(await claimBatch(sql, "r1", 8)).toBeUndefined();
    await sql`update spsa_iteration set status = 'complete' where id = ${iteration.id}`;
  });

  it("counts both sides' results against the reference once: a retried report is a duplicate", async () => {
    const { iteration } = await seedIteration(sql, { runName: "counted", targetGames: 8, reference: REFERENCE });
    const batch = await claimBatch(sql, "r1", 8);
    const report = referenceReport(batch!.batchId, "r1", [2, 1, 1], [0, 3, 1]);
    expect(await reportBatch(sql, report)).toBe("accepted");
    expect(await reportBatch(sql, report)).toBe("duplicate");
    expect(await counters(iteration.id)).toEqual({
      games_played: 8,
      plus_wins: 0,
      minus_wins: 0,
      draws: 0,
      ref_plus_wins: 2,
      ref_plus_draws: 1,
      ref_plus_losses: 1,
      ref_minus_wins: 0,
      ref_minus_draws: 3,
      ref_minus_losses: 1,
      pairs_dd: 4,
    });
    const [worker] = await sql`select games_played::int as games from spsa_worker where name = 'r1'`;
    expect(worker?.games).toBe(8);
    // The master reads the counts as θ+'s and θ−'s results against the reference.
    expect(outcomeOf(await readIteration(sql, iteration.id))).toEqual({
      plus: { plusWins: 2, minusWins: 1, draws: 1 },
      minus: { plusWins: 0, minusWins: 1, draws: 3 },
    });
  });

  it("refuses a report of the other kind, uneven sides or plus-against-minus games, counting nothing", async () => {
    const { iteration } = await seedIteration(sql, { runName: "kinds", targetGames: 8, reference: REFERENCE });
    const batch = await claimBatch(sql, "r1", 8);
    const plain = {
      batchId: batch!.batchId,
      workerName: "r1",
      wins: 4,
      losses: 2,
      draws: 2,
      pairs: [0, 0, 4, 0, 0] as BatchReport["pairs"],
      ...clean(),
    };
    await expect(reportBatch(sql, plain)).rejects.toThrow(
      /its iteration plays θ\+ and θ− against a reference engine, the report is of plus against minus/,
    );
    await expect(reportBatch(sql, referenceReport(batch!.batchId, "r1", [3, 1, 1], [1, 1, 1]))).rejects.toThrow(
      /as many games of θ\+ as of θ− \(here 5 and 3\)/,
    );
    await expect(
      reportBatch(sql, { ...referenceReport(batch!.batchId, "r1", [1, 1, 0], [1, 1, 0]), wins: 4 }),
    ).rejects.toThrow(/no plus-against-minus games/);
    expect(await counters(iteration.id)).toMatchObject({ games_played: 0, ref_plus_wins: 0 });
    expect(await reportBatch(sql, referenceReport(batch!.batchId, "r1", [1, 2, 1], [2, 2, 0]))).toBe("accepted");
    // A plus-against-minus iteration refuses a reference report.
    const pvm = await seedIteration(sql, { runName: "plain", targetGames: 2 });
    const pair = await claimBatch(sql, "r1", 2);
    expect(pair?.iterationId).toBe(pvm.iteration.id);
    expect(pair?.referenceEngineSha256).toBeNull();
    await expect(reportBatch(sql, referenceReport(pair!.batchId, "r1", [1, 0, 0], [0, 1, 0]))).rejects.toThrow(
      /its iteration plays plus against minus, the report is of games against a reference engine/,
    );
  });

  it("still takes a plus-vs-minus report in the nine arguments of the version before (a worker not upgraded yet)", async () => {
    const { iteration } = await seedIteration(sql, { runName: "older-worker", targetGames: 2 });
    const batch = await claimBatch(sql, "r1", 2);
    const [row] =
      await sql`select spsa_report_batch(${batch!.batchId}, 'r1', 1, 0, 1, '{0,0,0,1,0}'::int[], '{}'::jsonb, 0, 0) as outcome`;
    expect(row?.outcome).toBe("accepted");
    expect(await counters(iteration.id)).toMatchObject({ games_played: 2, plus_wins: 1, draws: 1, ref_plus_wins: 0 });
  });

  it("keeps the iteration's counters adding up to its games: the database refuses uneven sides or mixed kinds", async () => {
    const { iteration } = await seedIteration(sql, { runName: "checks", targetGames: 4, reference: REFERENCE });
    await expect(
      sql`update spsa_iteration set games_claimed = 2, games_played = 2, ref_plus_wins = 2 where id = ${iteration.id}`,
    ).rejects.toThrow(/spsa_iteration_reference_sides/);
    await expect(
      sql`update spsa_iteration set games_claimed = 4, games_played = 4, ref_plus_wins = 2, ref_minus_wins = 1 where id = ${iteration.id}`,
    ).rejects.toThrow(/spsa_iteration_reference_sides|spsa_iteration_results/);
    await expect(
      sql`update spsa_iteration set games_claimed = 2, games_played = 2, plus_wins = 2 where id = ${iteration.id}`,
    ).rejects.toThrow(/spsa_iteration_one_kind/);
  });
});
