import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/config.js";
import { loadParams } from "../../src/params/params.js";
import { findRun, listRuns } from "../../src/db/run-status.js";
import { LEGEND } from "../../src/status/legend.js";
import { batchRange, renderStatus } from "../../src/status/render.js";
import { readRunStatus, type RunStatus } from "../../src/status/snapshot.js";
import { spsa } from "../support/cli.js";
import { useMigratedDatabase } from "../support/database.js";
import { seedIteration } from "../support/iterations.js";
import { writeSyntheticOptionRun } from "../support/synthetic-option-run.js";
import { writeSyntheticRun } from "../support/synthetic-run.js";

/**
 * The status screen's words as a newcomer meets them (issue 57): capped Elo, iterations in flight, batch
 * ranges, the legend.
 */
describe("spsa status in plain words", () => {
  const database = useMigratedDatabase(3);
  const params = loadParams("params.toml");

  it("names the iteration played and the one opened ahead, as the run list does; marks a capped Elo", async () => {
    const { sql } = database;
    const config = loadConfig("config.toml");
    await writeSyntheticRun(sql, { name: "flight", config, params, iterations: 2, open: true, workerName: "w1" });
    // Iteration 4 opened ahead while 3 plays (iterations in flight), as a master does.
    await seedIteration(sql, { runName: "flight", targetGames: 64, iterationNumber: 4 });
    // Iteration 2 swept: its Elo at the cap ([spsa] elo_cap = 400).
    await sql`update spsa_iteration i set elo_diff = -400 from spsa_run r
      where r.id = i.run_id and r.name = 'flight' and i.iteration_number = 2`;
    await sql`update spsa_run set master_session = 's', master_host = 'box', master_pid = 1, master_since = now(),
      master_seen_at = now(), master_expires_at = now() + interval '1 hour' where name = 'flight'`;
    const status = await readRunStatus(sql, (await findRun(sql, "flight"))!, { samples: 4 });
    expect(status.iteration).toMatchObject({ latest: 4, current: 3, ahead: 1, completed: 2, gamesPlayed: 0 });
    expect(status.recent.map((it) => [it.iteration, it.capped])).toEqual([
      [4, false],
      [3, false],
      [2, true],
      [1, false],
    ]);
    const lines = renderStatus(status).split("\n");
    // max_iterations 100 of 64 games and the default gain_share's 39 gain iterations among them.
    expect(lines[2]).toBe("iteration 3 of 129 (2 complete, 0/64 games played; iteration 4 opened ahead)");
    // What it waits for is the iteration being played, not the one opened ahead.
    expect(lines).toContain("waiting: no worker has claimed games of iteration 3 yet: start one with compete --spsa");
    expect(lines).toContainEqual(
      expect.stringMatching(/^Elo of the last iterations \(plus vs minus\): #2 -400\.0 \(capped\) {2}#1 [+-]\d+\.\d$/),
    );
    // The dashboard's run list counts as the master does: iteration 3 (not the 4 opened), 2 complete.
    const row = (await listRuns(sql)).find((r) => r.name === "flight");
    expect(row).toMatchObject({ iteration: 3, completed: 2, maxIterations: 129, games: status.games.total });
    expect(status.games.total).toBe(2 * 64);
  });

  it("says one batch as a batch, not as a range of one", async () => {
    expect(batchRange(17, 17)).toBe("batch 17");
    expect(batchRange(9, 12)).toBe("batches 9–12");
    const config = loadConfig("config.toml");
    config.spsa.maxIterations = 8;
    config.games.gamesPerIteration = 16;
    config.games.batchSize = 4;
    // Nine batches of 4 games in windows of 16 games: 1–4, 5–8, and 9 alone.
    await writeSyntheticOptionRun(database.sql, {
      name: "nine",
      config,
      params,
      workerName: "w-nine",
      wins: [1, 2, 0, 1, 2, 0, 1, 2, 0],
      startedAt: new Date(Date.now() - 60_000),
      batchSeconds: 5,
      slots: 1,
    });
    const status = await readRunStatus(database.sql, (await findRun(database.sql, "nine"))!, { samples: 4 });
    expect(renderStatus(status).split("\n")).toContainEqual(
      expect.stringMatching(
        new RegExp(
          "^Elo per 16 games \\(plus vs minus, 95 %\\): batch 9 [+-]\\d+\\.\\d {2}" +
            "batches 5–8 [+-]\\d+\\.\\d ± \\d+\\.\\d {2}batches 1–4 ",
        ),
      ),
    );
    const row = (await listRuns(database.sql)).find((r) => r.name === "nine");
    expect(row).toMatchObject({ iteration: null, games: 36 });
  });

  it("--explain: the screen, then a line for every workers' column and each term a newcomer asked about", async () => {
    const env = { DATABASE_URL: database.url };
    const result = await spsa(["status", "--name", "flight", "--explain"], { env });
    expect(result.exitCode, result.all).toBe(0);
    const [screen, legend] = result.stdout.split("\nwhat the words mean (docs/watching.md has more):\n");
    expect(screen).toMatch(/^run flight \(active, /);
    expect(legend).toBeDefined();
    const header = screen!.split("\n").find((line) => line.startsWith("worker "));
    expect(header).toBeDefined();
    const columns = header!.split(/ {2,}/);
    expect(columns.length).toBeGreaterThan(10);
    const terms = (part: string) => LEGEND.filter((e) => e.part === part).map((e) => e.term);
    for (const column of columns) {
      expect(terms("workers"), `the workers' column "${column}"`).toContain(column);
      expect(legend, column).toContain(`\n  ${column}\n`);
    }
    // The words the issue found unexplained.
    for (const term of ["(capped)", "curvature pilot", "faults", "opened ahead", "delays outside the engines"])
      expect(legend, term).toContain(`\n  ${term}\n`);
    expect(legend!.replace(/\s+/g, " ")).toContain("not judged: no other worker's games to compare with");
    for (const line of legend!.split("\n")) expect(line.length, line).toBeLessThanOrEqual(100);
    // JSON has no legend: asking for both is bad input.
    const both = await spsa(["status", "--name", "flight", "--explain", "--json"], { env });
    expect(both.exitCode).toBe(2);
    expect(JSON.parse((await spsa(["status", "--name", "flight", "--json"], { env })).stdout)).toMatchObject({
      faultKinds: { crashes: 0, timeLosses: 0, illegalMoves: 0 },
    } satisfies Partial<RunStatus>);
  });
});
