import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { connect } from "../../src/postgres/connection.js";
import { spsa } from "../support/cli.js";
import { expectConsistentRun, perturbationsOf } from "../support/options-run.js";
import { expectExactCounts, iterationsOf, startMaster, startWorker } from "../support/processes.js";
import { useRunFixture, type RunFixture } from "../support/run-fixture.js";

/**
 * Runs the master with the owner's URL and one worker with a worker URL of its own until the
 * master finishes, then tries with that URL to read what the role must not (expectHiddenFrom);
 * returns the worker machine's name. Revokes the role afterwards.
 */
async function runWithWorkerUrl(fixture: RunFixture, runName: string): Promise<string> {
  const machine = `m${randomBytes(4).toString("hex")}`;
  const issued = await spsa(["db", "worker-url", "--name", machine], { env: fixture.env });
  expect(issued.exitCode, issued.all).toBe(0);
  const worker = startWorker(fixture.setup, { DATABASE_URL: issued.stdout.trim() }, `${machine}-w`);
  const master = await startMaster(fixture.setup, fixture.env, runName, ["--seed", "s"]);
  worker.kill("SIGTERM");
  const workerOutput = (await worker).all;
  expect(master.exitCode, `${master.all}\n${workerOutput}`).toBe(0);
  await expectHiddenFrom(fixture, issued.stdout.trim(), `${machine}-w`);
  const revoked = await spsa(["db", "worker-url", "--name", machine, "--revoke"], { env: fixture.env });
  expect(revoked.exitCode, revoked.all).toBe(0);
  return machine;
}

/** What a worker role reads of other machines and of the master's evidence: nothing (SQLSTATE 42501). */
const HIDDEN = [
  "select host, pid, session_id from spsa_worker",
  "select * from spsa_worker",
  "select name, login_role from spsa_worker",
  "select held_at from spsa_batch",
  "select * from spsa_batch",
  "select worker_name, status, pairs, undo_id from spsa_batch",
  "select * from spsa_perturbation",
  "select worker_name, applied_number, plus_parameters from spsa_perturbation",
  "select theta_applied from spsa_option_run",
  "select * from spsa_option_run",
  "select * from spsa_iteration",
  "select games_played, plus_wins, binaries_refused, theta_after from spsa_iteration",
  "select current_parameters, master_host, master_pid from spsa_run",
];

/**
 * The attack, with the URL the worker just played with: every statement of HIDDEN is refused, while
 * the rows are there for the owner (its worker's host and pid, its done batches).
 */
async function expectHiddenFrom(fixture: RunFixture, url: string, name: string): Promise<void> {
  const [row] = await fixture.sql<{ host: string; pid: number | null; done: number }[]>`
    select w.host, w.pid, (select count(*)::int from spsa_batch b where b.worker_name = w.name and b.status = 'done') as done
    from spsa_worker w where w.name = ${name}`;
  expect(row?.host).toBeTruthy();
  expect(row?.pid).toBeGreaterThan(0);
  expect(row?.done).toBeGreaterThan(0);
  const guest = connect(url, 1);
  try {
    for (const statement of HIDDEN)
      await expect(guest.unsafe(statement), statement).rejects.toMatchObject({ code: "42501" });
    // What it plays with stays readable.
    const [iteration] = await guest<{ n: number }[]>`select count(target_games)::int as n from spsa_iteration`;
    expect(iteration?.n).toBeGreaterThan(0);
  } finally {
    await guest.end();
  }
}

/**
 * A worker machine given only its URL from `spsa db worker-url` plays real games with the
 * sample engine for a real master (which holds the owner's URL), in both modes.
 */
describe("a worker with only its worker URL", () => {
  const build = useRunFixture({ iterations: 1, games: 4, batchSize: 2, moveLimit: "nodes = 500" });
  // Two iterations of one unit of four games: the first is the curvature pilot's (θ± against θ₀'s options).
  const options = useRunFixture({
    iterations: 2,
    games: 4,
    batchSize: 4,
    mode: "options",
    moveLimit: "nodes = 500",
  });

  it("plays and reports a build-mode iteration that the master completes", async () => {
    const machine = await runWithWorkerUrl(build, "guarded-build");
    const rows = await iterationsOf(build.sql, "guarded-build");
    expect(rows).toHaveLength(1);
    expectExactCounts(rows, expect);
    const batches = await build.sql<{ worker_name: string; role: string }[]>`
      select distinct b.worker_name, w.login_role as role from spsa_batch b join spsa_worker w on w.name = b.worker_name where b.status = 'done'`;
    expect(batches).toEqual([{ worker_name: `${machine}-w`, role: `spsa_worker_${machine}` }]);
  }, 300_000);

  it("plays and reports UCI-option batches, the curvature pilot's too, each moving θ once within its bounds", async () => {
    const machine = await runWithWorkerUrl(options, "guarded-uci");
    expectExactCounts(await iterationsOf(options.sql, "guarded-uci"), expect);
    const perturbations = await perturbationsOf(options.sql, "guarded-uci");
    expect(perturbations.filter((p) => p.status === "done").reduce((n, p) => n + p.games, 0)).toBe(8);
    expect(
      perturbations.filter((p) => p.status === "done" && p.reference_parameters !== null).map((p) => p.games),
    ).toEqual([4]);
    expect(new Set(perturbations.map((p) => p.worker_name))).toEqual(new Set([`${machine}-w`]));
    await expectConsistentRun(options.sql, "guarded-uci", "s");
  }, 300_000);
});
