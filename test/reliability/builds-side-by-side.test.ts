import { copyFileSync, existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  expectExactCounts,
  expectRunFinal,
  iterationsOf,
  replayTheta,
  startMaster,
  startWorker,
  waitFor,
} from "../support/processes.js";
import { useRunFixture } from "../support/run-fixture.js";

const ITERATIONS = 6;

/** Every build in the cargo logs of the build trees (src/engine-build/cargo.ts): its tree, start, and end (undefined: never ended, its master killed). */
function buildsInLogs(output: string): { tree: string; start: number; end: number | undefined }[] {
  const logs = join(output, "logs");
  if (!existsSync(logs)) return [];
  return readdirSync(logs).flatMap((file) => {
    const builds: { tree: string; start: number; end: number | undefined }[] = [];
    for (const [, at, what] of readFileSync(join(logs, file), "utf8").matchAll(
      /^=== (\S+) \S+: (cargo|built|failed)/gm,
    )) {
      if (what === "cargo") builds.push({ tree: file.replace(/\.log$/, ""), start: Date.parse(at!), end: undefined });
      else builds[builds.length - 1]!.end = Date.parse(at!);
    }
    return builds;
  });
}

describe("builds side by side: a master building two iterations at once", () => {
  // Batches of 2: no curvature pilot, so iteration 2 may be drawn while iteration 1 builds.
  const fixture = useRunFixture({
    iterations: ITERATIONS,
    games: 8,
    batchSize: 2,
    moveLimit: "nodes = 500",
    buildLines: "builds_at_once = 2",
    ownBuilds: true,
  });

  // The bound covers cargo building some twenty engines on a busy machine; nothing waits for it.
  // (Minnow's own profile: each rebuild a second or so. bench/builds-side-by-side.mjs measures a
  // large engine's LTO builds side by side; here, what matters is that builds overlap, whatever
  // they last, and the logs show when each started and ended.)
  it(
    "builds two iterations at once in trees of their own, resumes after a kill -9 during both, and counts every game once with θ replayable",
    { timeout: 1_500_000 },
    async () => {
      const { setup, env, sql } = fixture;
      const output = join(setup.dir, "builds");
      const initialParams = join(setup.dir, "initial-params.toml");
      copyFileSync(setup.paramsFile, initialParams);
      const workers = ["a", "b", "c"].map((name) => startWorker(setup, env, name));
      try {
        // Killed with -9 while both builds run: the plus trees of slots 1 and 2 each have a build started and not ended.
        const killed = startMaster(setup, env, "side", ["--seed", "b"]);
        await waitFor(
          async () =>
            new Set(
              buildsInLogs(output)
                .filter((b) => b.end === undefined && b.tree.startsWith("plus"))
                .map((b) => b.tree),
            ).size === 2,
          600_000,
          "two builds at once",
        );
        killed.kill("SIGKILL");
        await killed;
        const master = await startMaster(setup, env, "side", ["--seed", "b"]);
        expect(master.exitCode, master.all).toBe(0);
        // Built side by side, opened in order.
        const opened = [...(master.all ?? "").matchAll(/^iteration (\d+): engines built/gm)].map((m) => Number(m[1]));
        expect(opened).toEqual([...opened].sort((a, b) => a - b));
      } finally {
        for (const worker of workers) worker.kill("SIGTERM");
        await Promise.all(workers);
      }

      const rows = await iterationsOf(sql, "side");
      expect(rows.map((r) => r.iteration_number)).toEqual(Array.from({ length: ITERATIONS }, (_, i) => i + 1));
      expectExactCounts(rows, expect);
      // Drawn while another iteration was built: its staleness counts it, and the replay below follows it.
      expect(rows.some((r) => r.staleness >= 1)).toBe(true);
      // The restarted master's builds overlapped too: a build in plus-2 ran while one in plus did.
      const ended = buildsInLogs(output).filter(
        (b): b is { tree: string; start: number; end: number } => b.end !== undefined,
      );
      const overlapping = ended.filter(
        (b) => b.tree === "plus-2" && ended.some((o) => o.tree === "plus" && o.start < b.end && b.start < o.end),
      );
      expect(overlapping.length).toBeGreaterThan(0);
      console.info(
        `builds side by side: staleness ${rows.map((r) => r.staleness).join(" ")}; ${overlapping.length} builds in plus-2 overlapped one in plus (${ended.length} builds ended)`,
      );
      const final = replayTheta(setup, initialParams, "b", rows, expect);
      await expectRunFinal(sql, setup, "side", final, expect);
    },
  );
});
