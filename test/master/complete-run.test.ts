import { describe, expect, it } from "vitest";
import { spsa } from "../support/cli.js";
import { startMaster, startWorker } from "../support/processes.js";
import { useRunFixture } from "../support/run-fixture.js";

/**
 * A completed UCI-option run whose carrier no longer counts its target (an undo took a worker's
 * games out after the end): a master started on it again sees the run complete and ends, rather
 * than wait for games no worker can claim (issue 55: "672/1280 games … ETA 9s" and a wait).
 */

describe("a completed run never waits for games nobody can claim", () => {
  const fixture = useRunFixture({ iterations: 2, games: 8, batchSize: 4, moveLimit: "nodes = 300", mode: "options" });

  it("UCI-option mode: a master restarted after an undo of the completed run ends at once", async () => {
    const { setup, env, sql } = fixture;
    const workers = [startWorker(setup, env, "d1"), startWorker(setup, env, "d2")];
    const first = await startMaster(setup, env, "done", ["--seed", "s"]);
    for (const worker of workers) worker.kill("SIGTERM");
    await Promise.all(workers);
    expect(first.exitCode, first.all).toBe(0);
    const [played] = await sql<{ worker: string }[]>`
      select worker_name as worker from spsa_batch where status = 'done' and worker_name is not null
      group by worker_name order by count(*) limit 1`;
    const undo = await spsa(
      ["--config", setup.configFile, "undo", "--worker", played!.worker, "--name", "done"].concat([
        "--params",
        setup.paramsFile,
        "--yes",
        "--force-params",
        "--all-games",
      ]),
      { env },
    );
    expect(undo.exitCode, undo.all).toBe(0);
    const [carrier] = await sql<{ status: string; played: number; target: number }[]>`
      select status, games_played as played, target_games as target from spsa_iteration`;
    expect(carrier!.status).toBe("complete");
    expect(carrier!.played).toBeLessThan(carrier!.target);

    // No worker runs: a master that waited for the games taken out would never end.
    const again = startMaster(setup, env, "done");
    const timer = setTimeout(() => again.kill("SIGKILL"), 60_000);
    const ended = await again;
    clearTimeout(timer);
    expect(ended.exitCode, ended.all).toBe(0);
    expect(ended.all).toMatch(new RegExp(`run "done" complete: ${carrier!.played} games`));
    expect(ended.all).not.toMatch(/ETA/);
    const [draws] = await sql<{ n: number }[]>`select count(*)::int as n from spsa_batch where status = 'open'`;
    expect(draws!.n).toBe(0);
    const status = await spsa(["--config", setup.configFile, "status", "--name", "done", "--json"], { env });
    const json = JSON.parse(status.stdout) as { waiting: unknown; games: { etaSeconds: unknown } };
    expect([json.waiting, json.games.etaSeconds]).toEqual([null, null]);
  }, 300_000);
});
