import { copyFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { RunStatus } from "../../src/status/snapshot.js";
import { spsa } from "../support/cli.js";
import {
  expectExactCounts,
  expectRunFinal,
  iterationsOf,
  outputSoFar,
  replayTheta,
  startMaster,
  startWorker,
  waitFor,
} from "../support/processes.js";
import { useRunFixture } from "../support/run-fixture.js";

/** A transfer as the database holds it: its verification, its carrier iteration's games and its accepted batches' games. */
interface TransferCheck {
  id: number;
  iteration: number;
  status: string;
  limits: unknown;
  target_games: number;
  games_claimed: number;
  games_played: number;
  results: number;
  batch_games: number;
  stepped_at: Date | null;
  completed_at: Date | null;
}

describe("transfer in the run: every 2nd iteration's plus and minus also play at the ship limits", () => {
  const fixture = useRunFixture({
    iterations: 4,
    games: 4,
    batchSize: 2,
    moveLimit: "nodes = 1000",
    extraConfig: "[ship]\nnodes = 2000\nmax_games = 2\ntransfer_every = 2\ntransfer_games = 8\n",
  });

  it("records each transfer's games exactly once through a kill -9 of the master, and the step uses only the tuning games", async () => {
    const { setup, env, sql } = fixture;
    const initialParams = join(setup.dir, "initial-params.toml");
    copyFileSync(setup.paramsFile, initialParams);
    // Its own process group, so that it can be frozen with its engines.
    const worker = startWorker(setup, env, "t1", ["--seed", "w"], { groupLeader: true });
    let killedDuring: TransferCheck | undefined;
    try {
      const crashed = await startMaster(setup, { ...env, SPSA_CRASH_AT: "transfer-playing" }, "transfers", [
        "--seed",
        "t",
      ]);
      expect(crashed.signal, crashed.all).toBe("SIGKILL");
      expect(crashed.all).toMatch(
        /iteration 2: transfer queued, 8 games of its plus vs minus at 2000 nodes per move \(verification \d+\)/,
      );
      const before = await transfersOf();
      killedDuring = before.find((t) => t.status === "running");
      expect(killedDuring?.games_played).toBeGreaterThan(0);
      expect(killedDuring?.games_played).toBeLessThan(8);

      // Once iteration 4's tuning games are in, the worker (one game at a time, oldest iteration
      // first) is frozen before it can finish iteration 4's transfer: the master must step
      // iteration 4 without it and reach the run's end, where it waits for the transfer.
      const finishing = startMaster(setup, env, "transfers", ["--seed", "t"]);
      const output = outputSoFar(finishing);
      await waitFor(
        async () => (await iterationsOf(sql, "transfers")).find((r) => r.iteration_number === 4)?.games_played === 4,
        120_000,
        "iteration 4's tuning games",
      );
      process.kill(-worker.pid!, "SIGSTOP");
      try {
        await waitFor(
          async () => /waiting for the transfer iteration 4 plus vs iteration 4 minus/.test(output()),
          120_000,
          "the master to step iteration 4 and wait for its transfer at the run's end",
        );
      } finally {
        process.kill(-worker.pid!, "SIGCONT");
      }
      const finished = await finishing;
      expect(finished.exitCode, finished.all).toBe(0);
      expect(finished.all).toMatch(
        /^transfer at 2000 nodes per move: 2 of 2 iterations measured \(16 games at the ship limits\)/m,
      );
    } finally {
      worker.kill("SIGTERM");
      await worker;
    }

    // One transfer per due iteration, the one the killed master queued played on; every game claimed, played and recorded once.
    const transfers = await transfersOf();
    expect(transfers.map((t) => [t.iteration, t.status])).toEqual([
      [2, "complete"],
      [4, "complete"],
    ]);
    expect(transfers.find((t) => t.iteration === killedDuring?.iteration)?.id).toBe(killedDuring?.id);
    for (const t of transfers) {
      expect(t, `transfer of iteration ${t.iteration}`).toMatchObject({
        limits: { nodes: 2000 },
        target_games: 8,
        games_claimed: 8,
        games_played: 8,
        results: 8,
        batch_games: 8,
      });
    }
    // The last iteration is stepped without waiting for its transfer, which the master waits for only at the run's end.
    const last = transfers.find((t) => t.iteration === 4);
    expect(last?.stepped_at?.getTime()).toBeLessThan(last?.completed_at?.getTime() ?? 0);

    // The tuning iterations hold exactly their own games, and θ is what those alone give.
    const rows = await iterationsOf(sql, "transfers");
    expect(rows.map((r) => r.iteration_number)).toEqual([1, 2, 3, 4]);
    expectExactCounts(rows, expect);
    expect(rows.map((r) => r.games_claimed)).toEqual([4, 4, 4, 4]);
    const final = replayTheta(setup, initialParams, "t", rows, expect);
    await expectRunFinal(sql, setup, "transfers", final, expect);

    // The database refuses a second transfer of an iteration.
    await expect(sql`
      insert into spsa_verification (run_id, carrier_run_id, from_label, to_label, from_parameters, to_parameters, max_games, limits, transfer_iteration_id)
      select run_id, carrier_run_id, from_label, to_label, from_parameters, to_parameters, max_games, limits, transfer_iteration_id
      from spsa_verification where id = ${transfers[0]?.id ?? 0}`).rejects.toThrow(
      /spsa_verification_transfer_iteration/,
    );

    // A master started again on the complete run queues nothing more.
    const again = await startMaster(setup, env, "transfers", ["--seed", "t"]);
    expect(again.exitCode, again.all).toBe(0);
    expect((await transfersOf()).length).toBe(2);
  });

  it("shows the report in spsa status, apart from the verifications, and in spsa export", async () => {
    const { env } = fixture;
    const text = await spsa(["status", "--name", "transfers"], { env });
    expect(text.stdout).toMatch(
      /^transfer at 2000 nodes per move: 2 of 2 iterations measured \(16 games at the ship limits\); r not measured yet \(needs 3 iterations\) \(n 2\); signs (agree on all 18 parameters|disagree on \d+ of 18 parameters: )/m,
    );
    expect(text.stdout).not.toMatch(/iteration 2 plus vs iteration 2 minus/);
    const json = JSON.parse((await spsa(["status", "--name", "transfers", "--json"], { env })).stdout) as RunStatus;
    expect(json.transfer).toMatchObject({
      limitsText: "2000 nodes per move",
      queued: 2,
      measured: 2,
      games: 16,
      report: { n: 2, correlation: null },
    });
    const parameters = json.transfer?.report.parameters ?? [];
    expect(parameters).toHaveLength(18);
    expect(json.transfer?.report.disagree).toEqual(parameters.filter((p) => p.n > 0 && !p.agree).map((p) => p.name));

    // spsa export says it next to the θ it writes.
    const lines = await spsa(
      ["--config", fixture.setup.configFile, "export", "--name", "transfers", "--format", "openbench"],
      { env },
    );
    expect(lines.exitCode, lines.all).toBe(0);
    expect(lines.stderr).toMatch(
      /^note: run "transfers": transfer at 2000 nodes per move: 2 of 2 iterations measured/m,
    );
  });

  async function transfersOf(): Promise<TransferCheck[]> {
    return fixture.sql<TransferCheck[]>`
      select v.id, t.iteration_number as iteration, v.status, v.limits, c.target_games, c.games_claimed, c.games_played,
        c.plus_wins + c.minus_wins + c.draws as results, v.completed_at, t.completed_at as stepped_at,
        (select coalesce(sum(games), 0)::int from spsa_batch b where b.iteration_id = c.id and b.status = 'done') as batch_games
      from spsa_verification v join spsa_iteration t on t.id = v.transfer_iteration_id join spsa_iteration c on c.run_id = v.carrier_run_id
      order by t.iteration_number`;
  }
});
