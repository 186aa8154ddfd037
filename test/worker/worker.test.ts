import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sha256OfFile } from "../../src/engine-build/binary-store.js";
import { loadConfig } from "../../src/config/config.js";
import { returnToPool } from "../../src/db/batches.js";
import type { WorkerOptions } from "../../src/worker/worker.js";
import type { RunStatus } from "../../src/status/snapshot.js";
import { timeFactor } from "../../src/worker/time-factor.js";
import { spsa } from "../support/cli.js";
import { useMigratedDatabase } from "../support/database.js";
import { inProcessWorker } from "../support/worker-loop.js";
import { foldRun, seedIteration } from "../support/iterations.js";
import { buildMinnow } from "../support/minnow.js";
import { waitFor } from "../support/processes.js";

const TIMED = fileURLToPath(new URL("../fixtures/engines/timed.mjs", import.meta.url));
const LOGGING = fileURLToPath(new URL("../fixtures/engines/logging.mjs", import.meta.url));

/**
 * The worker loop in-process on a real database, playing real games with a fixture engine
 * that spends its movetime like a real one, so a batch lasts seconds, not milliseconds.
 */
describe("the worker loop", () => {
  const database = useMigratedDatabase(6);
  const dir = mkdtempSync(join(tmpdir(), "spsa-worker-"));
  const engine = { path: join(dir, "engine"), sha256: "" };
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  beforeAll(() => {
    writeFileSync(engine.path, `#!/bin/sh\nexec node ${TIMED} '{}'\n`);
    chmodSync(engine.path, 0o755);
    engine.sha256 = sha256OfFile(engine.path);
  });

  /** A stand-in binary: a shell script running `command` (its sha256 is what the database stores). */
  function script(name: string, command: string) {
    const path = join(dir, name);
    writeFileSync(path, `#!/bin/sh\nexec ${command}\n`);
    chmodSync(path, 0o755);
    return { path, sha256: sha256OfFile(path) };
  }
  /** config.toml with this [time_control] section, as the master would read it. */
  function configWith(timeControl: string) {
    const file = join(dir, `config-${timeControl.replace(/\W+/g, "-")}.toml`);
    writeFileSync(file, `[time_control]\n${timeControl}\n`);
    return loadConfig(file);
  }
  /** The `go` commands a logging engine was sent (every process of it appends to the same file). */
  const goCommands = (log: string) =>
    existsSync(log)
      ? readFileSync(log, "utf8")
          .split("\n")
          .filter((line) => line.startsWith("go "))
      : [];

  const worker = (name: string, extra: Partial<WorkerOptions> = {}) => inProcessWorker(database, dir, name, extra);

  /** The run's iteration as its master sees it: folded from the batches first. */
  const iterationOf = async (runName: string) => {
    await foldRun(database.sql, runName);
    const [row] = await database.sql<{ games_played: number; games_claimed: number; results: number }[]>`
      select games_played, games_claimed, plus_wins + minus_wins + draws as results
      from spsa_iteration i join spsa_run r on r.id = i.run_id where r.name = ${runName}`;
    return row;
  };
  const batchesOf = (runName: string) =>
    database.sql<
      { id: number; worker_name: string; games: number; status: string; reported: boolean; pairs: number }[]
    >`
      select b.id, b.worker_name, b.games, b.status, b.reported_at is not null as reported,
        coalesce((select sum(p::int) from jsonb_array_elements_text(b.pairs) p), 0)::int as pairs
      from spsa_batch b join spsa_iteration i on i.id = b.iteration_id join spsa_run r on r.id = i.run_id
      where r.name = ${runName} order by b.id`;

  it("claims an iteration's games in batches, reports each once, and stops when no work is left", async () => {
    await seedIteration(database.sql, { runName: "plain", targetGames: 4, engine });
    const { done, lines } = worker("w-plain");
    expect(await done, lines.join("\n")).toEqual({ games: 4, batches: 2, refused: 0, binariesRefused: 0 });
    expect(await iterationOf("plain")).toEqual({ games_played: 4, games_claimed: 4, results: 4 });
    const batches = await batchesOf("plain");
    expect(
      batches.map(({ worker_name, games, status, reported, pairs }) => ({
        worker_name,
        games,
        status,
        reported,
        pairs,
      })),
    ).toEqual([
      { worker_name: "w-plain", games: 2, status: "done", reported: true, pairs: 1 },
      { worker_name: "w-plain", games: 2, status: "done", reported: true, pairs: 1 },
    ]);
    // Each batch said as it starts, so a log shows what the worker plays before its report.
    expect(lines.filter((line) => line.includes("starts batch"))).toEqual(
      batches.map((b) => `worker w-plain: starts batch ${b.id} (2 games, run plain, iteration 1)`),
    );
  });

  it("a batch taken from it while it plays is refused on report, and its games are played again and counted once", async () => {
    await seedIteration(database.sql, { runName: "taken", targetGames: 2, engine });
    const { done, lines } = worker("w-taken");
    let batchId = 0;
    await waitFor(
      async () => {
        batchId = (await batchesOf("taken")).find((b) => b.status === "claimed")?.id ?? 0;
        return batchId > 0;
      },
      60_000,
      "the worker's first claim",
    );
    // What expiry or another process of the name does: the games go back to the pool.
    const released = await database.sql.begin(async (tx) => {
      await tx`update spsa_batch set lease_expires_at = now() - interval '1 second' where id = ${batchId}`;
      return returnToPool(tx, null);
    });
    expect(released).toEqual({ batches: 1, games: 2 });

    expect(await done, lines.join("\n")).toEqual({ games: 2, batches: 1, refused: 1, binariesRefused: 0 });
    expect(lines).toContain(`batch ${batchId} was refused: its lease expired and its games went back to the pool`);
    expect(await iterationOf("taken")).toEqual({ games_played: 2, games_claimed: 2, results: 2 });
    const batches = await batchesOf("taken");
    expect(batches.map(({ games, status, reported }) => ({ games, status, reported }))).toEqual([
      { games: 2, status: "expired", reported: false },
      { games: 2, status: "done", reported: true },
    ]);
  });

  it.each([
    ["nodes = 1234", "go nodes 1234"],
    ["depth = 3", "go depth 3"],
  ])("an iteration of [time_control] %s has every move searched to it, never timed", async (limit, go) => {
    const runName = limit.split(" ")[0] ?? "";
    const log = join(dir, `${runName}.log`);
    const logging = script(`logging-${runName}`, `node ${LOGGING} ${log}`);
    await seedIteration(database.sql, { runName, targetGames: 4, engine: logging, config: configWith(limit) });
    const { done, lines } = worker(`w-${runName}`);
    expect(await done, lines.join("\n")).toEqual({ games: 4, batches: 2, refused: 0, binariesRefused: 0 });
    const sent = goCommands(log);
    // Four games of random moves: dozens of moves, each searched at the limit.
    expect(sent.length).toBeGreaterThan(8);
    expect(new Set(sent)).toEqual(new Set([go]));
  });

  it("scales its times per move by reference_nps / the speed it measured, and records both", async () => {
    // The logging engine answers at once with `nodes 1 time 1`: it searches 1000 nodes/s, so reference_nps 2000 doubles every time.
    const log = join(dir, "scaled.log");
    const logging = script("logging-scaled", `node ${LOGGING} ${log}`);
    const config = configWith("timelow = 0.01\ntimehigh = 0.02\nreference_nps = 2000");
    await seedIteration(database.sql, { runName: "scaled", targetGames: 4, engine: logging, config });
    const { done, lines } = worker("w-scaled");
    expect(await done, lines.join("\n")).toEqual({ games: 4, batches: 2, refused: 0, binariesRefused: 0 });
    expect(lines).toContain(
      "worker w-scaled: engine speed 1000 nodes/s; times per move × 2.000 for reference_nps 2000",
    );
    const sent = goCommands(log);
    // The measurement's three searches come first, then the games at 2 × [10, 20] ms (the iteration's timelow and timehigh).
    expect(sent.slice(0, 3)).toEqual(Array(3).fill("go movetime 1000"));
    const times = sent.slice(3).map((line) => Number(/^go movetime (\d+)$/.exec(line)?.[1]));
    expect(times.length).toBeGreaterThan(8);
    for (const ms of times) {
      expect(ms).toBeGreaterThanOrEqual(20);
      expect(ms).toBeLessThanOrEqual(40);
    }
    const [row] = await database.sql`select measured_nps, time_factor from spsa_worker where name = 'w-scaled'`;
    expect(row).toEqual({ measured_nps: 1000, time_factor: 2 });
  });

  it("measures minnow's real speed, and spsa status shows it per worker", async () => {
    const minnow = await buildMinnow();
    const engine = { path: minnow, sha256: sha256OfFile(minnow) };
    const referenceNps = 800_000;
    const config = configWith(`timelow = 0.01\ntimehigh = 0.02\nreference_nps = ${referenceNps}`);
    await seedIteration(database.sql, { runName: "minnow-speed", targetGames: 2, engine, config });
    const { done, lines } = worker("w-minnow");
    expect(await done, lines.join("\n")).toEqual({ games: 2, batches: 1, refused: 0, binariesRefused: 0 });
    // The run's master folds the report: its worker rows count from there, as its counters do.
    await foldRun(database.sql, "minnow-speed");

    const result = await spsa(["status", "--name", "minnow-speed", "--json"], { env: { DATABASE_URL: database.url } });
    expect(result.exitCode, result.all).toBe(0);
    const status = JSON.parse(result.stdout) as RunStatus;
    const measured = status.workers.find((w) => w.name === "w-minnow");
    // minnow searches about a million nodes per second on an idle core (engines/minnow/README.md).
    expect(measured?.measuredNps).toBeGreaterThan(10_000);
    expect(measured?.timeFactor).toBeCloseTo(timeFactor(referenceNps, measured?.measuredNps ?? 0).factor, 12);
    expect(lines.join("\n")).toMatch(
      /worker w-minnow: engine speed \d+ nodes\/s; times per move × \d\.\d{3} for reference_nps 800000/,
    );
    // Only this run's workers; one of a run without reference_nps never measures.
    expect(status.workers.map((w) => w.name)).toEqual(["w-minnow"]);
    const [plain] = await database.sql`select measured_nps, time_factor from spsa_worker where name = 'w-plain'`;
    expect(plain).toEqual({ measured_nps: null, time_factor: null });

    const text = await spsa(["status", "--name", "minnow-speed"], { env: { DATABASE_URL: database.url } });
    const row = text.stdout.split("\n").find((line) => line.startsWith("w-minnow "));
    expect(row).toContain(` ${Math.round(measured?.measuredNps ?? 0)} `);
    expect(row).toContain(` ${measured?.timeFactor?.toFixed(3)} `);
  });
});
