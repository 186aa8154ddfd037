import { generateKeyPairSync } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { sha256OfFile } from "../../src/engine-build/binary-store.js";
import { signerFor } from "../../src/signing/binary-signature.js";
import { compete, spsa } from "../support/cli.js";
import { useMigratedDatabase } from "../support/database.js";
import { foldIteration } from "../../src/db/fold.js";
import { seedIteration, storeFile } from "../support/iterations.js";
import { localSigningKey } from "../support/signing.js";

const RANDOM_MOVER = fileURLToPath(new URL("../fixtures/engines/random-mover.mjs", import.meta.url));

/**
 * Finding 1 of issue 24, done for real: binaries planted in the database (unsigned, signed by
 * another key, or a genuine signature replayed on another iteration) reach real worker
 * processes, which must never run them. Each planted program writes a marker file if it runs.
 */
describe("signed binaries on real workers", () => {
  const database = useMigratedDatabase(2);
  /** Another database the same master signs for (the same key): its signatures must not be valid in the first. */
  const other = useMigratedDatabase(1);
  const dir = mkdtempSync(join(tmpdir(), "spsa-signed-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  // Each case's workers see only its own run: the runs before it are stopped.
  afterEach(async () => {
    await database.sql`update spsa_run set status = 'stopped'`;
  });
  const env = () => ({ DATABASE_URL: database.url });

  /** A UCI engine (the random mover) that first leaves `marker` behind: proof that it ran. */
  function markedEngine(name: string) {
    const path = join(dir, name);
    const marker = join(dir, `${name}.ran`);
    writeFileSync(path, `#!/bin/sh\necho ran > '${marker}'\nexec node '${RANDOM_MOVER}'\n`);
    chmodSync(path, 0o755);
    return { path, sha256: sha256OfFile(path), marker };
  }

  /** The iteration's counters as its master sees them: folded from the batches first. */
  async function iterationRow(id: number) {
    await foldIteration(database.sql, id);
    const [row] = await database.sql<{ games_claimed: number; games_played: number; binaries_refused: number }[]>`
      select games_claimed, games_played, binaries_refused from spsa_iteration where id = ${id}`;
    return row;
  }
  async function batchStatuses(id: number) {
    return (
      await database.sql<{ status: string }[]>`select status from spsa_batch where iteration_id = ${id} order by id`
    ).map((b) => b.status);
  }
  /** A worker process that stops after one batch, or after a second without work. */
  const worker = (name: string, extra: string[] = [], extraEnv: Record<string, string> = {}) =>
    compete(["--spsa", "-c", "1", "--batch-size", "2", "--games", "2", "--idle-exit", "1", "--name", name, ...extra], {
      env: { ...env(), ...extraEnv },
      timeout: 60_000,
    });
  const refusals = (stderr: string) => stderr.split("\n").filter((line) => line.includes("refused the"));

  /** An open iteration whose plus binary is `planted`, with `signature` beside it (the minus side is genuine). */
  async function plantedIteration(
    runName: string,
    planted: { path: string; sha256: string },
    signature: (run: { id: number; uid: string }) => string | null | Promise<string | null>,
    iterationNumber = 1,
  ) {
    const genuine = markedEngine(`${runName}-genuine`);
    const { run, iteration } = await seedIteration(database.sql, {
      runName,
      targetGames: 2,
      iterationNumber,
      engine: genuine,
    });
    await storeFile(database.sql, planted.path);
    await database.sql`update spsa_iteration set plus_engine_path = ${planted.path}, plus_engine_sha256 = ${planted.sha256},
      plus_engine_signature = ${await signature(run)} where id = ${iteration.id}`;
    return { run, iteration };
  }

  async function expectRefused(
    runName: string,
    iterationId: number,
    marker: string,
    result: Awaited<ReturnType<typeof worker>>,
  ) {
    expect(result.exitCode, result.all).toBe(0);
    expect(existsSync(marker), "the planted binary ran").toBe(false);
    expect(refusals(result.stderr), result.all).toHaveLength(1);
    // The refused batch expired and its games are open again, for a worker that trusts the binary.
    expect(await batchStatuses(iterationId)).toEqual(["expired", "open"]);
    expect(await iterationRow(iterationId)).toEqual({ games_claimed: 0, games_played: 0, binaries_refused: 1 });
    const status = await spsa(["status", "--name", runName, "--json"], { env: env() });
    expect(status.exitCode, status.all).toBe(0);
    expect(JSON.parse(status.stdout).binariesRefused).toBe(1);
    const text = await spsa(["status", "--name", runName], { env: env() });
    expect(text.stdout).toContain("binaries refused by workers: 1 batches");
  }

  it("an unsigned binary planted in spsa_binary never runs: the batch goes back, one line is logged, status counts it", async () => {
    const planted = markedEngine("planted-unsigned");
    const { iteration } = await plantedIteration("planted-unsigned", planted, () => null);
    const result = await worker("w-unsigned");
    expect(refusals(result.stderr)[0]).toMatch(
      /refused the plus binary of iteration 1 .*: it is not signed; batch \d+ goes back to the pool$/,
    );
    await expectRefused("planted-unsigned", iteration.id, planted.marker, result);
  });

  it("a binary signed by another key is refused", async () => {
    const planted = markedEngine("planted-other-key");
    const other = signerFor(generateKeyPairSync("ed25519").privateKey);
    const { iteration } = await plantedIteration("planted-other-key", planted, ({ uid }) =>
      other({ runUid: uid, iterationNumber: 1, role: "plus", sha256: planted.sha256 }),
    );
    const result = await worker("w-other-key");
    expect(refusals(result.stderr)[0]).toMatch(/its signature is not from a trusted master key/);
    await expectRefused("planted-other-key", iteration.id, planted.marker, result);
  });

  it("a genuine signature for iteration k replayed on iteration k+1 is refused", async () => {
    // The master signed this binary for iteration 1 (it played there); iteration 2 borrows it.
    const old = markedEngine("replayed");
    const first = await seedIteration(database.sql, {
      runName: "replayed",
      targetGames: 2,
      iterationNumber: 1,
      engine: old,
    });
    await database.sql`update spsa_iteration set status = 'complete' where id = ${first.iteration.id}`;
    const [signed] = await database.sql<
      { sig: string }[]
    >`select plus_engine_signature as sig from spsa_iteration where id = ${first.iteration.id}`;
    const { iteration } = await plantedIteration("replayed", old, () => signed!.sig, 2);
    const result = await worker("w-replayed");
    await expectRefused("replayed", iteration.id, old.marker, result);
  });

  it("a binary and its genuine signature, copied from a run of another database with the same run id and iteration, are refused", async () => {
    // The master's key signed this binary for run N, iteration 1 of database A; database B's run N borrows it.
    const planted = markedEngine("other-database");
    const { run, iteration } = await plantedIteration("other-database", planted, async ({ id }) => {
      await other.sql`select setval(pg_get_serial_sequence('spsa_run', 'id'), ${id}, false)`;
      const there = await seedIteration(other.sql, { runName: "other-database", targetGames: 2, engine: planted });
      expect(there.run.id).toBe(id);
      const [row] = await other.sql<
        { sig: string }[]
      >`select plus_engine_signature as sig from spsa_iteration where id = ${there.iteration.id}`;
      return row!.sig;
    });
    const [there] = await other.sql<{ uid: string }[]>`select uid from spsa_run where id = ${run.id}`;
    expect(there!.uid).not.toBe(run.uid);
    const result = await worker("w-other-database");
    expect(refusals(result.stderr)[0]).toMatch(
      new RegExp(
        `refused the plus binary of iteration 1 \\(run ${run.uid}, .*its signature is not from a trusted master key`,
      ),
    );
    await expectRefused("other-database", iteration.id, planted.marker, result);
  });

  it("a reference engine planted in a reference-mode iteration never runs: unsigned, signed by another key or as another side, the batch goes back", async () => {
    const other = signerFor(generateKeyPairSync("ed25519").privateKey);
    for (const [name, signature] of [
      ["planted-reference", (): string | null => null],
      [
        "foreign-reference",
        (runUid: string, sha256: string): string | null =>
          other({ runUid, iterationNumber: 1, role: "reference", sha256 }),
      ],
      // The master's own key, but signed as this iteration's plus engine: not valid as its reference.
      [
        "plus-as-reference",
        (runUid: string, sha256: string): string | null =>
          localSigningKey().sign({ runUid, iterationNumber: 1, role: "plus", sha256 }),
      ],
    ] as const) {
      const genuine = markedEngine(`${name}-genuine`);
      const planted = markedEngine(name);
      // The master's iteration against a reference of its own; the database writer then swaps the reference.
      const { run, iteration } = await seedIteration(database.sql, {
        runName: name,
        targetGames: 4,
        engine: genuine,
        reference: genuine,
      });
      await storeFile(database.sql, planted.path);
      await database.sql`update spsa_iteration set reference_engine_path = ${planted.path}, reference_engine_sha256 = ${planted.sha256},
        reference_engine_signature = ${signature(run.uid, planted.sha256)} where id = ${iteration.id}`;
      const result = await worker(`w-${name}`);
      expect(refusals(result.stderr)[0]).toMatch(
        /refused the reference binary of iteration 1 .*: (it is not signed|its signature is not from a trusted master key)/,
      );
      await expectRefused(name, iteration.id, planted.marker, result);
      expect(existsSync(genuine.marker), "plus or minus ran without the reference").toBe(false);
      await database.sql`update spsa_run set status = 'stopped' where id = ${run.id}`;
    }
  });

  it("a worker with no trusted key, against a database not its own, refuses with one line naming how to pin one", async () => {
    const engine = markedEngine("no-key");
    const { iteration } = await seedIteration(database.sql, { runName: "no-key", targetGames: 2, engine });
    const home = join(dir, "second-machine");
    mkdirSync(home);
    const result = await worker("w-no-key", [], { SPSA_HOME: home });
    expect(result.exitCode, result.all).toBe(2);
    // Besides the progress line and the one naming its database, the one line of the error.
    const said = result.stderr
      .trim()
      .split("\n")
      .filter((line) => !/^worker w-no-key: (\d+ games in|database ")/.test(line));
    expect(said, result.all).toEqual([
      expect.stringMatching(
        /^error: no trusted master key .*`spsa key` .*--trust KEY.*\[worker\] trusted_keys in config.toml$/,
      ),
    ]);
    expect(existsSync(engine.marker)).toBe(false);
    expect(await batchStatuses(iteration.id)).toEqual(["expired", "open"]);
    expect(await iterationRow(iteration.id)).toEqual({ games_claimed: 0, games_played: 0, binaries_refused: 1 });
  });

  it("the same second machine, given the master's key with --trust (as `spsa key` prints it), plays and reports", async () => {
    const engine = markedEngine("pinned");
    const { iteration } = await seedIteration(database.sql, { runName: "pinned", targetGames: 2, engine });
    const key = await spsa(["key"]);
    expect(key.stdout.trim()).toBe(localSigningKey().publicKey);
    const home = join(dir, "pinned-machine");
    mkdirSync(home);
    const result = await worker("w-pinned", ["--trust", key.stdout.trim()], { SPSA_HOME: home });
    expect(result.exitCode, result.all).toBe(0);
    expect(refusals(result.stderr)).toEqual([]);
    expect(existsSync(engine.marker)).toBe(true);
    expect(await iterationRow(iteration.id)).toEqual({ games_claimed: 2, games_played: 2, binaries_refused: 0 });
  });
});
