import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Chess } from "chess.js";
import { afterAll, describe, expect, it } from "vitest";
import { sha256OfFile } from "../../src/engine-build/binary-store.js";
import { claimBatch, reportBatch } from "../../src/db/batches.js";
import { readRunDetail } from "../../src/dashboard/run-detail.js";
import { FAULTED_GAME_LIMITS, storeFaultedGames, type FaultedGame } from "../../src/db/faulted-games.js";
import { requireRun } from "../../src/status/run-lookup.js";
import type { RunStatus } from "../../src/status/snapshot.js";
import { spsa } from "../support/cli.js";
import { useMigratedDatabase } from "../support/database.js";
import { inProcessWorker } from "../support/worker-loop.js";
import { clean, registerTestWorker, seedIteration } from "../support/iterations.js";
import { insertOptionRun } from "../../src/db/option-run.js";
import { topUpDraws } from "../../src/master/draw-pool.js";
import { signOptions } from "../../src/signing/options-signature.js";
import { localSigningKey } from "../support/signing.js";

const engines = (name: string) => fileURLToPath(new URL(`../fixtures/engines/${name}.mjs`, import.meta.url));

interface KeptRow {
  worker_name: string;
  side: string;
  fault: string;
  reason: string;
  pgn: string;
  plus_parameters: Record<string, number>;
  minus_parameters: Record<string, number>;
  plus_engine_sha256: string;
}

/**
 * Faulted games kept: real engine processes (a fixture that crashes at its third move, one
 * that plays cleanly) played by the worker loop on a real database, and the bounds and the
 * retried report checked on the report transaction itself.
 */
describe("faulted games kept", () => {
  const database = useMigratedDatabase(4);
  const dir = mkdtempSync(join(tmpdir(), "spsa-faulted-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** A stand-in binary running a fixture engine (its sha256 is what the database stores). */
  function binary(name: string) {
    const path = join(dir, name);
    writeFileSync(path, `#!/bin/sh\nexec node ${engines(name)} '{}'\n`);
    chmodSync(path, 0o755);
    return { path, sha256: sha256OfFile(path) };
  }

  const worker = (name: string) => inProcessWorker(database, dir, name);

  const keptOf = (runName: string) =>
    database.sql<KeptRow[]>`
      select f.worker_name, f.side, f.fault, f.reason, f.pgn, f.plus_parameters, f.minus_parameters, f.plus_engine_sha256
      from spsa_faulted_game f join spsa_run r on r.id = f.run_id where r.name = ${runName} order by f.id`;

  it("keeps the first 3 crashed games of an iteration per worker, with PGN, θ and hashes; export --faulted writes them as PGN", async () => {
    const crash = binary("crash");
    await seedIteration(database.sql, { runName: "crashy", targetGames: 8, engine: crash });
    const { done, lines } = worker("w-crash");
    // Every game ends in a crash, and every game is still counted.
    expect(await done, lines.join("\n")).toEqual({ games: 8, batches: 4, refused: 0, binariesRefused: 0 });
    const kept = await keptOf("crashy");
    expect(kept).toHaveLength(3);
    for (const row of kept) {
      expect(row).toMatchObject({
        worker_name: "w-crash",
        fault: "crash",
        plus_parameters: { X: 2 },
        minus_parameters: { X: 0 },
        plus_engine_sha256: crash.sha256,
      });
      expect(row.reason).toMatch(/crash/i);
      const chess = new Chess();
      chess.loadPgn(row.pgn);
      // The engine crashes at its third move: the game has at least its first two moves per side.
      expect(chess.history().length).toBeGreaterThanOrEqual(4);
    }

    const env = { DATABASE_URL: database.url };
    const status = await spsa(["status", "--name", "crashy", "--json"], { env });
    expect(status.exitCode, status.all).toBe(0);
    expect((JSON.parse(status.stdout) as RunStatus).faultedGamesKept).toBe(3);
    const text = await spsa(["status", "--name", "crashy"], { env });
    expect(text.stdout).toMatch(/; 3 faulted games kept \(spsa export --faulted\)/);

    // The dashboard's run page lists them (without their moves).
    const detail = await readRunDetail(database.sql, await requireRun(database.sql, "crashy"));
    expect(detail.faultedGames.map((g) => ({ iteration: g.iteration, worker: g.workerName, fault: g.fault }))).toEqual(
      Array.from({ length: 3 }, () => ({ iteration: 1, worker: "w-crash", fault: "crash" })),
    );

    const file = join(dir, "faulted.pgn");
    const exported = await spsa(["export", "--name", "crashy", "--faulted", "--out", file], { env });
    expect(exported.exitCode, exported.all).toBe(0);
    const games = readFileSync(file, "utf8").split(/\n\n(?=\[Event )/);
    expect(games).toHaveLength(3);
    for (const [index, game] of games.entries()) {
      const chess = new Chess();
      chess.loadPgn(game);
      expect(chess.getHeaders()).toMatchObject({
        Run: "crashy",
        Iteration: "1",
        Worker: "w-crash",
        Fault: "crash",
        PlusTheta: "X=2",
        MinusTheta: "X=0",
        PlusHash: crash.sha256,
        Termination: "abandoned",
      });
      expect(chess.getHeaders().FaultReason).toBe(kept[index]?.reason);
    }
  });

  it("keeps a UCI-option batch's crashed games with the options' values by name (the batch stores them in the run's order)", async () => {
    const crash = binary("crash");
    const { run, iteration } = await seedIteration(database.sql, {
      runName: "crashy-options",
      targetGames: 2,
      engine: crash,
      openBatches: false,
    });
    const parameters = {
      Y: { min: -10, max: 10, step: 1, type: "int" as const, frozen: false, option: "Y", optionScale: undefined },
      X: { min: 0, max: 10, step: 1, type: "int" as const, frozen: false, option: "X", optionScale: undefined },
    };
    const gains = { a: 1, c: 1, A: 1, alpha: 0.602, gamma: 0.101, maxIterations: 1 };
    const optionRun = {
      runId: run.id,
      iterationId: iteration.id,
      enginePath: crash.path,
      engineSha256: crash.sha256,
      parameters,
      names: ["X", "Y"],
      thetaEvery: 1,
      gains,
      gamesPerIteration: 2,
      parametersSignature: signOptions(localSigningKey().signMessage, run.uid, parameters),
    };
    await insertOptionRun(database.sql, optionRun);
    await database.sql`update spsa_run set initial_parameters = '{"X": 1, "Y": 0}', current_parameters = '{"X": 1, "Y": 0}' where id = ${run.id}`;
    expect(await topUpDraws(database.sql, { ...optionRun, seed: run.seed }, 2, 2)).toBe(1);
    const [stored] = await database.sql<
      { plus: number[]; minus: number[] }[]
    >`select plus_parameters as plus, minus_parameters as minus from spsa_perturbation where run_id = ${run.id}`;
    const { done, lines } = worker("w-crash-options");
    expect(await done, lines.join("\n")).toMatchObject({ games: 2, batches: 1 });
    const kept = await keptOf("crashy-options");
    expect(kept.length).toBeGreaterThan(0);
    for (const row of kept)
      expect(row).toMatchObject({
        plus_parameters: { X: stored!.plus[0], Y: stored!.plus[1] },
        minus_parameters: { X: stored!.minus[0], Y: stored!.minus[1] },
      });
  });

  it("keeps no game of a clean iteration", async () => {
    await seedIteration(database.sql, { runName: "clean", targetGames: 4, engine: binary("timed") });
    const { done, lines } = worker("w-clean");
    expect(await done, lines.join("\n")).toEqual({ games: 4, batches: 2, refused: 0, binariesRefused: 0 });
    expect(await keptOf("clean")).toEqual([]);
  });

  it("holds the caps per iteration and worker and per run, refuses another worker's batch, and a retried report keeps nothing twice", async () => {
    const { perIterationAndWorker, perRun } = FAULTED_GAME_LIMITS;
    const game = (gameIndex: number): FaultedGame => ({
      gameIndex,
      side: "minus",
      fault: "illegal",
      reason: "black: illegal move",
      pgn: `[Event "t"]\n\n1. e4 *\n\n`,
    });
    await registerTestWorker(database.sql, "w-cap");
    // w-cap the only worker seen, one game slot: each iteration is one batch of all its games (planBatchSizes).
    await database.sql`update spsa_worker set last_seen_at = now() - interval '1 hour' where name <> 'w-cap'`;
    const batchIds: number[] = [];
    const report = async (iterationNumber: number) => {
      await seedIteration(database.sql, { runName: "capped", targetGames: 8, iterationNumber });
      const batch = await claimBatch(database.sql, "w-cap", 8);
      if (!batch) throw new Error("nothing to claim");
      batchIds.push(batch.batchId);
      // Four faulted games reported: more than an iteration keeps of one worker.
      const counts = {
        batchId: batch.batchId,
        workerName: "w-cap",
        wins: 8,
        losses: 0,
        draws: 0,
        pairs: [0, 0, 0, 0, 4] as [number, number, number, number, number],
        ...clean(),
        faultedGames: [0, 1, 2, 3].map(game),
      };
      expect(await reportBatch(database.sql, counts)).toBe("accepted");
      // The worker retries a report whose answer it lost: counted once, kept once.
      expect(await reportBatch(database.sql, counts)).toBe("duplicate");
    };
    const perIteration = async () =>
      database.sql<{ iteration: number; kept: number }[]>`
        select i.iteration_number as iteration, count(*)::int as kept
        from spsa_faulted_game f join spsa_iteration i on i.id = f.iteration_id join spsa_run r on r.id = f.run_id
        where r.name = 'capped' group by 1 order by 1`;
    await report(1);
    expect(await perIteration()).toEqual([{ iteration: 1, kept: perIterationAndWorker }]);

    // Other workers' games fill the run to 2 below its cap.
    const filler = perRun - perIterationAndWorker - 2;
    await database.sql`
      insert into spsa_faulted_game (run_id, iteration_id, batch_id, game_index, worker_name, side, fault, reason, pgn,
        plus_parameters, minus_parameters, plus_engine_sha256, minus_engine_sha256)
      select f.run_id, f.iteration_id, f.batch_id, 100 + n, 'w-other', f.side, f.fault, f.reason, f.pgn,
        f.plus_parameters, f.minus_parameters, f.plus_engine_sha256, f.minus_engine_sha256
      from spsa_faulted_game f, generate_series(1, ${filler}) n where f.batch_id = ${batchIds[0] ?? 0} and f.game_index = 0`;
    await report(2);
    await report(3);
    const [total] = await database.sql<
      { n: number }[]
    >`select count(*)::int as n from spsa_faulted_game f join spsa_run r on r.id = f.run_id where r.name = 'capped'`;
    expect(total?.n).toBe(perRun);
    expect((await perIteration()).map((row) => row.iteration)).toEqual([1, 2]);

    // A worker cannot keep games under another worker's batch.
    await registerTestWorker(database.sql, "w-thief");
    await expect(
      database.sql.begin((tx) =>
        storeFaultedGames(tx, { batchId: batchIds[0] ?? 0, workerName: "w-thief", games: [game(9)] }),
      ),
    ).rejects.toThrow(`batch ${batchIds[0]} is not a reported batch of worker "w-thief"`);
  });
});
