import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { sha256OfFile } from "../../src/engine-build/binary-store.js";
import { loadConfig } from "../../src/config/config.js";
import { loadParams } from "../../src/params/params.js";
import { settingsOf } from "../../src/config/iteration-settings.js";
import { insertIteration } from "../../src/db/iterations.js";
import { signedEngines } from "../../src/signing/binary-signature.js";
import { planBatchSizes } from "../../src/spsa/batch-plan.js";
import { localSigningKey } from "../support/signing.js";
import { storedRunConfig } from "../../src/config/secrets.js";
import { openRun } from "../../src/db/runs.js";
import { ROOT } from "../support/cli.js";
import { startMaster, startWorker } from "../support/processes.js";
import { useRunFixture } from "../support/run-fixture.js";

const fixturePath = (path: string) => join(ROOT, "test", "fixtures", path);

/**
 * A fake engine of test/fixtures/engines as one self-contained file: a worker runs the bytes it
 * verified from its own engine cache, where a script's imports of its siblings would not resolve.
 */
function standalone(dir: string, script: string): string {
  const path = join(dir, `${script.replaceAll("/", "-")}.sh`);
  writeFileSync(path, `#!/bin/sh\nexec node '${fixturePath(script)}' "$@"\n`, { mode: 0o755 });
  return path;
}

const BROKEN = [
  { kind: "crashes at start", path: () => fixturePath("broken/crash-at-start.sh"), column: "plus_crashes" },
  { kind: "hangs", path: (dir: string) => standalone(dir, "engines/hang.mjs"), column: "plus_time_losses" },
  { kind: "plays illegal moves", path: () => fixturePath("broken/illegal-always.sh"), column: "plus_illegal_moves" },
] as const;

describe("broken plus engines inside a tuning run", () => {
  const fixture = useRunFixture({ iterations: 1, games: 4, batchSize: 2, timelow: 0.02, timehigh: 0.03 });

  it.each(BROKEN)(
    "a plus engine that $kind shows as faults in the row and in both logs",
    async ({ kind, path: pathIn, column }) => {
      const { setup, env, sql } = fixture;
      const path = pathIn(setup.dir);
      // An iteration as the master would have inserted it, but with a broken plus binary.
      const name = `broken-${column}`;
      const params = loadParams(setup.paramsFile);
      const config = loadConfig(setup.configFile);
      const values = Object.fromEntries(params.map((p) => [p.name, p.value]));
      const { run } = await openRun(sql, { name, fresh: false, config: storedRunConfig(config), values });
      const minus = standalone(setup.dir, "engines/random-mover.mjs");
      await insertIteration(sql, {
        runId: run.id,
        iterationNumber: 1,
        ...signedEngines(
          localSigningKey().sign,
          { runUid: run.uid, iterationNumber: 1 },
          {
            plus: { path, sha256: sha256OfFile(path) },
            minus: { path: minus, sha256: sha256OfFile(minus) },
          },
        ),
        timelowMs: 20,
        timehighMs: 30,
        targetGames: 4,
        batchSizes: planBatchSizes(4, config.games.batchSize, 0),
        ck: 1,
        ak: 0.1,
        base: values,
        plusValues: values,
        minusValues: values,
        signs: Object.fromEntries(Object.keys(values).map((k) => [k, 1])),
        settings: settingsOf(config, params),
      });

      const worker = startWorker(setup, env, `w-${column}`, ["--games", "4"]);
      const master = await startMaster(setup, env, name);
      const workerResult = await worker;
      expect(master.exitCode, master.all).toBe(0);
      expect(master.all, kind).toMatch(/warning: iteration 1: \d+ engine faults? in 4 games/);
      expect(workerResult.all, kind).toMatch(/engine faults \(plus: /);
      const [row] = await sql<{ faults: number; minus_wins: number; games_played: number }[]>`
      select ${sql(column)} as faults, minus_wins, games_played from spsa_iteration where run_id = ${run.id}`;
      expect(row?.games_played).toBe(4);
      expect(row?.faults, kind).toBeGreaterThan(0);
      expect(row?.minus_wins, kind).toBeGreaterThanOrEqual(row?.faults ?? 0);
    },
  );
});
