import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { loadParams } from "../../src/params/params.js";
import { replayAppliedChain } from "../../src/spsa/option-chain.js";
import { readAppliedChain } from "../../src/db/applied-chain.js";
import type { Values } from "../../src/types/spsa.js";
import { ROOT, spsa } from "../support/cli.js";
import { startMaster, startWorker, waitFor } from "../support/processes.js";
import { useRunFixture, type RunFixture } from "../support/run-fixture.js";
import { stepScales } from "../../src/spsa/adaptive.js";
import { pilotScales } from "../../src/spsa/pilot.js";
import { recordedOutcome, recordedStep, type RecordedIteration } from "../support/replay-chain.js";

/**
 * A real run with a real liar (docs/bad-workers.md): the master and an honest `compete --spsa`
 * with the owner's URL, and test/support/liar-worker.ts, a process with a worker machine's own
 * URL that reports every batch won by whichever side pushed KNIGHT_VALUE_MG up, on at most half
 * of the games (LIAR_SHARE). The master names it and holds its batches, those θ held too (θ
 * recomputed without them); an operator rejects it with the CLI while the master runs; the run
 * ends on θ that the rows replay without the liar.
 */
async function runWithLiar(
  fixture: RunFixture,
  runName: string,
  share: number,
): Promise<{ statusWhileSuspect: string; master: string }> {
  const machine = `l${randomBytes(4).toString("hex")}`;
  const issued = await spsa(["db", "worker-url", "--name", machine], { env: fixture.env });
  expect(issued.exitCode, issued.all).toBe(0);
  const liar = execa(
    join(ROOT, "node_modules/.bin/tsx"),
    [
      "test/support/liar-worker.ts",
      "--name",
      "liar",
      "--kind",
      "targeted",
      "--target",
      "KNIGHT_VALUE_MG",
      "--share",
      String(share),
      "--idle-ms",
      "30000",
    ],
    {
      cwd: ROOT,
      env: { DATABASE_URL: issued.stdout.trim() },
      reject: false,
      all: true,
    },
  );
  let honest: ReturnType<typeof startWorker> | undefined;
  let master: ReturnType<typeof startMaster> | undefined;
  try {
    // The liar is there from the start (tsx takes a few seconds to start it).
    await waitFor(
      async () =>
        liar.exitCode !== null || (await fixture.sql`select 1 from spsa_worker where name = 'liar'`).length > 0,
      120_000,
      "the liar to register",
    );
    if (liar.exitCode !== null) throw new Error(`the liar exited: ${(await liar).all}`);
    honest = startWorker(fixture.setup, fixture.env, "honest");
    master = startMaster(fixture.setup, fixture.env, runName, ["--seed", "s"]);
    let ended = false;
    void master.then(() => (ended = true));
    const named = async () =>
      (await fixture.sql`select 1 from spsa_worker_decision where worker_name = 'liar' and decision = 'suspect'`)
        .length > 0;
    await waitFor(async () => ended || (await named()), 600_000, "the master to name the liar");
    if (!(await named())) {
      liar.kill("SIGTERM");
      throw new Error(`the run ended without naming the liar:\n${(await master).all}\n--- liar:\n${(await liar).all}`);
    }
    const status = await spsa(["--config", fixture.setup.configFile, "status", "--name", runName], {
      env: fixture.env,
    });
    expect(status.exitCode, status.all).toBe(0);
    const rejected = await spsa(
      [
        "--config",
        fixture.setup.configFile,
        "workers",
        "reject",
        "liar",
        "--name",
        runName,
        "--note",
        "lies about KNIGHT_VALUE_MG",
      ],
      { env: fixture.env },
    );
    expect(rejected.exitCode, rejected.all).toBe(0);
    expect(rejected.stdout).toMatch(/worker liar rejected by .+ \(was suspect since .+\)/);
    const done = await master;
    expect(done.exitCode, done.all).toBe(0);
    return { statusWhileSuspect: status.stdout, master: done.all ?? "" };
  } finally {
    for (const child of [honest, liar, master]) child?.kill("SIGTERM");
    await Promise.all([honest, liar, master]);
    await spsa(["db", "worker-url", "--name", machine, "--revoke"], { env: fixture.env });
  }
}

/** What every run must show: the liar named within 50 of its batches, both decisions recorded, nothing of it in θ. */
async function expectLiarCaught(
  fixture: RunFixture,
  runName: string,
  out: { statusWhileSuspect: string; master: string },
) {
  expect(out.statusWhileSuspect).toMatch(/^suspect worker liar: .+/m);
  expect(out.master).toMatch(/^suspect worker liar: /m);
  // Named after some of its batches moved θ (in build mode its batches of the iterations stepped before).
  expect(out.master).toMatch(
    /^\d+ batches \(\d+ games\) that θ held of liar taken out of it: θ recomputed without them/m,
  );
  const decisions = await fixture.sql<{ decision: string; decided_by: string; batches: number }[]>`
    select d.decision, d.decided_by, (d.evidence->>'batches')::int as batches from spsa_worker_decision d join spsa_run r on r.id = d.run_id
    where r.name = ${runName} and d.worker_name = 'liar' order by d.id`;
  expect(decisions.map((d) => d.decision)).toEqual(["suspect", "rejected"]);
  expect(decisions[0]!.batches).toBeLessThanOrEqual(50);
  expect(decisions[0]!.decided_by).toMatch(/^master \(pid \d+ on .+\)/);
  // Every batch of the liar that a fold took is held: none of them is in a counter or in θ.
  // (A report that came after the run's last fold is never folded: the liar plays until the master ends.)
  const [left] = await fixture.sql<{ n: number }[]>`
    select count(*)::int as n from spsa_batch b join spsa_iteration i on i.id = b.iteration_id join spsa_run r on r.id = i.run_id
    where r.name = ${runName} and b.worker_name = 'liar' and b.status = 'done' and b.folded and b.held_at is null and b.undo_id is null`;
  expect(left!.n).toBe(0);
  // Each iteration's counters are its folded, counted batches' sums.
  const counters = await fixture.sql<{ played: number; batches: number }[]>`
    select i.games_played as played, (select coalesce(sum(games), 0)::int from spsa_batch b where b.iteration_id = i.id and b.status = 'done' and b.folded and b.held_at is null and b.undo_id is null) as batches
    from spsa_iteration i join spsa_run r on r.id = i.run_id where r.name = ${runName}`;
  for (const c of counters) expect(c.played).toBe(c.batches);
  const [run] = await fixture.sql<
    { theta: Values; status: string }[]
  >`select current_parameters as theta, status from spsa_run where name = ${runName}`;
  expect(run!.status).toBe("complete");
  const written = Object.fromEntries(loadParams(fixture.setup.paramsFile).map((p) => [p.name, p.value]));
  expect(written).toEqual(run!.theta);
  return run!.theta;
}

const OPTION_ITERATIONS = 16;
const BUILD_ITERATIONS = 11;
const LIAR_SHARE = 0.5;

describe("a liar worker on a real run, caught and held, what it moved taken out of θ", () => {
  // The liar takes up to half the games, so it is named early and the runs can be short (they are
  // the suite's largest): in UCI-option mode after about 5 of its batches (some 40 of the run's
  // 256 games), in build mode after about 18 (iteration 8 of 11). With a fifth of the games it
  // took 480 games and 14 iterations to be named and rejected while the run still played.
  const options = useRunFixture({
    iterations: OPTION_ITERATIONS,
    games: 16,
    batchSize: 8,
    mode: "options",
    moveLimit: "nodes = 500",
  });
  const build = useRunFixture({ iterations: BUILD_ITERATIONS, games: 16, batchSize: 4, moveLimit: "nodes = 500" });

  it("UCI-option mode: named and held, its applied batches too, and rejected while the master runs; θ is the chain of the others' batches", async () => {
    const out = await runWithLiar(options, "liar-uci", LIAR_SHARE);
    const theta = await expectLiarCaught(options, "liar-uci", out);
    // The chain of applied batches holds only the honest worker's, and replayed from θ₀ (each its own draw and result with the adaptive scale of those before it) it gives the run's θ.
    const [run] = await options.sql<{ id: number }[]>`select id from spsa_run where name = 'liar-uci'`;
    const rows = await options.sql<{ games: number; worker_name: string }[]>`
      select games, worker_name from spsa_perturbation where run_id = ${run!.id} and applied_number is not null order by applied_number`;
    expect(new Set(rows.map((r) => r.worker_name))).toEqual(new Set(["honest"]));
    const chain = await readAppliedChain(options.sql, run!.id);
    expect(replayAppliedChain(chain.run, chain.start, chain.batches)).toEqual(theta);
    // With the curvature pilot's games and the gain blocks' (both against θ₀: counted, never applied): every game of the run once.
    const [pilot] = await options.sql<{ games: number }[]>`
      select coalesce(sum(b.games), 0)::int as games from spsa_perturbation p join spsa_batch b on b.id = p.batch_id
      where p.run_id = ${run!.id} and p.reference_parameters is not null and b.status = 'done' and b.held_at is null and b.undo_id is null`;
    expect(rows.reduce((n, r) => n + r.games, 0) + (pilot?.games ?? 0)).toBe(OPTION_ITERATIONS * 16);
  }, 900_000);

  it("build mode: named and held, its batches of stepped iterations too, and rejected while the master runs; θ is the iterations' steps without its batches", async () => {
    const out = await runWithLiar(build, "liar-build", LIAR_SHARE);
    const theta = await expectLiarCaught(build, "liar-build", out);
    // Every completed iteration's step from its recorded row and counters, in order from θ₀: the run's θ.
    const [run] = await build.sql<
      { id: number; initial: Values }[]
    >`select id, initial_parameters as initial from spsa_run where name = 'liar-build'`;
    const rows = await build.sql<
      (RecordedIteration & { number: number; elo: number; base_parameters: Values; theta_after: Values })[]
    >`
      select iteration_number as number, elo_diff as elo, a_k, base_parameters, plus_parameters, minus_parameters, settings, plus_wins, minus_wins, draws, theta_after,
        case when reference_engine_sha256 is null then null else array[ref_plus_wins, ref_plus_losses, ref_plus_draws, ref_minus_wins, ref_minus_losses, ref_minus_draws] end as ref
      from spsa_iteration where run_id = ${run!.id} and status = 'complete' order by iteration_number`;
    expect(rows).toHaveLength(BUILD_ITERATIONS);
    // Each step's adaptive scale is the one the tuner iterations applied when it was drawn give without
    // the liar (their rows as they stand), raised by the pilot's factor: not the one its large Elo raised.
    const tuners = rows.filter((r) => !r.settings.gain);
    for (const row of tuners) {
      const { stepScale, spsa: gains, pilot, staleness } = row.settings;
      const applied = tuners
        .filter((r) => r.number <= row.number - 1 - (staleness ?? 0))
        .map((r) => ({ elo: r.elo, result: recordedOutcome(r) }));
      const adaptive = stepScales(applied, Object.keys(row.settings.parameters), gains.adaptive!);
      expect(stepScale, `iteration ${row.number}`).toEqual(
        pilot ? pilotScales(adaptive, gains.adaptive!, pilot.factor) : adaptive,
      );
    }
    let chained = run!.initial;
    for (const row of rows) {
      const start = { ...row.base_parameters, ...chained };
      // A gain iteration (θ against θ₀, default gain_share: one here) moves θ no step.
      if (row.settings.gain) {
        expect(row.theta_after).toEqual(start);
        continue;
      }
      chained = { ...start, ...recordedStep(row, start) };
      expect(row.theta_after).toEqual(chained);
    }
    expect(theta).toEqual(chained);
  }, 900_000);
});
