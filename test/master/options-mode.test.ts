import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadParams } from "../../src/params/params.js";
import { reportBatch } from "../../src/db/batches.js";
import { applyReports } from "../../src/master/apply-reports.js";
import type { RunStatus } from "../../src/status/snapshot.js";
import { spsa } from "../support/cli.js";
import { clean } from "../support/iterations.js";
import { expectConsistentRun, perturbationsOf, type Theta } from "../support/options-run.js";
import { expectExactCounts, iterationsOf, startMaster, startWorker, waitFor } from "../support/processes.js";
import { useRunFixture, type RunFixture } from "../support/run-fixture.js";

function optionsFixture(extra: {
  leaseSeconds?: number;
  iterations: number;
  games: number;
  batchSize: number;
  moveLimit?: string;
  ownBuilds?: boolean;
}): RunFixture {
  return useRunFixture({ ...extra, timelow: 0.005, timehigh: 0.015, mode: "options" });
}

describe("UCI-option mode: one minnow binary, a perturbation per batch, asynchronous updates", () => {
  // Games at a node limit: the carrier iteration's settings carry it to every claim.
  const fixture = optionsFixture({ iterations: 4, games: 8, batchSize: 4, moveLimit: "nodes = 500", ownBuilds: true });

  it("runs end to end with two workers at a node limit, builds once, and every report moves θ once", async () => {
    const { setup, env, sql } = fixture;
    const workers = [startWorker(setup, env, "u1"), startWorker(setup, env, "u2", ["--option", "Hash=8"])];
    const master = await startMaster(setup, env, "uci", ["--seed", "s"]);
    for (const worker of workers) worker.kill("SIGTERM");
    const workerOutput = (await Promise.all(workers)).map((w) => w.all).join("\n");
    expect(master.exitCode, `${master.all}\n${workerOutput}`).toBe(0);

    const rows = await iterationsOf(sql, "uci");
    expect(rows).toHaveLength(1);
    expectExactCounts(rows, expect);
    expect(rows[0]?.target_games).toBe(32);
    const [carrier] = await sql<{ settings: { moveLimit?: unknown } }[]>`select settings from spsa_iteration`;
    expect(carrier?.settings.moveLimit).toEqual({ nodes: 500 });
    const perturbations = await perturbationsOf(sql, "uci");
    expect(perturbations.filter((p) => p.status === "done").reduce((n, p) => n + p.games, 0)).toBe(32);
    expect(new Set(perturbations.map((p) => p.worker_name))).toEqual(new Set(["u1", "u2"]));
    // Built once: one binary for the whole run. The run complete, nothing can run it: its row keeps its size, not its bytes nor its folder in output_dir.
    const binaries = await sql<
      { size: number; kept: boolean }[]
    >`select size, content is not null as kept from spsa_binary`;
    expect(binaries).toEqual([{ size: expect.any(Number) as number, kept: false }]);
    expect(binaries[0]?.size).toBeGreaterThan(0);
    expect(existsSync(join(setup.dir, "builds", "uci"))).toBe(false);

    const final = await expectConsistentRun(sql, "uci", "s");
    const written = Object.fromEntries(loadParams(setup.paramsFile).map((p) => [p.name, p.value]));
    expect(written).toEqual(final);
    expect(final).not.toEqual({ LMR_BASE: 0.75, LMR_MIN_DEPTH: 3, KNIGHT_VALUE_MG: 320, ALPHA_PRUNE_MARGINS_1: 260 });

    // spsa status counts batches, not the carrier iteration, and charts θ after each one; the
    // curvature pilot's batches (θ± against θ₀: 8 games) are counted in the games and apart.
    const reported = perturbations.filter((p) => p.status === "done" && p.reference_parameters === null);
    expect(
      perturbations
        .filter((p) => p.status === "done" && p.reference_parameters !== null)
        .reduce((n, p) => n + p.games, 0),
    ).toBe(8);
    const status = await spsa(["status", "--name", "uci", "--json"], { env, cwd: setup.dir });
    expect(status.exitCode, status.all).toBe(0);
    const json = JSON.parse(status.stdout) as RunStatus;
    expect(json.perturbations?.applied).toBe(reported.length);
    expect(json.perturbations?.inFlight).toBe(0);
    expect(json.perturbations?.recent.map((b) => b.games).reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(32);
    const knight = json.parameters.find((p) => p.name === "KNIGHT_VALUE_MG");
    expect(knight?.history.map((h) => h.iteration)).toEqual(Array.from({ length: reported.length + 1 }, (_, i) => i));
    expect(knight?.history[0]?.value).toBe(320);
    expect(knight?.history.at(-1)?.value).toBe(final.KNIGHT_VALUE_MG);
    const text = await spsa(["status", "--name", "uci"], { env, cwd: setup.dir });
    expect(text.stdout).toContain(
      `UCI-option run: ${reported.length} batches applied, 0 in flight (32/32 games played)`,
    );
    // Windows of 8 games (4 pairs) are too few for an error bar.
    expect(text.stdout).toMatch(/Elo per 8 games \(plus vs minus, 95 %\): batches \d+–\d+ [+-]\d+\.\d {2}batches /);
    expect(text.stdout).toMatch(
      /curvature pilot \(θ\+ \/ θ− each against θ₀, not in the Elo above\): 8\/8 games, \d+\.\d% \/ \d+\.\d%; total curvature .+, steps × \d\.\d\d\n/,
    );

    // A replayed report is a duplicate: no game counted twice, θ not moved twice.
    const done = reported[0];
    if (!done) throw new Error("no reported batch");
    const replay = {
      batchId: done.batch_id,
      workerName: done.worker_name,
      wins: done.plus_wins ?? 0,
      losses: done.minus_wins ?? 0,
      draws: done.draws ?? 0,
      pairs: [0, 0, done.games / 2, 0, 0] as [number, number, number, number, number],
      ...clean(),
    };
    const [before] = await sql<
      { id: number; theta: Theta }[]
    >`select id, current_parameters as theta from spsa_run where name = 'uci'`;
    expect(await reportBatch(sql, replay)).toBe("duplicate");
    expect(await applyReports(sql, before?.id ?? 0)).toBe(0);
    const [after] = await sql<{ theta: Theta }[]>`select current_parameters as theta from spsa_run where name = 'uci'`;
    expect(after?.theta).toEqual(before?.theta);
    expectExactCounts(await iterationsOf(sql, "uci"), expect);
  }, 300_000);
});

describe("UCI-option mode: master and workers killed with -9 and restarted", () => {
  // Games at a node limit; the resumed run is given another one below.
  const fixture = optionsFixture({ iterations: 4, games: 10, batchSize: 2, leaseSeconds: 2, moveLimit: "nodes = 500" });

  it("loses no game, counts none twice, and θ stays the chain of the reported batches", async () => {
    const { setup, env, sql } = fixture;
    let serial = 0;
    const workers = [startWorker(setup, env, `k${serial++}`), startWorker(setup, env, `k${serial++}`)];
    const played = async () =>
      (await sql<{ n: number }[]>`select coalesce(sum(games_played), 0)::int as n from spsa_iteration`)[0]?.n ?? 0;
    try {
      const first = startMaster(setup, env, "uci-kill", ["--seed", "k"]);
      await waitFor(async () => (await played()) >= 6, 120_000, "games to flow");
      // A worker dies mid-batch too: its batch's lease expires and its perturbation changes nothing.
      // Killed once it holds a batch; one that reported it just before the kill held none, and the
      // worker that replaces it is killed in turn.
      const holding = async (name: string) =>
        (
          await sql<{ n: number }[]>`
            select count(*)::int as n from spsa_batch where worker_name = ${name} and status = 'claimed'`
        )[0]!.n > 0;
      for (let victim = "k0", tries = 1; ; tries++) {
        await waitFor(() => holding(victim), 120_000, `worker ${victim} to hold a batch`);
        workers[0]?.kill("SIGKILL");
        await workers[0];
        const midBatch = await holding(victim);
        victim = `k${serial++}`;
        workers[0] = startWorker(setup, env, victim);
        if (midBatch) break;
        expect(tries, "tries to kill a worker while it holds a batch").toBeLessThan(5);
      }
      first.kill("SIGKILL");
      expect((await first).signal).toBe("SIGKILL");
      // An edit the resumed run does not apply is named, not silently ignored.
      const config = readFileSync(setup.configFile, "utf8");
      writeFileSync(setup.configFile, config.replace("nodes = 500\n", "nodes = 1500\n"));
      const second = await startMaster(setup, env, "uci-kill", ["--seed", "k"]);
      expect(second.exitCode, second.all).toBe(0);
      expect(second.all).toContain("resumed run");
      expect(second.all).toContain(
        "changed since the run started: [time_control] nodes: 500 → 1500 (not applied: a UCI-option run keeps the settings it started with; --fresh or another --name to use them)",
      );
    } finally {
      for (const worker of workers) worker.kill("SIGTERM");
      await Promise.all(workers);
    }
    const rows = await iterationsOf(sql, "uci-kill");
    const [expired] = await sql<{ n: number }[]>`
      select count(*)::int as n from spsa_perturbation p join spsa_batch b on b.id = p.batch_id where b.status = 'expired'`;
    expect(expired?.n).toBeGreaterThan(0);
    expectExactCounts(rows, expect);
    const final = await expectConsistentRun(sql, "uci-kill", "k");
    const written = Object.fromEntries(loadParams(setup.paramsFile).map((p) => [p.name, p.value]));
    expect(written).toEqual(final);
  }, 300_000);
});
