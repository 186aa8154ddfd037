import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/config.js";
import { loadParams, type Param } from "../../src/params/params.js";
import { claimBatch, reportBatch } from "../../src/db/batches.js";
import type { Database } from "../../src/postgres/connection.js";
import { recordedParams, settingsOf } from "../../src/config/iteration-settings.js";
import { runBuildMaster } from "../../src/master/build-mode.js";
import { update } from "../../src/spsa/math.js";
import { useMigratedDatabase } from "../support/database.js";
import { clean, pairsOf, registerTestWorker, seedIteration } from "../support/iterations.js";
import { localSigningKey } from "../support/signing.js";
import { waitFor } from "../support/processes.js";
import type { TuningConfig } from "../../src/types/config.js";
import type { MasterOptions } from "../../src/master/run-setup.js";

/**
 * The master loop in-process on a real database, with the iteration already open (as a
 * master that built its engines left it): one iteration of four games, so no cargo build.
 */
describe("the master loop", () => {
  const database = useMigratedDatabase(6);
  const dir = mkdtempSync(join(tmpdir(), "spsa-master-"));
  let config: TuningConfig;
  let params: Param[];
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  beforeAll(() => {
    const base = loadConfig("config.toml");
    config = { ...base, spsa: { ...base.spsa, maxIterations: 1 }, database: { ...base.database, pollIntervalMs: 50 } };
    writeFileSync(join(dir, "params.toml"), `[X]\ntype = "float"\nvalue = 1\nmin = -10\nmax = 10\nstep = 1\n`);
    params = loadParams(join(dir, "params.toml"));
  });

  /** A params.toml of the run's own, and the master's options around it. */
  function masterOptions(runName: string, extra: Partial<MasterOptions> = {}): MasterOptions & { lines: string[] } {
    const paramsFile = join(dir, `${runName}.toml`);
    writeFileSync(paramsFile, `# θ of ${runName}\n[X]\ntype = "float"\nvalue = 1\nmin = -10\nmax = 10\nstep = 1\n`);
    const db: Database = { url: database.url, embedded: false, sql: database.sql, close: async () => {} };
    const lines: string[] = [];
    return {
      database: db,
      config,
      params,
      paramsFile,
      runName,
      signingKey: localSigningKey(),
      lines,
      log: (line) => lines.push(line),
      status: silentStatus(),
      ...extra,
    };
  }

  /** Plays `games` of the run's open iteration as a worker would report them: plus wins, minus wins, draws. */
  /** A worker plays `games` and reports them; the iteration's plan may hand them out in several batches, the results go out in order. */
  async function report(worker: string, games: number, plusWins: number, minusWins: number) {
    let left = { games, plusWins, minusWins };
    while (left.games > 0) {
      const batch = await claimBatch(database.sql, worker, left.games);
      const n = batch!.games;
      const wins = Math.min(left.plusWins, n);
      const losses = Math.min(left.minusWins, n - wins);
      const draws = n - wins - losses;
      expect(
        await reportBatch(database.sql, {
          batchId: batch!.batchId,
          workerName: worker,
          wins,
          losses,
          draws,
          pairs: pairsOf(wins, losses, draws),
          ...clean(),
        }),
      ).toBe("accepted");
      left = { games: left.games - n, plusWins: left.plusWins - wins, minusWins: left.minusWins - losses };
    }
  }

  /** θ after one SPSA step on these counts, from X = 1 perturbed to 2 and 0. */
  function expectedX(plusWins: number, minusWins: number, draws: number): number {
    const settings = settingsOf(config, params);
    const step = update(
      recordedParams(settings, { X: 1 }),
      { ak: 0.1, plus: { X: 2 }, minus: { X: 0 } },
      { plusWins, minusWins, draws },
      settings.spsa,
    );
    return step.newValues.X!;
  }

  async function runRow(name: string) {
    const [row] = await database.sql<{ status: string; x: number; iterations: number; open: number }[]>`
      select r.status, (r.current_parameters->>'X')::float8 as x,
        (select count(*)::int from spsa_iteration i where i.run_id = r.id) as iterations,
        (select count(*)::int from spsa_iteration i where i.run_id = r.id and i.status <> 'complete') as open
      from spsa_run r where r.name = ${name}`;
    return row;
  }

  it("completes an iteration from its counters: θ, the run and params.toml move to plus", async () => {
    await seedIteration(database.sql, { runName: "counters", targetGames: 4, config, params });
    await registerTestWorker(database.sql, "w-counters");
    await report("w-counters", 4, 3, 0);
    const options = masterOptions("counters");
    const summary = await runBuildMaster(options);

    const x = expectedX(3, 0, 1);
    expect(x).toBeGreaterThan(1); // plus (X = 2) won: θ moves up
    expect(summary).toEqual({ runName: "counters", iterations: 1, initial: { X: 1 }, final: { X: x } });
    expect(await runRow("counters")).toEqual({ status: "complete", x, iterations: 1, open: 0 });
    expect(loadParams(options.paramsFile)[0]?.value).toBe(x);
    expect(options.lines).toContain(`run "counters" complete: 1 iterations`);
  });

  it("resumes after a stop in the middle of an iteration: the same iteration, every game counted once", async () => {
    await seedIteration(database.sql, { runName: "resumed", targetGames: 4, config, params });
    await registerTestWorker(database.sql, "w-resumed");
    await report("w-resumed", 2, 0, 2);

    // The first master waits for the other two games; it is stopped while it waits.
    const stop = new AbortController();
    const first = masterOptions("resumed", { signal: stop.signal });
    const shown: string[] = [];
    first.status = silentStatus(shown);
    const running = runBuildMaster(first);
    await waitFor(async () => shown.length > 0, 30_000, "the master to wait for games");
    stop.abort();
    await expect(running).rejects.toThrow();
    expect(await runRow("resumed")).toEqual({ status: "active", x: 1, iterations: 1, open: 1 });

    // A worker reports meanwhile; the restarted master finishes the iteration it left.
    await report("w-resumed", 2, 1, 0);
    const second = masterOptions("resumed");
    const summary = await runBuildMaster(second);
    const x = expectedX(1, 2, 1);
    expect(x).toBeLessThan(1); // minus (X = 0) won more
    expect(summary.final).toEqual({ X: x });
    expect(second.lines[0]).toMatch(/^run "resumed" resumed/);
    expect(await runRow("resumed")).toEqual({ status: "complete", x, iterations: 1, open: 0 });
    const [iteration] =
      await database.sql`select games_played, plus_wins, minus_wins, draws from spsa_iteration i join spsa_run r on r.id = i.run_id where r.name = 'resumed'`;
    expect(iteration).toEqual({ games_played: 4, plus_wins: 1, minus_wins: 2, draws: 1 });
  });
});

/** A status line that writes nowhere, keeping what it was shown. */
function silentStatus(shown: string[] = []): NonNullable<MasterOptions["status"]> {
  const status = { update: (line: string) => shown.push(line), done: () => {} };
  return status as unknown as NonNullable<MasterOptions["status"]>;
}
