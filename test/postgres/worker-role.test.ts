import { randomBytes } from "node:crypto";
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claimBatch, heartbeat, refuseBatch, reportBatch } from "../../src/db/batches.js";
import { foldIteration } from "../../src/db/fold.js";
import { connect } from "../../src/postgres/connection.js";
import { embeddedEndpoint, embeddedServer } from "../../src/postgres/embedded.js";
import { insertOptionRun } from "../../src/db/option-run.js";
import { issueWorkerLogin, revokeWorkerLogin } from "../../src/postgres/worker-role.js";
import { claimWorkerName } from "../../src/db/workers.js";
import { applyReports } from "../../src/master/apply-reports.js";
import { topUpDraws } from "../../src/master/draw-pool.js";
import { compete, spsa } from "../support/cli.js";
import { useMigratedDatabase } from "../support/database.js";
import { clean, registerTestWorker, seedIteration } from "../support/iterations.js";

/** Permission denied (SQLSTATE 42501): what every refused statement of the role must end in. */
const DENIED = { code: "42501" };

/**
 * `spsa db worker-url` on the real embedded server, and what its role can and cannot do. Every
 * refusal is its own test, so a grant made too wide fails the test of what it lets through.
 */
describe("spsa db worker-url: a worker machine's database role", () => {
  const database = useMigratedDatabase(4);
  const machine = `t${randomBytes(4).toString("hex")}`;
  const dir = mkdtempSync(join(tmpdir(), "spsa-worker-role-"));
  const urlFile = join(dir, "worker-url");
  let firstUrl = "";
  let worker: postgres.Sql;
  const env = () => ({ DATABASE_URL: database.url });

  beforeAll(async () => {
    const first = await spsa(["db", "worker-url", "--name", machine, "--output", urlFile], { env: env() });
    expect(first.exitCode, first.all).toBe(0);
    firstUrl = readFileSync(urlFile, "utf8").trim();
    worker = connect(firstUrl, 2);
    await seedIteration(database.sql, { runName: "guarded", targetGames: 8 });
  }, 60_000);
  afterAll(async () => {
    await worker?.end();
    await spsa(["db", "worker-url", "--name", machine, "--revoke"], { env: env() });
    rmSync(dir, { recursive: true, force: true });
  });

  it("writes the URL to a file created 0600, prints no password, and stores only a SCRAM verifier", async () => {
    expect(statSync(urlFile).mode & 0o777).toBe(0o600);
    const url = new URL(firstUrl);
    expect(url.username).toBe(`spsa_worker_${machine}`);
    expect(url.password.length).toBeGreaterThanOrEqual(40);
    const [row] = await database.sql<
      { verifier: string }[]
    >`select rolpassword as verifier from pg_authid where rolname = ${url.username}`;
    expect(row?.verifier).toMatch(/^SCRAM-SHA-256\$4096:/);
    expect(row?.verifier).not.toContain(url.password);
  });

  it("connects as a login role that is no superuser and holds no role beyond spsa_workers", async () => {
    const [me] = await worker<{ rolsuper: boolean; createrole: boolean; createdb: boolean; bypassrls: boolean }[]>`
      select rolsuper, rolcreaterole as createrole, rolcreatedb as createdb, rolbypassrls as bypassrls from pg_roles where rolname = current_user`;
    expect(me).toEqual({ rolsuper: false, createrole: false, createdb: false, bypassrls: false });
    const roles = await worker<{ rolname: string }[]>`
      select g.rolname from pg_auth_members m join pg_roles g on g.oid = m.roleid join pg_roles r on r.oid = m.member where r.rolname = current_user`;
    expect(roles.map((r) => r.rolname)).toEqual(["spsa_workers"]);
  });

  it("cannot run a shell command on the database host (COPY … FROM PROGRAM)", async () => {
    await expect(worker.unsafe("create temp table pwn (line text); copy pwn from program 'id'")).rejects.toMatchObject(
      DENIED,
    );
  });

  it("cannot create a table", async () => {
    await expect(worker`create table public.planted (id int)`).rejects.toMatchObject(DENIED);
  });

  it("cannot alter or replace a function it calls", async () => {
    await expect(worker`alter function spsa_claim_batch(text, int, int[]) security invoker`).rejects.toMatchObject(
      DENIED,
    );
    await expect(
      worker.unsafe("create or replace function spsa_own_worker(p_name text) returns void language sql as 'select'"),
    ).rejects.toMatchObject(DENIED);
  });

  it("cannot update spsa_run (stop or complete a run, or end it early)", async () => {
    await expect(worker`update spsa_run set status = 'stopped'`).rejects.toMatchObject(DENIED);
    // A master resumes a run at the early end it finds recorded: a planted one would cut the run short.
    await expect(worker`update spsa_run set ended_early_at = 1`).rejects.toMatchObject(DENIED);
    await expect(worker`select ended_early_at from spsa_run`).rejects.toMatchObject(DENIED);
  });

  it("cannot change θ: not directly, and no function it may call writes spsa_run", async () => {
    await expect(worker`update spsa_run set current_parameters = '{"X": 99}'`).rejects.toMatchObject(DENIED);
    const writers = await database.sql<{ name: string }[]>`
      select proname as name from pg_proc
      where prosrc ilike '%update spsa_run%' and has_function_privilege('spsa_workers', oid, 'execute')`;
    expect(writers).toEqual([]);
    const [run] = await database.sql<
      { theta: unknown }[]
    >`select current_parameters as theta from spsa_run where name = 'guarded'`;
    expect(run?.theta).toEqual({ X: 1 });
  });

  it("cannot write a verdict or a transfer: no privilege on the ship check, none to change a verification, no function it may call writes either", async () => {
    await expect(worker`update spsa_ship_check set verdict = 'pass'`).rejects.toMatchObject(DENIED);
    await expect(
      worker`insert into spsa_ship_check (run_id, limits, sprt, max_games, elimination_games, candidates) values (1, '{}', '{}', 2, 0, '[]')`,
    ).rejects.toMatchObject(DENIED);
    await expect(worker`select verdict from spsa_ship_check`).rejects.toMatchObject(DENIED);
    await expect(worker`update spsa_verification set verdict = 'H1'`).rejects.toMatchObject(DENIED);
    // Transfer in the run: a transfer is a verification naming its iteration; the worker can neither queue, move nor read one.
    await expect(worker`update spsa_verification set transfer_iteration_id = null`).rejects.toMatchObject(DENIED);
    await expect(worker`select transfer_iteration_id from spsa_verification`).rejects.toMatchObject(DENIED);
    const writers = await database.sql<{ name: string }[]>`
      select proname as name from pg_proc
      where (prosrc ilike '%spsa_ship_check%' or prosrc ilike '%update spsa_verification%') and has_function_privilege('spsa_workers', oid, 'execute')`;
    expect(writers).toEqual([]);
  });

  it("reads what it plays with: iterations, binaries, option runs", async () => {
    await database.sql`insert into spsa_binary (sha256, size, content) values ('readable', 1, '\\x01') on conflict do nothing`;
    expect(await worker`select size from spsa_binary where sha256 = 'readable'`).toEqual([{ size: 1 }]);
    const [iteration] = await worker<{ target: number }[]>`select target_games as target from spsa_iteration`;
    expect(iteration?.target).toBe(8);
    expect(await worker`select count(*)::int as n from spsa_option_run`).toEqual([{ n: 0 }]);
  });

  it("cannot read a run's config (which may name a database URL)", async () => {
    await expect(worker`select config from spsa_run`).rejects.toMatchObject(DENIED);
    const [run] = await worker<{ name: string }[]>`select name, status, seed from spsa_run`;
    expect(run?.name).toBe("guarded");
  });

  it("cannot change an iteration's settings, target or binaries, nor add an iteration", async () => {
    await expect(worker`update spsa_iteration set settings = '{}'`).rejects.toMatchObject(DENIED);
    await expect(
      worker`update spsa_iteration set target_games = 1000000, plus_engine_sha256 = 'x'`,
    ).rejects.toMatchObject(DENIED);
    await expect(
      worker`update spsa_iteration set games_played = games_played + 2, plus_wins = plus_wins + 2`,
    ).rejects.toMatchObject(DENIED);
    await expect(worker`insert into spsa_iteration (run_id, iteration_number, plus_engine_path, minus_engine_path, plus_engine_sha256,
      minus_engine_sha256, timelow_ms, timehigh_ms) select id, 99, '/x', '/x', 'x', 'x', 1, 1 from spsa_run`).rejects.toMatchObject(
      DENIED,
    );
  });

  it("cannot insert or update a binary", async () => {
    await expect(
      worker`insert into spsa_binary (sha256, size, content) values ('planted', 1, '\\x00')`,
    ).rejects.toMatchObject(DENIED);
    await expect(worker`update spsa_binary set content = '\\x00'`).rejects.toMatchObject(DENIED);
  });

  it("cannot touch another worker's row, name or batches", async () => {
    await registerTestWorker(database.sql, "master-box");
    const theirs = await claimBatch(database.sql, "master-box", 2);
    expect(theirs).toBeDefined();
    await expect(worker`update spsa_worker set games_played = 0 where name = 'master-box'`).rejects.toMatchObject(
      DENIED,
    );
    await expect(worker`delete from spsa_worker where name = 'master-box'`).rejects.toMatchObject(DENIED);
    // Through the functions every worker runs: the name was registered by another login role.
    const identity = { name: "master-box", sessionId: "intruder", host: "evil", pid: null, concurrency: 1 };
    await expect(claimWorkerName(worker, identity, () => false)).rejects.toMatchObject({
      ...DENIED,
      message: expect.stringContaining("belongs to database role"),
    });
    await expect(claimBatch(worker, "master-box", 2)).rejects.toMatchObject(DENIED);
    expect(await heartbeat(worker, { name: "master-box", sessionId: "master-box" }, [theirs!.batchId])).toEqual({
      held: [],
      ownsName: false,
    });
    const report = {
      batchId: theirs!.batchId,
      workerName: "master-box",
      wins: 2,
      losses: 0,
      draws: 0,
      pairs: [0, 0, 0, 0, 1] as const,
      ...clean(),
    };
    await expect(
      reportBatch(worker, { ...report, pairs: [...report.pairs] as [number, number, number, number, number] }),
    ).rejects.toMatchObject(DENIED);
    await expect(worker`select * from spsa_return_to_pool('master-box')`).rejects.toMatchObject(DENIED);
    // Nor read what the batch is: the claim's own read of a batch is for a batch of its own names only.
    await expect(worker`select * from spsa_claimed_batch(${theirs!.batchId})`).rejects.toMatchObject({
      ...DENIED,
      message: expect.stringContaining("is not claimed by a worker name of database role"),
    });
    const [row] = await database.sql<{ host: string; status: string }[]>`
      select w.host, b.status from spsa_worker w join spsa_batch b on b.worker_name = w.name where w.name = 'master-box'`;
    expect(row).toEqual({ host: "test", status: "claimed" });
    // A real worker process given that name stops with one line, before any game.
    const intruder = await compete(["--spsa", "-c", "1", "--name", "master-box", "--games", "2"], {
      env: { DATABASE_URL: firstUrl },
    });
    expect(intruder.exitCode, intruder.all).toBe(2);
    expect(intruder.stderr).toContain('--name: worker name "master-box" belongs to database role');
  }, 60_000);

  it("claims and reports under its own name, once, never beyond its claim", async () => {
    const name = `${machine}-1`;
    const claim = await claimWorkerName(
      worker,
      { name, sessionId: "s1", host: "box", pid: 1, concurrency: 1 },
      () => false,
    );
    expect(claim.taken).toBe(false);
    const batch = await claimBatch(worker, name, 2);
    expect(batch?.games).toBe(2);
    const report = {
      batchId: batch!.batchId,
      workerName: name,
      wins: 1,
      losses: 0,
      draws: 1,
      pairs: [0, 0, 0, 1, 0] as [number, number, number, number, number],
      ...clean(),
    };
    await expect(reportBatch(worker, { ...report, wins: 40 })).rejects.toThrow(
      `batch ${batch!.batchId} has 2 games, the report has 41`,
    );
    // Its batch while it holds it; once reported, nothing more (not whether the master took or held it).
    const own = () => worker<{ gamesBefore: number }[]>`
      select games_before as "gamesBefore" from spsa_claimed_batch(${batch!.batchId})`;
    expect((await own())[0]?.gamesBefore).toBe(batch!.firstGame);
    expect(await reportBatch(worker, report)).toBe("accepted");
    await expect(own()).rejects.toMatchObject(DENIED);
    expect(await reportBatch(worker, report)).toBe("duplicate");
    await foldIteration(database.sql, batch!.iterationId);
    const [iteration] = await database.sql<{ played: number; wins: number }[]>`
      select games_played as played, plus_wins as wins from spsa_iteration where id = ${batch!.iterationId}`;
    expect(iteration).toEqual({ played: 2, wins: 1 });
    const [mine] = await database.sql<
      { role: string }[]
    >`select login_role as role from spsa_worker where name = ${name}`;
    expect(mine?.role).toBe(`spsa_worker_${machine}`);
  });

  it("counts a refusal of its own batch's binaries once, and cannot refuse another worker's batch", async () => {
    const name = `${machine}-2`;
    await claimWorkerName(worker, { name, sessionId: "s2", host: "box", pid: 2, concurrency: 1 }, () => false);
    const batch = await claimBatch(worker, name, 2);
    const refused = async () => {
      await foldIteration(database.sql, batch!.iterationId);
      const [row] = await database.sql<
        { n: number }[]
      >`select binaries_refused as n from spsa_iteration where id = ${batch!.iterationId}`;
      return row?.n;
    };
    await refuseBatch(worker, batch!.batchId, name);
    await refuseBatch(worker, batch!.batchId, name);
    expect(await refused()).toBe(1);
    const [theirs] = await database.sql<
      { id: number }[]
    >`select id::int from spsa_batch where worker_name = 'master-box' and status = 'claimed'`;
    await expect(refuseBatch(worker, theirs!.id, "master-box")).rejects.toMatchObject(DENIED);
    expect(await refused()).toBe(1);
  });

  it("a second run prints the URL alone on stdout with a new password; the old URL no longer connects", async () => {
    const second = await spsa(["db", "worker-url", "--name", machine, "--host", "10.1.2.3"], { env: env() });
    expect(second.exitCode, second.all).toBe(0);
    const lines = second.stdout.trim().split("\n");
    expect(lines).toHaveLength(1);
    const url = new URL(lines[0]!);
    expect(url.hostname).toBe("10.1.2.3");
    expect(url.password).not.toBe(new URL(firstUrl).password);
    expect(second.stderr).not.toContain(url.password);
    const stale = connect(firstUrl, 1);
    await expect(stale`select 1`).rejects.toMatchObject({ code: "28P01" });
    await stale.end();
    // The same server through this machine's socket, with the new password.
    const local = new URL(firstUrl);
    local.password = url.password;
    const fresh = connect(local.href, 1);
    expect(await fresh`select current_user as me`).toEqual([{ me: `spsa_worker_${machine}` }]);
    await fresh.end();
  });
});

describe("the worker role in UCI-option mode", () => {
  const database = useMigratedDatabase(2);
  const machine = `u${randomBytes(4).toString("hex")}`;
  let worker: postgres.Sql;
  beforeAll(async () => {
    const { role, password } = await issueWorkerLogin(database.sql, machine);
    const url = new URL(database.url);
    url.username = role;
    url.password = password;
    worker = connect(url.href, 1);
  });
  afterAll(async () => {
    await worker?.end();
    await revokeWorkerLogin(database.sql, machine);
  });

  it("claims a batch the master drew, reads its draw, writes none, and reports results only; the master moves θ by it once", async () => {
    const { run, iteration } = await seedIteration(database.sql, {
      runName: "opt",
      targetGames: 4,
      openBatches: false,
    });
    const parameters = {
      X: { min: 0, max: 10, step: 1, type: "int" as const, frozen: false, option: "X", optionScale: undefined },
    };
    const gains = { a: 1, c: 1, A: 1, alpha: 0.602, gamma: 0.101, maxIterations: 1 };
    const optionRun = {
      runId: run.id,
      iterationId: iteration.id,
      enginePath: "/x",
      engineSha256: "x",
      parameters,
      names: ["X"],
      thetaEvery: 1,
      gains,
      gamesPerIteration: 4,
      parametersSignature: null,
    };
    await insertOptionRun(database.sql, optionRun);
    const name = `${machine}-1`;
    await claimWorkerName(worker, { name, sessionId: "s", host: "box", pid: 1, concurrency: 1 }, () => false);
    expect(await claimBatch(worker, name, 2)).toBeUndefined();
    expect(await topUpDraws(database.sql, { ...optionRun, seed: run.seed }, 4, 2)).toBe(2);
    const batch = await claimBatch(worker, name, 2);
    // Stored in the run's order (["X"]), read by name.
    const [drawn] = await database.sql<
      { plus: [number] }[]
    >`select plus_parameters as plus from spsa_perturbation where batch_id = ${batch!.batchId}`;
    expect(batch?.optionDraw?.plus).toEqual({ X: drawn!.plus[0] });
    await expect(
      worker`update spsa_perturbation set a_k = 'NaN' where batch_id = ${batch!.batchId}`,
    ).rejects.toMatchObject(DENIED);
    await expect(worker`insert into spsa_perturbation (batch_id, run_id, batch_number, draw_number, games, k, c_k, a_k, drawn_from, signs, plus_parameters, minus_parameters)
      values (${batch!.batchId}, ${run.id}, 999, 999, 2, 1, 1, 1e6, 0, '1', '{}', '{}')`).rejects.toMatchObject(DENIED);
    const writers = await database.sql<{ name: string }[]>`
      select proname as name from pg_proc where prosrc ilike '%spsa_perturbation (%' and has_function_privilege('spsa_workers', oid, 'execute')`;
    expect(writers).toEqual([]);
    expect(
      await reportBatch(worker, {
        batchId: batch!.batchId,
        workerName: name,
        wins: 2,
        losses: 0,
        draws: 0,
        pairs: [0, 0, 0, 0, 1],
        ...clean(),
      }),
    ).toBe("accepted");
    const theta = async () =>
      (
        await database.sql<
          { theta: Record<string, number> }[]
        >`select current_parameters as theta from spsa_run where id = ${run.id}`
      )[0]?.theta;
    expect(await theta()).toEqual({ X: 1 });
    expect(await applyReports(database.sql, run.id)).toBe(1);
    const moved = await theta();
    // Toward the plus engine, which won both games.
    expect(Math.sign(moved!.X! - 1)).toBe(Math.sign(drawn!.plus[0] - 1));
    expect(await applyReports(database.sql, run.id)).toBe(0);
    expect(await theta()).toEqual(moved);
    const [applied] =
      await database.sql`select applied_number, drawn_from, theta_after, plus_parameters from spsa_perturbation where batch_id = ${batch!.batchId}`;
    expect(applied).toEqual({ applied_number: 1, drawn_from: 0, theta_after: [moved!.X], plus_parameters: null });
  });
});

describe("spsa db worker-url on the embedded server", () => {
  const home = mkdtempSync(join(tmpdir(), "spsa-home-"));
  const env = { SPSA_HOME: home, DATABASE_URL: "" };
  afterAll(async () => {
    await spsa(["db", "stop"], { env });
    const server = embeddedServer(home);
    if (server.outsideHome) rmSync(server.serverDir, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  });

  it("says how to open TCP while the server is on its socket only, then names the address it listens on", async () => {
    chmodSync(home, 0o755);
    const before = await spsa(["db", "worker-url", "--name", "box1"], { env });
    expect(before.exitCode, before.all).toBe(0);
    expect(before.stderr).toContain("listens on its Unix socket only: run `spsa db start --listen ADDR`");
    expect(new URL(before.stdout.trim()).searchParams.get("host")).toBeNull();

    const start = await spsa(["db", "start", "--listen", "127.0.0.1"], { env });
    expect(start.exitCode, start.all).toBe(0);
    const after = await spsa(["db", "worker-url", "--name", "box1"], { env });
    expect(after.exitCode, after.all).toBe(0);
    expect(after.stderr).not.toContain("--listen");
    const url = new URL(after.stdout.trim());
    expect(url.hostname).toBe("127.0.0.1");
    expect(Number(url.port)).toBe(embeddedEndpoint(embeddedServer(home)).port);
    const sql = connect(url.href, 1);
    expect(await sql`select current_user as me`).toEqual([{ me: "spsa_worker_box1" }]);
    await sql.end();
  }, 120_000);
});
