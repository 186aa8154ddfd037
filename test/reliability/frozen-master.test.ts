import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  expectExactCounts,
  iterationsOf,
  outputSoFar,
  isStopped,
  startMaster,
  startWorker,
  waitFor,
} from "../support/processes.js";
import { runRows } from "../support/played-run.js";
import { useRunFixture } from "../support/run-fixture.js";

/**
 * A build-mode master stopped (SIGSTOP) while its cargo builds run (issue 55): its hold on the
 * run lapses, the next master takes the run over and breaks its build trees' locks (the lease
 * decides, not whether its pid lives), the run completes, and the stopped master, continued,
 * writes nothing: no row, no binary, no lock of another's removed.
 */

const LEASE_SECONDS = 3;

/** The lock files of the build trees and what they hold. */
function treeLocks(outputDir: string): Record<string, string> {
  const trees = join(outputDir, "trees");
  if (!existsSync(trees)) return {};
  return Object.fromEntries(
    readdirSync(trees)
      .filter((name) => name.endsWith(".lock"))
      .flatMap((name) => {
        try {
          return [[name, readFileSync(join(trees, name), "utf8")]];
        } catch {
          return [];
        }
      }),
  );
}

describe("a build-mode master frozen mid-build", () => {
  const fixture = useRunFixture({
    iterations: 3,
    games: 4,
    batchSize: 2,
    leaseSeconds: LEASE_SECONDS,
    moveLimit: "nodes = 300",
  });

  it("is replaced: its tree locks are broken once its run is taken over, the run completes, and continued it writes nothing", async () => {
    const { setup, env, sql } = fixture;
    const outputDir = /^output_dir = "(.*)"$/m.exec(readFileSync(setup.configFile, "utf8"))![1]!;
    // It stops itself (SIGSTOP) 200 ms into its first builds, its cargo running, as a suspended master would.
    const frozen = startMaster(setup, { ...env, SPSA_STOP_AT: "build-started" }, "frozen", ["--seed", "s"]);
    const frozenOutput = outputSoFar(frozen);
    await waitFor(async () => isStopped(frozen.pid!), 180_000, "the master's stop during its builds");
    const held = treeLocks(outputDir);
    expect(Object.keys(held).sort()).toEqual(["minus.lock", "plus.lock"]);
    for (const content of Object.values(held))
      expect(content).toMatch(new RegExp(`^${frozen.pid}\\nrun \\d+ session \\S+$`));
    await waitFor(
      async () => {
        const [row] = await sql<{ lapsed: boolean }[]>`
          select master_expires_at < now() as lapsed from spsa_run where name = 'frozen'`;
        return row?.lapsed === true;
      },
      30_000,
      "its hold to lapse",
    );

    // The next master: it takes the run over, breaks the frozen one's tree locks and builds.
    const takeover = Date.now();
    const worker = startWorker(setup, env, "w", ["-c", "2"]);
    const next = startMaster(setup, env, "frozen", ["--seed", "s"]);
    const timer = setTimeout(() => next.kill("SIGKILL"), 400_000);
    const done = await next;
    clearTimeout(timer);
    const seconds = (Date.now() - takeover) / 1000;
    worker.kill("SIGTERM");
    await worker;
    expect(done.exitCode, done.all).toBe(0);
    const rows = await iterationsOf(sql, "frozen");
    expect(rows.map((r) => [r.iteration_number, r.status])).toEqual([
      [1, "complete"],
      [2, "complete"],
      [3, "complete"],
    ]);
    expectExactCounts(rows, expect);
    // The builds' time as the master logged it: the run took that, plus games, not a lock's wait.
    const built = [...done.all.matchAll(/engines built in (\d+(?:\.\d+)?) ?s/g)].map((m) => Number(m[1]));
    console.log(`takeover to completion: ${seconds.toFixed(1)} s; builds: ${built.join(", ")} s`);

    // Continued, the frozen master finds its run taken over and stops; it writes nothing.
    const before = await runRows(sql);
    const locks = treeLocks(outputDir);
    frozen.kill("SIGCONT");
    const lost = await frozen;
    expect(lost.exitCode, lost.all).toBe(6);
    // The next master ended and let the run go: no master holds it now.
    expect(lost.stderr).toMatch(
      /^error: run "frozen" was taken over by another master while this one stalled; this master stops$/m,
    );
    expect(await runRows(sql)).toEqual(before);
    expect(treeLocks(outputDir)).toEqual(locks);
    // No binary of its own: the completed run keeps no engine folder, and it made none again.
    expect(existsSync(join(outputDir, "frozen"))).toBe(false);
    expect(frozenOutput()).not.toMatch(/engines built/);
  }, 600_000);
});
