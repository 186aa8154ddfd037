import { copyFileSync, existsSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type postgres from "postgres";
import { describe, expect, it } from "vitest";
import { spsa } from "../support/cli.js";
import { expectExactCounts, iterationsOf, startMaster, startWorker, waitFor } from "../support/processes.js";
import { useRunFixture } from "../support/run-fixture.js";

const RUN = "disk";
const CACHE_FILES = 3;

/** Binaries whose bytes the database keeps, and every binary row (pruned ones keep their sha256 and size). */
async function stored(sql: postgres.Sql) {
  const [row] = await sql<{ kept: number; rows: number; sized: number; pruned: number }[]>`
    select count(content)::int as kept, count(*)::int as rows, count(*) filter (where size > 0)::int as sized,
      count(*) filter (where pruned_at is not null and content is null)::int as pruned from spsa_binary`;
  return row!;
}

const folders = (dir: string) => (existsSync(dir) ? readdirSync(dir) : []);

describe("a build-mode run of several iterations", () => {
  // A ship check and transfers (every 2nd iteration at the ship limits) play engines of their own and the iterations'.
  // At most 2 iterations open at once (and a transfer of an earlier one): what may be kept at a time is known.
  const fixture = useRunFixture({
    iterations: 6,
    games: 8,
    batchSize: 4,
    leaseSeconds: 30,
    moveLimit: "nodes = 300",
    ownBuilds: true,
    spsaLines: "max_staleness = 1",
    extraConfig: `[worker]\nengine_cache_files = ${CACHE_FILES}\n\n[ship]\nnodes = 600\nmax_games = 8\ntransfer_every = 2\ntransfer_games = 4\n`,
  });

  it("keeps no binary of a completed iteration in the database, output_dir or beyond the worker's cache bound; the result, the ship check and spsa verify still work; a pruned binary that recurs is stored again and runs", async () => {
    const { setup, sql } = fixture;
    const home = join(setup.dir, "home");
    mkdirSync(home);
    // The master's key and the worker's engine cache: the test's own.
    const env = { ...fixture.env, SPSA_HOME: home };
    const cache = join(home, "engine-cache");
    const output = join(setup.dir, "builds");
    const initialParams = join(setup.dir, "initial-params.toml");
    copyFileSync(setup.paramsFile, initialParams);
    let worker = startWorker(setup, env, "disk", ["-c", "2"]);
    try {
      // Killed in the middle of a sweep: the iteration's folder is gone, its bytes still in the database.
      const crashed = await startMaster(setup, { ...env, SPSA_CRASH_AT: "builds-swept" }, RUN, ["--seed", "d"]);
      expect(crashed.signal, crashed.all).toBe("SIGKILL");
      const [left] = await sql<{ n: number }[]>`
        select count(*)::int as n from spsa_iteration i join spsa_run r on r.id = i.run_id join spsa_binary b on b.sha256 = i.plus_engine_sha256
        where r.name = ${RUN} and i.status = 'complete' and b.content is not null`;
      expect(left?.n).toBeGreaterThan(0);

      // The restarted master finishes the sweep and the run; what is kept is sampled as it goes.
      const master = startMaster(setup, env, RUN, ["--seed", "d"]);
      const most = { kept: 0, iterationFolders: 0, cached: 0 };
      let running = true;
      void master.finally(() => (running = false));
      while (running) {
        const now = {
          kept: (await stored(sql)).kept,
          iterationFolders: folders(join(output, RUN)).length,
          cached: folders(cache).filter((f) => /^[0-9a-f]{64}$/.test(f)).length,
        };
        for (const key of Object.keys(most) as (keyof typeof most)[]) most[key] = Math.max(most[key], now[key]);
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      const result = await master;
      expect(result.exitCode, result.all).toBe(0);
      expect(result.all).toMatch(/ship check: .*/);
      const rows = await iterationsOf(sql, RUN);
      expect(rows.map((row) => row.iteration_number)).toEqual([1, 2, 3, 4, 5, 6]);
      expectExactCounts(rows, expect);

      // Built: 12 plus and minus, θ₀ for the pilot, 2 for the ship check (one of them θ₀ again). Kept at most a few at a time, none at the end.
      const after = await stored(sql);
      const [named] = await sql<{ n: number }[]>`
        select count(distinct sha)::int as n from spsa_iteration, unnest(array[plus_engine_sha256, minus_engine_sha256, reference_engine_sha256]) as sha`;
      expect(after.rows).toBe(named?.n);
      expect(after.rows).toBeGreaterThanOrEqual(12);
      expect(after).toEqual({ kept: 0, rows: after.rows, sized: after.rows, pruned: after.rows });
      // Two iterations open, a transfer of the one before, θ₀ of the pilot (its folder `reference/` too).
      expect(most.kept).toBeLessThanOrEqual(7);
      expect(most.iterationFolders).toBeLessThanOrEqual(4);
      expect(existsSync(join(output, RUN)), "the run's builds").toBe(false);
      expect(folders(join(output, "verify")).sort(), "the ship check's builds").toEqual(["logs", "trees"]);
      // The records stay: every iteration (the carriers' too) names its binaries' sha256 and signatures, each a row with its size.
      const [unnamed] = await sql<{ n: number }[]>`
        select count(*)::int as n from spsa_iteration i
        where i.plus_engine_signature is null or i.minus_engine_signature is null
          or not exists (select 1 from spsa_binary b where b.sha256 = i.plus_engine_sha256 and b.size > 0)
          or not exists (select 1 from spsa_binary b where b.sha256 = i.minus_engine_sha256 and b.size > 0)`;
      expect(unnamed?.n).toBe(0);
      const [ship] = await sql<{ status: string; verdict: string | null }[]>`
        select s.status, s.verdict from spsa_ship_check s join spsa_run r on r.id = s.run_id where r.name = ${RUN}`;
      expect(ship?.status).toBe("complete");
      expect(ship?.verdict).not.toBeNull();

      // spsa verify builds what it needs, and keeps nothing once played.
      const verify = await spsa(
        ["--config", setup.configFile, "verify", "--params", setup.paramsFile, "--name", RUN, "--games", "4"],
        { env },
      );
      expect(verify.exitCode, verify.all).toBe(0);
      expect(verify.all).toMatch(/games 4\/4 {2}\+\d+ -\d+ =\d+/);
      expect((await stored(sql)).kept).toBe(0);
      expect(folders(join(output, "verify")).sort()).toEqual(["logs", "trees"]);
      // The worker's cache: within its bound beyond the binaries batches were playing.
      expect(most.cached).toBeLessThan(after.rows);
      expect(folders(cache).filter((f) => /^[0-9a-f]{64}$/.test(f)).length).toBeLessThanOrEqual(CACHE_FILES);

      // The same seed from the same θ builds iteration 1's engines again, byte for byte: their pruned rows get their bytes back.
      worker.kill("SIGTERM");
      await worker;
      const recur = startMaster({ ...setup, paramsFile: initialParams }, env, "recur", ["--seed", "d"]);
      await waitFor(
        async () => (await iterationsOf(sql, "recur")).length > 0,
        120_000,
        "iteration 1 of the second run",
      );
      const [again] = await sql<{ same: boolean; intact: boolean; pruned: boolean }[]>`
        select i.plus_engine_sha256 = first.plus_engine_sha256 and i.minus_engine_sha256 = first.minus_engine_sha256 as same,
          encode(sha256(b.content), 'hex') = b.sha256 as intact, b.pruned_at is not null as pruned
        from spsa_iteration i join spsa_run r on r.id = i.run_id and r.name = 'recur'
          join spsa_iteration first on first.run_id = (select id from spsa_run where name = ${RUN}) and first.iteration_number = 1
          join spsa_binary b on b.sha256 = i.plus_engine_sha256
        where i.iteration_number = 1`;
      expect(again).toEqual({ same: true, intact: true, pruned: false });
      worker = startWorker(setup, env, "disk", ["-c", "2"]);
      await waitFor(
        async () => (await iterationsOf(sql, "recur"))[0]?.status === "complete",
        120_000,
        "iteration 1 of the second run played",
      );
      recur.kill("SIGTERM");
      await recur;
      expectExactCounts((await iterationsOf(sql, "recur")).slice(0, 1), expect);
    } finally {
      worker.kill("SIGTERM");
      await worker;
    }
  });
});
