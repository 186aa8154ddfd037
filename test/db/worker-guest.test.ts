import { randomBytes } from "node:crypto";
import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claimBatch, expireLeases, releaseClaims, reportBatch } from "../../src/db/batches.js";
import { foldIteration } from "../../src/db/fold.js";
import { revokeWorkerLogin } from "../../src/postgres/worker-role.js";
import { activeGameSlots, claimWorkerName } from "../../src/db/workers.js";
import { createRng } from "../../src/core/rng.js";
import { spsa } from "../support/cli.js";
import { useMigratedDatabase } from "../support/database.js";
import { clean, pairsOf, seedIteration } from "../support/iterations.js";
import { workerConnection } from "../support/worker-login.js";

/** Refused with a message the worker logs: bad input (22023) or above a limit (54000); never stored. */
const REFUSED = { code: expect.stringMatching(/^(22023|54000)$/) };
const TEN_MB = "x".repeat(10 * 1024 * 1024);

/**
 * A worker is a guest (docs/security.md, "Worker machine"): each attack of the review, done
 * for real with a worker role's own URL against the definer functions, is refused or
 * harmless, and the run goes on with exact counts. Then random hostile arguments to every
 * function, with the run's invariants checked after each call.
 */
describe("a worker machine cannot corrupt, stall or crash a run", () => {
  const database = useMigratedDatabase(4);
  const machine = `g${randomBytes(4).toString("hex")}`;
  let worker: postgres.Sql;
  const name = `${machine}-a`;

  beforeAll(async () => {
    worker = (await workerConnection(database, machine, 2)).sql;
    await claimWorkerName(worker, { name, sessionId: "s", host: "box", pid: 1, concurrency: 2 }, () => false);
  });
  afterAll(async () => {
    await worker?.end();
    await revokeWorkerLogin(database.sql, machine);
  });

  it("refuses a fractional, negative or oversized fault count, and the master's fold and status carry on", async () => {
    const { iteration } = await seedIteration(database.sql, { runName: "faults", targetGames: 2 });
    const batch = await claimBatch(worker, name, 2);
    const report = {
      batchId: batch!.batchId,
      workerName: name,
      wins: 1,
      losses: 1,
      draws: 0,
      pairs: pairsOf(1, 1, 0),
      ...clean(),
    };
    const withCrashes = (crash: number) => ({
      ...report,
      faults: [{ ...clean().faults[0], crash }, clean().faults[1]] as typeof report.faults,
    });
    for (const crash of [1.5, -1, 3, 1e9])
      await expect(reportBatch(worker, withCrashes(crash))).rejects.toMatchObject(REFUSED);
    await expect(
      worker`select spsa_report_batch(${batch!.batchId}, ${name}, 1, 1, 0, '{0,0,1,0,0}', '{"plusCrashes": "1"}', 0, 0)`,
    ).rejects.toMatchObject(REFUSED);
    await expect(
      worker`select spsa_report_batch(${batch!.batchId}, ${name}, 1, 1, 0, '{0,0,1,0,0}', '[1]', 0, 0)`,
    ).rejects.toMatchObject(REFUSED);
    expect(await reportBatch(worker, withCrashes(1))).toBe("accepted");
    await foldIteration(database.sql, iteration.id);
    const [row] = await database.sql`select games_played, plus_crashes from spsa_iteration where id = ${iteration.id}`;
    expect(row).toEqual({ games_played: 2, plus_crashes: 1 });
    const status = await spsa(["status", "--name", "faults"], { env: { DATABASE_URL: database.url } });
    expect(status.exitCode, status.all).toBe(0);
  });

  it("refuses results that are not its batch's games: counts that do not add up, pairs that do not score them, replays past the limit", async () => {
    await seedIteration(database.sql, { runName: "counts", targetGames: 2 });
    const batch = await claimBatch(worker, name, 2);
    const base = {
      batchId: batch!.batchId,
      workerName: name,
      wins: 2,
      losses: 0,
      draws: 0,
      pairs: pairsOf(2, 0, 0),
      ...clean(),
    };
    await expect(reportBatch(worker, { ...base, pairs: [0, 0, 1, 0, 0] })).rejects.toMatchObject(REFUSED);
    await expect(reportBatch(worker, { ...base, pairs: [0, 0, 0, 0, 2] })).rejects.toMatchObject(REFUSED);
    await expect(reportBatch(worker, { ...base, wins: 2147483647, losses: 2147483647 })).rejects.toThrow();
    await expect(reportBatch(worker, { ...base, replays: 9 })).rejects.toMatchObject(REFUSED);
    await expect(reportBatch(worker, { ...base, replayLimitPairs: 2 })).rejects.toMatchObject(REFUSED);
    expect(await reportBatch(worker, base)).toBe("accepted");
  });

  it("refuses a concurrency of −1,000,000 (and 10⁶), so the master's plan of batches stands", async () => {
    const before = await activeGameSlots(database.sql);
    for (const concurrency of [-1_000_000, 0, 1_000_000]) {
      await expect(
        worker`select spsa_record_worker(${name}, 's', ${concurrency}, null, null, null)`,
      ).rejects.toMatchObject(REFUSED);
      await expect(
        claimWorkerName(
          worker,
          { name: `${machine}-c`, sessionId: "c", host: "box", pid: 1, concurrency },
          () => false,
        ),
      ).rejects.toMatchObject(REFUSED);
    }
    for (const nps of ["NaN", "Infinity", "-1", "1e300"])
      await expect(
        worker`select spsa_record_worker(${name}, 's', null, null, ${nps}::float8, null)`,
      ).rejects.toMatchObject(REFUSED);
    await expect(
      worker`select spsa_record_worker(${name}, 's', null, null, null, 'NaN'::float8)`,
    ).rejects.toMatchObject(REFUSED);
    expect(await activeGameSlots(database.sql)).toBe(before);
  });

  it("cannot choose its lease: the calls take none (one until 2058 is no call at all), a claim gets the iteration's, and heartbeats extend by it", async () => {
    await seedIteration(database.sql, { runName: "lease", targetGames: 2 });
    const NO_SUCH_FUNCTION = { code: "42883" };
    await expect(worker`select * from spsa_claim_batch(${name}, 2, 1e9, '{}')`).rejects.toMatchObject(NO_SUCH_FUNCTION);
    const [granted] = await worker<
      { id: number; lease: number }[]
    >`select batch_id::int as id, lease_seconds as lease from spsa_claim_batch(${name}, 2, '{}')`;
    expect(granted!.lease).toBe(120);
    await expect(
      worker`select * from spsa_heartbeat(${name}, 's', ${[granted!.id]}::bigint[], 1e9)`,
    ).rejects.toMatchObject(NO_SUCH_FUNCTION);
    await worker`select * from spsa_heartbeat(${name}, 's', ${[granted!.id]}::bigint[])`;
    const [row] = await database.sql<
      { within: boolean }[]
    >`select lease_expires_at < now() + interval '121 seconds' as within from spsa_batch where id = ${granted!.id}`;
    expect(row?.within).toBe(true);
  });

  it("stores no 10 MB host, name or note, no 30 MB PGN, and no more than 256 names per role", async () => {
    for (const identity of [
      { host: TEN_MB, name: `${machine}-h` },
      { host: "box", name: `${machine}-${TEN_MB}` },
    ]) {
      await expect(
        claimWorkerName(worker, { ...identity, sessionId: "h", pid: 1, concurrency: 1 }, () => false),
      ).rejects.toMatchObject(REFUSED);
    }
    await expect(worker`select spsa_record_worker(${name}, 's', null, ${TEN_MB}, null, null)`).rejects.toMatchObject(
      REFUSED,
    );
    await expect(
      claimWorkerName(
        worker,
        { name: `${machine}-esc`, sessionId: "e", host: "\u001b]52;c;cHduZWQ=\u0007", pid: 1, concurrency: 1 },
        () => false,
      ),
    ).rejects.toMatchObject(REFUSED);
    const { iteration } = await seedIteration(database.sql, { runName: "pgn", targetGames: 2 });
    const batch = await claimBatch(worker, name, 2);
    expect(batch?.iterationId).toBe(iteration.id);
    const report = {
      batchId: batch!.batchId,
      workerName: name,
      wins: 0,
      losses: 2,
      draws: 0,
      pairs: pairsOf(0, 2, 0),
      ...clean(),
    };
    expect(await reportBatch(worker, report)).toBe("accepted");
    const game = (pgn: string, reason = "crashed") =>
      worker.json([{ gameIndex: 0, side: "plus", fault: "crash", reason, pgn }]);
    await expect(
      worker`select spsa_keep_faulted_games(${batch!.batchId}, ${name}, ${game("x".repeat(30 * 1024 * 1024))})`,
    ).rejects.toMatchObject(REFUSED);
    await expect(
      worker`select spsa_keep_faulted_games(${batch!.batchId}, ${name}, ${game("1. e4 \u001b[2J", "x")})`,
    ).rejects.toMatchObject(REFUSED);
    await expect(
      worker`select spsa_keep_faulted_games(${batch!.batchId}, ${name}, ${worker.json(Array.from({ length: 3 }, (_, i) => ({ gameIndex: i, side: "plus", fault: "crash", reason: "r", pgn: "" })))})`,
    ).rejects.toMatchObject(REFUSED);
    const [kept] = await worker<
      { n: number }[]
    >`select spsa_keep_faulted_games(${batch!.batchId}, ${name}, ${game('[Event "x"]\n\n1. e4 *\n')}) as n`;
    expect(kept?.n).toBe(1);
    const [{ n: mine } = { n: 0 }] = await database.sql<
      { n: number }[]
    >`select count(*)::int as n from spsa_worker where login_role = ${`spsa_worker_${machine}`}`;
    for (let i = mine; i < 256; i++)
      await claimWorkerName(
        worker,
        { name: `${machine}-n${i}`, sessionId: "n", host: "box", pid: 1, concurrency: 1 },
        () => false,
      );
    await expect(
      claimWorkerName(
        worker,
        { name: `${machine}-one-too-many`, sessionId: "n", host: "box", pid: 1, concurrency: 1 },
        () => false,
      ),
    ).rejects.toMatchObject(REFUSED);
    const [{ n } = { n: 0 }] = await database.sql<
      { n: number }[]
    >`select count(*)::int as n from spsa_worker where login_role = ${`spsa_worker_${machine}`}`;
    expect(n).toBe(256);
  }, 60_000);

  it("on its stop, returns its own session's batches to the pool: not another role's, not after its name was taken over", async () => {
    const { iteration } = await seedIteration(database.sql, { runName: "stopping", targetGames: 8, batchSize: 2 });
    const other = await workerConnection(database, `${machine}o`);
    try {
      const otherName = `${machine}o-a`;
      await claimWorkerName(
        other.sql,
        { name: otherName, sessionId: "o", host: "box2", pid: 2, concurrency: 1 },
        () => false,
      );
      const theirs = await claimBatch(other.sql, otherName, 2);
      const mine = await claimBatch(worker, name, 2);
      expect([theirs?.iterationId, mine?.iterationId]).toEqual([iteration.id, iteration.id]);
      await expect(worker`select * from spsa_release_claims(${otherName}, 'o')`).rejects.toMatchObject({
        code: "42501",
      });
      await expect(worker`select * from spsa_release_claims(${name}, ${TEN_MB})`).rejects.toMatchObject(REFUSED);
      // A session that no longer holds the name (another process took it over) returns nothing.
      expect(await releaseClaims(worker, { name, sessionId: "an older process" })).toEqual({ batches: 0, games: 0 });
      // All it holds, the batches of earlier tests here included.
      const [held] = await database.sql<{ batches: number; games: number }[]>`
        select count(*)::int as batches, sum(games)::int as games from spsa_batch where worker_name = ${name} and status = 'claimed'`;
      expect(held!.batches).toBeGreaterThanOrEqual(1);
      expect(await releaseClaims(worker, { name, sessionId: "s" })).toEqual(held);
      const rows = await database.sql<
        { id: number; status: string }[]
      >`select id::int, status from spsa_batch where id in (${mine!.batchId}, ${theirs!.batchId}) order by id`;
      expect(Object.fromEntries(rows.map((row) => [row.id, row.status]))).toEqual({
        [mine!.batchId]: "expired",
        [theirs!.batchId]: "claimed",
      });
      // Its late report is refused, and its games are claimable again: the target still adds up.
      const late = {
        batchId: mine!.batchId,
        workerName: name,
        wins: 1,
        losses: 1,
        draws: 0,
        pairs: pairsOf(1, 1, 0),
        ...clean(),
      };
      expect(await reportBatch(worker, late)).toBe("refused");
      const [open] = await database.sql<
        { games: number }[]
      >`select coalesce(sum(games), 0)::int as games from spsa_batch where iteration_id = ${iteration.id} and status = 'open'`;
      expect(open?.games).toBe(6);
    } finally {
      await other.sql.end();
      await revokeWorkerLogin(database.sql, `${machine}o`);
    }
  });

  it("status prints an old row's control characters escaped (no screen clear, title or clipboard write)", async () => {
    await database.sql`insert into spsa_worker (name, host, concurrency, concurrency_note, login_role) values ('old-row', ${"\u001b]0;pwned\u0007\u001b[2J"}, 1, ${"\u001b]52;c;cHduZWQ=\u0007"}, 'nobody')`;
    // A worker of the run (its games counted in it), so the run's status lists its host and note.
    await database.sql`insert into spsa_run_worker (run_id, worker_name, batches, games, last_reported_at) select id, 'old-row', 1, 2, now() from spsa_run where name = 'faults'`;
    const status = await spsa(["status", "--name", "faults"], { env: { DATABASE_URL: database.url } });
    expect(status.exitCode, status.all).toBe(0);
    expect(status.stdout).not.toContain("\u001b");
    expect(status.stdout).toContain("\\x1b]0;pwned\\x07");
  });
});

describe("revoking a worker's role ends its claims and frees its names", () => {
  const database = useMigratedDatabase(2);
  const machine = `r${randomBytes(4).toString("hex")}`;

  it("returns the revoked role's batches to the pool at once; another role may then use its names", async () => {
    const hostile = (await workerConnection(database, machine)).sql;
    // The owner's functions behind revoking are not the worker's to call.
    for (const call of [
      "select * from spsa_release_role('spsa_worker_x')",
      "select * from spsa_reopen_claims(null)",
      "select spsa_lease(1)",
    ]) {
      await expect(hostile.unsafe(call)).rejects.toMatchObject({ code: "42501" });
    }
    const { iteration } = await seedIteration(database.sql, { runName: "revoked", targetGames: 4 });
    await claimWorkerName(
      hostile,
      { name: "box-4242", sessionId: "h", host: "box", pid: 4242, concurrency: 1 },
      () => false,
    );
    const [held] = await hostile<
      { id: number }[]
    >`select batch_id::int as id from spsa_claim_batch('box-4242', 4, '{}')`;
    expect(held).toBeDefined();
    await hostile.end();
    const revoked = await revokeWorkerLogin(database.sql, machine);
    expect(revoked.released).toBe(1);
    const [open] = await database.sql<
      { games: number }[]
    >`select coalesce(sum(games), 0)::int as games from spsa_batch where iteration_id = ${iteration.id} and status = 'open'`;
    expect(open?.games).toBe(4);
    // The honest worker of that host gets the name and the games.
    const honest = (await workerConnection(database, `${machine}x`)).sql;
    try {
      const claim = await claimWorkerName(
        honest,
        { name: "box-4242", sessionId: "ok", host: "box", pid: 4242, concurrency: 1 },
        () => false,
      );
      expect(claim.taken).toBe(false);
      for (
        let batch = await claimBatch(honest, "box-4242", 4);
        batch;
        batch = await claimBatch(honest, "box-4242", 4)
      ) {
        expect(
          await reportBatch(honest, {
            batchId: batch.batchId,
            workerName: "box-4242",
            wins: 1,
            losses: 1,
            draws: batch.games - 2,
            pairs: pairsOf(1, 1, batch.games - 2),
            ...clean(),
          }),
        ).toBe("accepted");
      }
      await foldIteration(database.sql, iteration.id);
      const [row] = await database.sql`select games_played from spsa_iteration where id = ${iteration.id}`;
      expect(row?.games_played).toBe(4);
    } finally {
      await honest.end();
      await revokeWorkerLogin(database.sql, `${machine}x`);
    }
  });
});

describe("every definer function, driven with random hostile arguments", () => {
  const database = useMigratedDatabase(2);
  const machine = `f${randomBytes(4).toString("hex")}`;

  it("leaves the run's invariants intact after each call, and honest workers finish it with exact counts", async () => {
    const { sql: hostile, role } = await workerConnection(database, machine);
    const name = `${machine}-fuzz`;
    await claimWorkerName(hostile, { name, sessionId: "f", host: "box", pid: 1, concurrency: 1 }, () => false);
    const { iteration } = await seedIteration(database.sql, { runName: "fuzzed", targetGames: 64, batchSize: 4 });
    const rng = createRng("worker-guest-fuzz");
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rng.next() * xs.length)]!;
    const numbers = [
      "'NaN'",
      "'Infinity'",
      "'-Infinity'",
      "1e308",
      "-1",
      "0",
      "1.5",
      "2147483647",
      "-2147483648",
      "2",
      "3",
      "4",
      "null",
    ];
    const texts = () =>
      pick([
        `'${"y".repeat(10 * 1024 * 1024)}'`,
        "''",
        `'${name}'`,
        "'master-box'",
        "null",
        "E'\\x1b[2J'",
        `'${"z".repeat(70)}'`,
      ]);
    const ids = async () => {
      const rows = await database.sql<{ id: number }[]>`select id::int from spsa_batch order by random() limit 1`;
      return pick([String(rows[0]?.id ?? 1), "-1", "null", "9999999"]);
    };
    const json = () =>
      pick([
        "'{\"plusCrashes\": 1.5}'",
        "'{\"plusCrashes\": -1}'",
        "'{\"plusCrashes\": 1e9}'",
        "'[]'",
        "'null'",
        "'{}'",
        "'{\"x\": 1}'",
        `'[{"gameIndex": 0, "side": "plus", "fault": "crash", "reason": "r", "pgn": "${"p".repeat(300000)}"}]'`,
      ]);
    const arrays = () =>
      pick(["'{0,0,1,0,0}'", "'{-1,0,0,0,0}'", "'{}'", "null", "'{0,0,2147483647,0,0}'", "'{0,0,0,0,1,1}'"]);
    const calls: (() => Promise<string>)[] = [
      async () =>
        `select * from spsa_claim_batch(${texts()}, ${pick(numbers)}::int, ${pick(["'{}'", "null", `'{${Array.from({ length: 5000 }, (_, i) => i).join(",")}}'`])}::int[])`,
      async () =>
        `select spsa_report_batch(${await ids()}, ${texts()}, ${pick(numbers)}::int, ${pick(numbers)}::int, ${pick(numbers)}::int, ${arrays()}::int[], ${json()}::jsonb, ${pick(numbers)}::int, ${pick(numbers)}::int, ${pick(["null", arrays()])}::int[])`,
      async () =>
        `select * from spsa_heartbeat(${texts()}, ${texts()}, ${pick(["'{}'", "null", "'{1,2,3}'"])}::bigint[])`,
      async () =>
        `select spsa_record_worker(${texts()}, ${texts()}, ${pick(numbers)}::int, ${texts()}, ${pick(numbers)}::float8, ${pick(numbers)}::float8)`,
      async () =>
        `select * from spsa_lock_worker_name(${texts()}, ${texts()}, ${pick(numbers)}::int, ${texts()}, ${pick(numbers)}::int, ${texts()})`,
      async () =>
        `select * from spsa_take_worker_name(${texts()}, ${texts()}, ${pick(numbers)}::int, ${texts()}, ${pick(numbers)}::int, ${texts()})`,
      async () => `select spsa_refuse_batch(${await ids()}, ${texts()})`,
      async () => `select spsa_keep_faulted_games(${await ids()}, ${texts()}, ${json()}::jsonb)`,
      async () => `select * from spsa_return_to_pool(${texts()})`,
      async () => `select * from spsa_release_claims(${texts()}, ${texts()})`,
      async () => `select * from spsa_claimed_batch(${pick([await ids(), ...numbers])}::bigint)`,
    ];
    const invariants = async () => {
      const [bad] = await database.sql<
        { batches: number; workers: number; leases: number; odd: number; sums: number }[]
      >`
        with done as (
          select b.*, coalesce(ref_plus_wins + ref_plus_draws + ref_plus_losses + ref_minus_wins + ref_minus_draws + ref_minus_losses, 0) as ref_games
          from spsa_batch b where b.status = 'done'
        )
        select
          (select count(*) from done d where d.games <> d.plus_wins + d.minus_wins + d.draws + d.ref_games
             or exists (select 1 from jsonb_each(d.faults) e where (e.value)::numeric <> trunc((e.value)::numeric) or (e.value)::numeric not between 0 and d.games))::int as batches,
          (select count(*) from spsa_worker w where w.login_role = ${role} and (w.concurrency not between 1 and 1024 or char_length(w.host) > 255
             or char_length(w.name) > 64 or w.host ~ '[[:cntrl:]]' or w.measured_nps = 'NaN' or w.time_factor = 'NaN'))::int as workers,
          (select count(*) from spsa_batch b where b.status = 'claimed' and b.lease_expires_at > now() + interval '1 day')::int as leases,
          -- Games come in pairs: however a claim asks, no batch holds an odd number of them.
          (select count(*) from spsa_batch b where b.iteration_id = ${iteration.id} and b.games % 2 <> 0)::int as odd,
          (select count(*) from spsa_iteration i where i.id = ${iteration.id} and i.target_games <>
             (select coalesce(sum(b.games), 0) from spsa_batch b where b.iteration_id = i.id and b.status in ('open', 'claimed', 'done')))::int as sums`;
      expect(bad).toEqual({ batches: 0, workers: 0, leases: 0, odd: 0, sums: 0 });
      await foldIteration(database.sql, iteration.id);
    };
    let refused = 0;
    for (let i = 0; i < 100; i++) {
      const statement = await pick(calls)();
      await hostile.unsafe(statement).catch(() => refused++);
      await invariants();
    }
    await hostile.end();
    expect(refused).toBeGreaterThan(30);
    // The hostile role's claims go with it; an honest worker plays the rest, and the counts are exact.
    await revokeWorkerLogin(database.sql, machine);
    await claimWorkerName(
      database.sql,
      { name: "honest", sessionId: "h", host: "box", pid: 1, concurrency: 1 },
      () => false,
    );
    for (
      let batch = await claimBatch(database.sql, "honest", 4);
      batch;
      batch = await claimBatch(database.sql, "honest", 4)
    ) {
      expect(
        await reportBatch(database.sql, {
          batchId: batch.batchId,
          workerName: "honest",
          wins: 0,
          losses: 0,
          draws: batch.games,
          pairs: pairsOf(0, 0, batch.games),
          ...clean(),
        }),
      ).toBe("accepted");
    }
    await expireLeases(database.sql);
    await foldIteration(database.sql, iteration.id);
    const [row] = await database.sql<{ played: number; sum: number }[]>`
      select i.games_played as played, (select sum(games)::int from spsa_batch b where b.iteration_id = i.id and b.status = 'done') as sum
      from spsa_iteration i where i.id = ${iteration.id}`;
    expect(row?.played).toBe(row?.sum);
    const status = await spsa(["status", "--name", "fuzzed"], { env: { DATABASE_URL: database.url } });
    expect(status.exitCode, status.all).toBe(0);
  }, 300_000);
});
