import { randomBytes } from "node:crypto";
import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claimBatch, refuseBatch, releaseClaims, reportBatch, type ClaimedBatch } from "../../src/db/batches.js";
import { claimWorkerName } from "../../src/db/workers.js";
import { revokeWorkerLogin } from "../../src/postgres/worker-role.js";
import type { RunStatus } from "../../src/status/snapshot.js";
import { spsa } from "../support/cli.js";
import { useMigratedDatabase } from "../support/database.js";
import { clean, pairsOf, seedIteration } from "../support/iterations.js";
import { expectExactCounts, iterationsOf, startMaster, startWorker } from "../support/processes.js";
import { useRunFixture } from "../support/run-fixture.js";
import { workerConnection } from "../support/worker-login.js";

/** Turned down for a worker's limit (program_limit_exceeded), with the reason its log says. */
const OVER_LIMIT = (reason: RegExp) => ({ code: "54000", message: expect.stringMatching(reason) });

/** Plays nothing and reports its batch as all drawn: an honest worker's report, in form. */
async function report(sql: postgres.Sql, name: string, batch: ClaimedBatch): Promise<void> {
  const outcome = await reportBatch(sql, {
    batchId: batch.batchId,
    workerName: name,
    wins: 0,
    losses: 0,
    draws: batch.games,
    pairs: pairsOf(0, 0, batch.games),
    ...clean(),
  });
  expect(outcome).toBe("accepted");
}

/**
 * Issue 55, "a worker can starve the others", done for real with two worker machines' own URLs
 * (each its own login role, concurrency 1: a claim cap of max(2, 1) + 2 = 4): an attacker that
 * claims everything, or gives batches back in a loop, against an honest worker that claims a batch of two
 * games and reports it. Each step waits for the database's answer, not for time.
 */
describe("a worker cannot starve the others", () => {
  const database = useMigratedDatabase(4);
  const tag = randomBytes(4).toString("hex");
  const machines = [`a${tag}`, `h${tag}`, `r${tag}`];
  const attackerName = `${machines[0]}-x`;
  const honestName = `${machines[1]}-w`;
  const releaserName = `${machines[2]}-x`;
  const identity = { sessionId: "s", host: "box", pid: 1, concurrency: 1 };
  let attacker: postgres.Sql;
  let honest: postgres.Sql;
  let releaser: postgres.Sql;

  beforeAll(async () => {
    attacker = (await workerConnection(database, machines[0]!)).sql;
    honest = (await workerConnection(database, machines[1]!)).sql;
    releaser = (await workerConnection(database, machines[2]!)).sql;
    await claimWorkerName(attacker, { ...identity, name: attackerName }, () => false);
    await claimWorkerName(honest, { ...identity, name: honestName }, () => false);
    await claimWorkerName(releaser, { ...identity, name: releaserName }, () => false);
  });
  afterAll(async () => {
    await Promise.all([attacker?.end(), honest?.end(), releaser?.end()]);
    for (const machine of machines) await revokeWorkerLogin(database.sql, machine);
  });

  it("a worker claiming everything holds at most its cap, and the honest worker gets every other batch", async () => {
    await seedIteration(database.sql, { runName: "hoard", targetGames: 24, batchSize: 2 });
    const held: ClaimedBatch[] = [];
    for (let i = 0; i < 12; i++) {
      const claimed = await claimBatch(attacker, attackerName, 2).catch((error: unknown) => error);
      if (claimed instanceof Error) {
        expect(claimed).toMatchObject(OVER_LIMIT(/holds 4 claimed batches, its cap/));
        continue;
      }
      held.push(claimed as ClaimedBatch);
    }
    expect(held).toHaveLength(4);
    // The honest worker's fixed number of claims: each one gets a batch.
    let honestBatches = 0;
    for (let i = 0; i < 8; i++) {
      const batch = await claimBatch(honest, honestName, 2);
      if (!batch) continue;
      honestBatches++;
      await report(honest, honestName, batch);
    }
    expect(honestBatches).toBe(8);
    // Reporting one gives the attacker room for one more claim, and no more.
    await report(attacker, attackerName, held[0]!);
    await seedIteration(database.sql, { runName: "hoard-more", targetGames: 8, batchSize: 2 });
    const more = await claimBatch(attacker, attackerName, 2);
    expect(more).toBeDefined();
    await expect(claimBatch(attacker, attackerName, 2)).rejects.toMatchObject(OVER_LIMIT(/its cap/));
    // Its batches reported (not given back: that would count) and these runs over, the next test's claims are of its own run.
    for (const batch of [...held.slice(1), more!]) await report(attacker, attackerName, batch);
    await database.sql`update spsa_run set status = 'complete' where name in ('hoard', 'hoard-more')`;
  });

  it("refusals in a loop stop at 8 a minute, the honest worker gets every batch it claims, and status counts them", async () => {
    await seedIteration(database.sql, { runName: "refusals", targetGames: 40, batchSize: 2 });
    let refusals = 0;
    let toldToWait = 0;
    let honestBatches = 0;
    // Rounds of the attacker's claim-and-refuse loop (10 tries) and one claim of the honest worker.
    for (let round = 0; round < 10; round++) {
      for (let i = 0; i < 10; i++) {
        const batch = await claimBatch(attacker, attackerName, 2).catch((error: unknown) => {
          expect(error).toMatchObject(OVER_LIMIT(/gave back 8 batches unplayed in the last minute/));
          toldToWait++;
          return undefined;
        });
        if (!batch) continue;
        await refuseBatch(attacker, batch.batchId, attackerName);
        refusals++;
      }
      const batch = await claimBatch(honest, honestName, 2);
      if (batch) {
        honestBatches++;
        await report(honest, honestName, batch);
      }
    }
    expect(refusals).toBe(8);
    expect(toldToWait).toBe(92);
    expect(honestBatches).toBe(10);

    const env = { DATABASE_URL: database.url };
    const json = await spsa(["status", "--name", "refusals", "--json"], { env });
    expect(json.exitCode, json.all).toBe(0);
    const workers = (JSON.parse(json.stdout) as RunStatus).workers;
    expect(workers.find((w) => w.name === attackerName)?.refused).toBe(8);
    const text = await spsa(["status", "--name", "refusals"], { env });
    expect(text.stdout).toContain(`${attackerName}: refused 8 batches`);
    const list = await spsa(["workers", "list", "--name", "refusals"], { env });
    expect(list.exitCode, list.all).toBe(0);
    expect(list.stdout).toMatch(new RegExp(`${attackerName}\\s.*\\s8\\s`));
  });

  it("giving back by release or by its own name's takeover counts as refusing does", async () => {
    await seedIteration(database.sql, { runName: "releases", targetGames: 40, batchSize: 2 });
    const claimFour = async () => {
      for (let i = 0; i < 4; i++) expect(await claimBatch(releaser, releaserName, 2)).toBeDefined();
    };
    await claimFour();
    expect((await releaseClaims(releaser, { name: releaserName, sessionId: "s" })).batches).toBe(4);
    await claimFour();
    // Its name taken over by a new process of its own: the batches come back at once, and count.
    await claimWorkerName(releaser, { ...identity, sessionId: "t", name: releaserName }, () => false);
    await expect(claimBatch(releaser, releaserName, 2)).rejects.toMatchObject(
      OVER_LIMIT(/gave back 8 batches unplayed in the last minute \(refused, released or taken over\)/),
    );
    // The honest machine is not told to wait: the limit is per worker machine.
    expect(await claimBatch(honest, honestName, 2)).toBeDefined();
  });
});

describe("an honest worker at concurrency 2", () => {
  const fixture = useRunFixture({ iterations: 2, games: 8, batchSize: 2, moveLimit: "nodes = 500" });

  it("plays a real run of batches of two games without ever meeting the claim cap", async () => {
    // With a worker URL of its own: the owner's URL is not limited (it could write every row itself).
    const machine = `c${randomBytes(4).toString("hex")}`;
    const issued = await spsa(["db", "worker-url", "--name", machine], { env: fixture.env });
    expect(issued.exitCode, issued.all).toBe(0);
    const worker = startWorker(fixture.setup, { DATABASE_URL: issued.stdout.trim() }, `${machine}-w`, ["-c", "2"]);
    const master = await startMaster(fixture.setup, fixture.env, "capped", ["--seed", "s"]);
    worker.kill("SIGTERM");
    const output = (await worker).all ?? "";
    expect(master.exitCode, `${master.all}\n${output}`).toBe(0);
    expect(output).not.toMatch(/its cap/);
    expect(output).toMatch(/starts batch/);
    const rows = await iterationsOf(fixture.sql, "capped");
    expect(rows).toHaveLength(2);
    expectExactCounts(rows, expect);
    // The most batches it held at once (claimed, not yet reported): within its cap of 4, and at least 2 (-c 2 used).
    const [most] = await fixture.sql<{ n: number }[]>`
      select max((select count(*) from spsa_batch c where c.worker_name = b.worker_name
        and c.claimed_at <= b.claimed_at and coalesce(c.reported_at, 'infinity') > b.claimed_at))::int as n
      from spsa_batch b where b.worker_name = ${`${machine}-w`}`;
    expect(most?.n).toBeGreaterThanOrEqual(2);
    expect(most?.n).toBeLessThanOrEqual(4);
    await spsa(["db", "worker-url", "--name", machine, "--revoke"], { env: fixture.env });
  }, 300_000);
});
