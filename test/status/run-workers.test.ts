import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/config.js";
import { loadParams } from "../../src/params/params.js";
import { claimBatch, reportBatch } from "../../src/db/batches.js";
import { foldIteration } from "../../src/db/fold.js";
import { claimWorkerName } from "../../src/db/workers.js";
import { findRun } from "../../src/db/run-status.js";
import { holdOpenIterationBatches } from "../../src/db/worker-decisions.js";
import { startDashboard } from "../../src/dashboard/server.js";
import { readRunStatus, type RunStatus } from "../../src/status/snapshot.js";
import { renderStatus } from "../../src/status/render.js";
import { noFaults, type FaultCounts } from "../../src/types/faults.js";
import type { Pentanomial } from "../../src/types/play.js";
import { spsa } from "../support/cli.js";
import { useMigratedDatabase } from "../support/database.js";
import { writeSyntheticRun } from "../support/synthetic-run.js";

/** A batch a worker plays: its results, its plus engine's crashes, its minus engine's delay losses, its replays. */
interface Played {
  worker: string;
  run: "A" | "B";
  wins: number;
  losses: number;
  draws: number;
  crashes: number;
  delays: number;
  replays: number;
}

const BATCH = 8;
const PLAYED: Played[] = [
  { worker: "w-a", run: "A", wins: 4, losses: 1, draws: 3, crashes: 1, delays: 2, replays: 3 },
  { worker: "w-both", run: "A", wins: 2, losses: 2, draws: 4, crashes: 0, delays: 0, replays: 0 },
  { worker: "w-a", run: "A", wins: 1, losses: 5, draws: 2, crashes: 2, delays: 0, replays: 1 },
  { worker: "w-both", run: "B", wins: 3, losses: 3, draws: 2, crashes: 0, delays: 1, replays: 2 },
  { worker: "w-both", run: "B", wins: 0, losses: 1, draws: 7, crashes: 1, delays: 0, replays: 0 },
];

/** Pentanomial counts [LL, LD, DD, DW, WW] of a batch: wins and losses paired up, an odd one with a draw. */
function pairsOf({ wins, losses, draws }: Played): Pentanomial {
  const dw = wins % 2;
  const ld = losses % 2;
  return [Math.floor(losses / 2), ld, (draws - dw - ld) / 2, dw, Math.floor(wins / 2)];
}

/** What psql says each worker played in a run, from its batches alone. */
async function psqlCounts(sql: import("postgres").Sql, run: string) {
  return sql<
    {
      worker: string;
      games: number;
      wins: number;
      draws: number;
      losses: number;
      faults: number;
      delays: number;
      replays: number;
    }[]
  >`
    select b.worker_name as worker, sum(b.games)::int as games, sum(b.plus_wins)::int as wins, sum(b.draws)::int as draws, sum(b.minus_wins)::int as losses,
      sum((b.faults->>'plusCrashes')::int + (b.faults->>'minusCrashes')::int)::int as faults,
      sum((b.faults->>'plusDelayLosses')::int + (b.faults->>'minusDelayLosses')::int)::int as delays, sum(b.replays)::int as replays
    from spsa_batch b join spsa_iteration i on i.id = b.iteration_id join spsa_run r on r.id = i.run_id
    where r.name = ${run} and b.status = 'done' group by 1 order by 1`;
}

describe("the workers of a run on spsa status and the dashboard", () => {
  const database = useMigratedDatabase(3);

  it("lists only what each worker played in that run, as psql counts it: two runs, one worker in both, one in A only", async () => {
    const { sql } = database;
    const config = loadConfig("config.toml");
    const params = loadParams("params.toml");
    const runs = {
      A: (await writeSyntheticRun(sql, { name: "run-a", config, params, iterations: 0, open: true, workerName: "w-a" }))
        .open!,
      B: (
        await writeSyntheticRun(sql, { name: "run-b", config, params, iterations: 0, open: true, workerName: "w-both" })
      ).open!,
    };
    await claimWorkerName(
      sql,
      { name: "w-both", sessionId: "w-both", host: "box-2", pid: null, concurrency: 3 },
      () => false,
    );
    // Before any claim, with a master holding run B: its line says what it waits for.
    await sql`update spsa_run set master_session = 's', master_host = 'box', master_pid = 4242, master_since = now(),
      master_seen_at = now(), master_expires_at = now() + interval '1 hour' where name = 'run-b'`;
    const idle = await readRunStatus(sql, (await findRun(sql, "run-b"))!, { samples: 2 });
    expect(idle.waiting).toBe("no worker has claimed games of iteration 1 yet: start one with compete --spsa");
    expect(renderStatus(idle)).toContain(
      "\nwaiting: no worker has claimed games of iteration 1 yet: start one with compete --spsa\n",
    );
    for (const p of PLAYED) {
      const other = p.run === "A" ? runs.B : runs.A;
      const batch = await claimBatch(sql, p.worker, BATCH, { skip: [other.id] });
      expect(batch?.iterationId).toBe(runs[p.run].id);
      const faults: [FaultCounts, FaultCounts] = [
        { ...noFaults(), crash: p.crashes },
        { ...noFaults(), delay: p.delays },
      ];
      const pairs = pairsOf(p);
      const report = {
        batchId: batch!.batchId,
        workerName: p.worker,
        wins: p.wins,
        losses: p.losses,
        draws: p.draws,
        pairs,
        faults,
        replays: p.replays,
        replayLimitPairs: 0,
      };
      expect(await reportBatch(sql, report)).toBe("accepted");
      await foldIteration(sql, batch!.iterationId);
    }

    // Its games were played over the last minute (a rate measured over under a second is no rate: the test's claims are milliseconds apart).
    await sql`update spsa_batch b set claimed_at = b.claimed_at - interval '60 seconds' from spsa_iteration i where i.id = b.iteration_id and b.status = 'done'`;
    const env = { DATABASE_URL: database.url };
    const json = await spsa(["status", "--name", "run-b", "--json"], { env });
    expect(json.exitCode, json.all).toBe(0);
    const statusB = JSON.parse(json.stdout) as RunStatus;
    const expectedB = await psqlCounts(sql, "run-b");
    expect(expectedB).toEqual([
      { worker: "w-both", games: 16, wins: 3, draws: 9, losses: 4, faults: 1, delays: 1, replays: 2 },
    ]);
    const shown = (status: RunStatus) =>
      status.workers.map((w) => ({
        worker: w.name,
        games: w.games,
        wins: w.wins,
        draws: w.draws,
        losses: w.losses,
        faults: w.engineFaults,
        delays: w.delayLosses,
        replays: w.replays,
      }));
    expect(shown(statusB)).toEqual(expectedB);
    expect(statusB.workers[0]).toMatchObject({ host: "box-2", concurrency: 3 });
    // 16 games over a little more than the minute since its first claim.
    expect(statusB.workers[0]!.gamesPerMinute).toBeGreaterThan(10);
    expect(statusB.workers[0]!.gamesPerMinute).toBeLessThanOrEqual(16);
    expect(statusB.workers[0]!.secondsAgo).toBeLessThan(60);
    expect(statusB.staleWorkers).toBeNull();
    // The run's own counters agree with its workers'.
    expect(statusB.games.total).toBe(16);
    expect(statusB.faults).toBe(1);
    expect(statusB.delays).toMatchObject({ losses: 1, replays: 2 });

    const text = await spsa(["status", "--name", "run-b"], { env });
    expect(text.exitCode, text.all).toBe(0);
    expect(text.stdout).not.toContain("w-a");
    // 3 wins, 9 draws, 4 losses of 16 games: 19/56/25 %.
    expect(text.stdout.split("\n")).toContainEqual(
      expect.stringMatching(
        /^w-both +box-2 +3 +16 +19\/56\/25 +1 +1 +2 +- +- +\d+\.\d +\d+s ago +- +- +0 +too few games/,
      ),
    );

    const dashboard = await startDashboard({ sql, host: "127.0.0.1", port: 0 });
    try {
      const detail = (await (await fetch(`${dashboard.url}api/runs/run-b`)).json()) as { status: RunStatus };
      expect(shown(detail.status)).toEqual(expectedB);
      const detailA = (await (await fetch(`${dashboard.url}api/runs/run-a`)).json()) as { status: RunStatus };
      const expectedA = await psqlCounts(sql, "run-a");
      expect(expectedA.map((row) => [row.worker, row.games])).toEqual([
        ["w-a", 16],
        ["w-both", 8],
      ]);
      expect(shown(detailA.status).sort((x, y) => (x.worker < y.worker ? -1 : 1))).toEqual(expectedA);
    } finally {
      await dashboard.close();
    }

    // A worker whose last report is long before the run's latest folds into one line.
    await sql`update spsa_run_worker set last_reported_at = now() - interval '2 hours' where worker_name = 'w-a'`;
    const later = await spsa(["status", "--name", "run-a", "--json"], { env });
    const statusA = JSON.parse(later.stdout) as RunStatus;
    expect(statusA.workers.map((w) => w.name)).toEqual(["w-both"]);
    expect(statusA.staleWorkers).toMatchObject({ count: 1, games: 16, names: ["w-a"] });
    const laterText = await spsa(["status", "--name", "run-a"], { env });
    expect(laterText.stdout).toMatch(
      /^1 more worker not seen for 30 min before the run's latest report \(w-a\): 16 games, the latest at \d{4}-\d\d-\d\d \d\d:\d\d$/m,
    );

    // Its batches set aside (held, as for a suspect) leave its counts and the run's together.
    const runA = await findRun(sql, "run-a");
    expect(await holdOpenIterationBatches(sql, runA!.id, ["w-a"])).toBe(2);
    const held = await readRunStatus(sql, runA!, { samples: 2 });
    expect(held.games.total).toBe(8);
    expect(held.workers.find((w) => w.name === "w-a")).toMatchObject({
      games: 0,
      wins: 0,
      engineFaults: 0,
      delayLosses: 0,
      replays: 0,
      held: 2,
    });
    expect(held.workers.find((w) => w.name === "w-both")).toMatchObject({ games: 8, wins: 2, draws: 4, losses: 2 });
  });
});
