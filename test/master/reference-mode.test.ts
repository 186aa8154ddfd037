import { appendFileSync, copyFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { sha256OfFile } from "../../src/engine-build/binary-store.js";
import { recordedParams } from "../../src/config/iteration-settings.js";
import { reportBatch } from "../../src/db/batches.js";
import { verifyBinary } from "../../src/signing/binary-signature.js";
import { iterationNoise, stepScales } from "../../src/spsa/adaptive.js";
import { readRunDetail } from "../../src/dashboard/run-detail.js";
import { findRun } from "../../src/db/run-status.js";
import { update } from "../../src/spsa/math.js";
import { spsa } from "../support/cli.js";
import { buildMinnow } from "../support/minnow.js";
import { startMaster, startWorker } from "../support/processes.js";
import type { RecordedIteration } from "../support/iterations.js";
import { replayChain } from "../support/replay-chain.js";
import { useRunFixture } from "../support/run-fixture.js";
import { referenceOutcome, type ReferenceCounts } from "../support/reference-counts.js";
import { localTrust } from "../support/signing.js";
import { noFaults } from "../../src/types/faults.js";

/** A recorded iteration with its reference-mode columns and its done batches' games (all, θ+'s and θ−'s). */
interface ReferenceRow extends RecordedIteration, ReferenceCounts {
  id: number;
  status: string;
  target_games: number;
  reference_engine_sha256: string | null;
  reference_engine_signature: string | null;
  elo_diff: number;
  batch_games: number;
  batch_plus: number;
  batch_minus: number;
}

/** Sets `key = value` lines in the config's [spsa] section (after max_iterations), or none. */
function withSpsaLines(configFile: string, lines: string): void {
  const text = readFileSync(configFile, "utf8").replace(/(max_iterations = \d+)\n(reference = .*\n)?/, `$1\n${lines}`);
  writeFileSync(configFile, text);
}

describe("reference mode on real engines: θ+ and θ− each play θ₀ through a real worker", () => {
  // Games at a node limit from a seeded worker: the same results every time, so the check
  // below that an iteration measured a difference cannot fail by chance.
  const fixture = useRunFixture({ iterations: 2, games: 16, batchSize: 4, moveLimit: "nodes = 1000" });

  it("builds θ₀ once across kills, counts every game once, and moves θ by the difference of both sides' Elo", async () => {
    const { setup, env, sql } = fixture;
    withSpsaLines(setup.configFile, 'reference = "start"\n');
    const worker = startWorker(setup, env, "a", ["--seed", "w"]);
    try {
      // Killed after building θ₀, before recording it: the run exists, its reference does not yet.
      const beforeRecord = await startMaster(setup, { ...env, SPSA_CRASH_AT: "reference-built" }, "ref", [
        "--seed",
        "r",
      ]);
      expect(beforeRecord.signal, beforeRecord.all).toBe("SIGKILL");
      const [unrecorded] = await sql`select reference, reference_sha256 from spsa_run where name = 'ref'`;
      expect(unrecorded).toEqual({ reference: "start", reference_sha256: null });
      // Killed while its first iteration's games come in; the last start finishes the run.
      const waiting = await startMaster(setup, { ...env, SPSA_CRASH_AT: "waiting" }, "ref", ["--seed", "r"]);
      expect(waiting.signal, waiting.all).toBe("SIGKILL");
      expect(waiting.all).toMatch(
        /run "ref": reference engine .*\/ref\/reference\/minnow \(sha256 [0-9a-f]{12}\); θ\+ and θ− each play it/,
      );
      const finished = await startMaster(setup, env, "ref", ["--seed", "r"]);
      expect(finished.exitCode, finished.all).toBe(0);
      // The resumed masters took the recorded reference: built once more only after the first kill.
      expect(finished.all).not.toContain("reference engine");
      // An Elo at ±elo_cap says so after the label.
      expect(finished.all).toMatch(
        new RegExp(
          "iteration 2: θ\\+ \\+\\d+ -\\d+ =\\d+, θ− \\+\\d+ -\\d+ =\\d+ vs reference, Elo -?\\d+\\.\\d " +
            "\\(θ\\+ vs reference − θ− vs reference(; capped at ±400 by \\[spsa\\] elo_cap, the games measured more)?\\)",
        ),
      );
    } finally {
      worker.kill("SIGTERM");
      await worker;
    }

    const [run] = await sql<
      {
        id: number;
        uid: string;
        reference: string;
        reference_path: string;
        reference_sha256: string;
        current_parameters: Record<string, number>;
      }[]
    >`
      select id, uid, reference, reference_path, reference_sha256, current_parameters from spsa_run where name = 'ref'`;
    if (!run) throw new Error("no run");
    expect(run.reference).toBe("start");
    // The run complete, its reference is kept for the record only: sha256 and size, no bytes, no file in output_dir.
    expect(existsSync(run.reference_path)).toBe(false);
    const [stored] =
      await sql`select count(*)::int as n, bool_and(content is null and size > 0) as pruned from spsa_binary where sha256 = ${run.reference_sha256}`;
    expect(stored).toEqual({ n: 1, pruned: true });

    const rows = await sql<ReferenceRow[]>`
      select i.id, i.iteration_number, i.status, i.target_games, i.games_played, i.plus_wins, i.minus_wins, i.draws,
        i.ref_plus_wins, i.ref_plus_draws, i.ref_plus_losses, i.ref_minus_wins, i.ref_minus_draws, i.ref_minus_losses,
        i.reference_engine_sha256, i.reference_engine_signature, i.a_k, i.elo_diff, i.base_parameters, i.plus_parameters,
        i.minus_parameters, i.settings, b.games as batch_games, b.plus as batch_plus, b.minus as batch_minus
      from spsa_iteration i, lateral (
        select coalesce(sum(games), 0)::int as games,
          coalesce(sum(ref_plus_wins + ref_plus_draws + ref_plus_losses), 0)::int as plus,
          coalesce(sum(ref_minus_wins + ref_minus_draws + ref_minus_losses), 0)::int as minus
        from spsa_batch where iteration_id = i.id and status = 'done') b
      where i.run_id = ${run.id} order by i.iteration_number`;
    expect(rows.map((r) => r.iteration_number)).toEqual([1, 2]);
    const names = Object.keys(rows[0]!.base_parameters);
    // Steps in order; an iteration opened in flight was drawn, and its scale chosen, `staleness` steps behind.
    const final = replayChain(
      rows,
      rows[0]!.base_parameters,
      (row) => row.settings.staleness ?? 0,
      (row, applied, theta) => {
        const k = row.iteration_number;
        const label = `iteration ${k}`;
        expect(row.status, label).toBe("complete");
        // Every game counted once: each side's games add up to half the target, the done batches to the target.
        expect(row.games_played, label).toBe(row.target_games);
        expect(row.ref_plus_wins + row.ref_plus_draws + row.ref_plus_losses, label).toBe(row.target_games / 2);
        expect(row.ref_minus_wins + row.ref_minus_draws + row.ref_minus_losses, label).toBe(row.target_games / 2);
        expect([row.plus_wins, row.minus_wins, row.draws], label).toEqual([0, 0, 0]);
        expect([row.batch_games, row.batch_plus, row.batch_minus], label).toEqual([
          row.target_games,
          row.target_games / 2,
          row.target_games / 2,
        ]);
        // The run's reference, signed for this iteration as the reference (and for nothing else).
        expect(row.reference_engine_sha256, label).toBe(run.reference_sha256);
        const subject = { runUid: run.uid, iterationNumber: k, sha256: run.reference_sha256 };
        expect(
          verifyBinary(localTrust(), { ...subject, role: "reference" }, row.reference_engine_signature),
          label,
        ).toBe(true);
        expect(verifyBinary(localTrust(), { ...subject, role: "plus" }, row.reference_engine_signature), label).toBe(
          false,
        );
        expect(row.settings.spsa.reference, label).toBe("start");
        // The adaptive step scale from the iterations before, with reference mode's noise; then the update, replayed from the counts.
        const history = rows.slice(0, applied).map((r) => ({ elo: r.elo_diff, result: referenceOutcome(r) }));
        const scale = stepScales(history, names, row.settings.spsa.adaptive);
        expect(row.settings.stepScale, label).toEqual(scale);
        const replayed = update(
          recordedParams(row.settings, theta),
          { ak: row.a_k, plus: row.plus_parameters, minus: row.minus_parameters, scale },
          referenceOutcome(row),
          row.settings.spsa,
        );
        expect(row.elo_diff, label).toBeCloseTo(replayed.elo, 12);
        return replayed.newValues;
      },
      expect,
    );
    for (const [name, value] of Object.entries(final))
      expect(run.current_parameters[name], `${name} at the end`).toBeCloseTo(value, 12);
    // The update is exercised only if some iteration measured a difference between θ+ and θ−.
    expect(
      rows.some((r) => r.elo_diff !== 0),
      "no iteration measured a difference",
    ).toBe(true);

    // A report sent again (its answer lost) is a duplicate and counts nothing.
    const [done] = await sql<
      { id: number; games: number; pw: number; pd: number; pl: number; mw: number; md: number; ml: number }[]
    >`
      select b.id, b.games, ref_plus_wins as pw, ref_plus_draws as pd, ref_plus_losses as pl, ref_minus_wins as mw, ref_minus_draws as md, ref_minus_losses as ml
      from spsa_batch b where b.iteration_id = ${rows[0]!.id} and b.status = 'done' order by b.id limit 1`;
    const [before] = await sql`select games_played::int as games from spsa_worker where name = 'a'`;
    const retried = await reportBatch(sql, {
      batchId: done!.id,
      workerName: "a",
      wins: 0,
      losses: 0,
      draws: 0,
      pairs: [0, 0, done!.games / 2, 0, 0],
      faults: [noFaults(), noFaults(), noFaults()],
      replays: 0,
      replayLimitPairs: 0,
      reference: {
        plus: { wins: done!.pw, draws: done!.pd, losses: done!.pl },
        minus: { wins: done!.mw, draws: done!.md, losses: done!.ml },
      },
    });
    expect(retried).toBe("duplicate");
    expect(await sql`select games_played::int as games from spsa_worker where name = 'a'`).toEqual([before]);

    // spsa status says it is a reference-mode run and shows both sides' scores; so do psql's views.
    const json = await spsa(["status", "--name", "ref", "--json"], { env });
    expect(json.exitCode, json.all).toBe(0);
    const status = JSON.parse(json.stdout);
    expect(status.reference).toEqual({ engine: "start", path: run.reference_path, sha256: run.reference_sha256 });
    expect(status.recent[0].reference).toEqual({
      plus: { wins: rows[1]!.ref_plus_wins, draws: rows[1]!.ref_plus_draws, losses: rows[1]!.ref_plus_losses },
      minus: { wins: rows[1]!.ref_minus_wins, draws: rows[1]!.ref_minus_draws, losses: rows[1]!.ref_minus_losses },
    });
    const text = await spsa(["status", "--name", "ref"], { env });
    expect(text.stdout).toContain(
      `reference mode: θ+ and θ− each play the reference engine (θ₀, built at the run's start, sha256 ${run.reference_sha256.slice(0, 12)})`,
    );
    expect(text.stdout).toContain("Elo of the last iterations (θ+ vs reference − θ− vs reference): #2 ");
    expect(text.stdout).toMatch(
      /scores against the reference \(θ\+ \/ θ−\): #2 \d+\.\d% \/ \d+\.\d% {2}#1 \d+\.\d% \/ \d+\.\d%/,
    );
    // The dashboard's Elo error bars: 95 % of the noise of both sides' Elo against the reference.
    const detail = await readRunDetail(sql, (await findRun(sql, "ref"))!);
    expect(detail.elo.map((point) => point.error)).toEqual(
      rows.map((r) => expect.closeTo(1.96 * Math.sqrt(iterationNoise(referenceOutcome(r))), 9)),
    );
    const progress = await sql`select iteration, vs_reference from spsa_progress where run = 'ref' order by iteration`;
    expect(progress.map((p) => p.vs_reference)).toEqual(
      rows.map(
        (r) =>
          `θ+ +${r.ref_plus_wins} -${r.ref_plus_losses} =${r.ref_plus_draws}, θ− +${r.ref_minus_wins} -${r.ref_minus_losses} =${r.ref_minus_draws}`,
      ),
    );

    // A different reference is a different run: refused with one line, nothing written.
    const refused = async (lines: string) => {
      withSpsaLines(setup.configFile, lines);
      const result = await startMaster(setup, env, "ref");
      expect(result.exitCode, result.all).toBe(2);
      const said = result.stderr
        .trim()
        .split("\n")
        .filter((line) => !line.startsWith('run "ref" resumed'));
      expect(said, result.all).toHaveLength(1);
      return said[0];
    };
    const minnow = await buildMinnow();
    expect(await refused(`reference = "${minnow}"\n`)).toBe(
      `error: ${setup.configFile}: [spsa] reference: run "ref" plays against θ₀ built at the run's start (reference = "start"), not ${minnow}; ` +
        "a different reference is a different run: start it over with --fresh, or use another --name",
    );
    expect(await refused("")).toMatch(
      /^error: .*: \[spsa\] reference: run "ref" plays against a reference engine \(θ₀ built at the run's start .*\); set it again; a different reference is a different run/,
    );
    const [unchanged] = await sql`select current_parameters from spsa_run where name = 'ref'`;
    expect(unchanged?.current_parameters).toEqual(run.current_parameters);
    // Eight engine builds, three master starts and one reference build: slower than most on a busy machine.
  }, 300_000);
});

describe("reference mode with an engine file: taken as is, and refused once its bytes change", () => {
  const fixture = useRunFixture({ iterations: 1, games: 4, batchSize: 4, moveLimit: "nodes = 500" });

  it("stores the file's bytes, plays one iteration against them, and refuses the run once the file differs", async () => {
    const { setup, env, sql } = fixture;
    const engine = join(setup.dir, "reference-engine");
    copyFileSync(await buildMinnow(), engine);
    withSpsaLines(setup.configFile, 'reference = "reference-engine"\n');
    const worker = startWorker(setup, env, "f", ["--seed", "f"]);
    try {
      const result = await startMaster(setup, env, "file", ["--seed", "f"]);
      expect(result.exitCode, result.all).toBe(0);
    } finally {
      worker.kill("SIGTERM");
      await worker;
    }
    const sha256 = sha256OfFile(engine);
    const [run] = await sql`select reference, reference_path, reference_sha256 from spsa_run where name = 'file'`;
    expect(run).toEqual({ reference: engine, reference_path: engine, reference_sha256: sha256 });
    // Its bytes were stored while the run played them, and pruned once it was complete; the user's file is never touched.
    const [stored] = await sql<
      { size: number; content: Buffer | null }[]
    >`select size, content from spsa_binary where sha256 = ${sha256}`;
    expect(stored).toEqual({ size: readFileSync(engine).length, content: null });
    const [iteration] =
      await sql`select i.status, games_played, reference_engine_path, ref_plus_wins + ref_plus_draws + ref_plus_losses as plus_games
      from spsa_iteration i join spsa_run r on r.id = i.run_id where r.name = 'file'`;
    expect(iteration).toEqual({ status: "complete", games_played: 4, reference_engine_path: engine, plus_games: 2 });

    appendFileSync(engine, "\n");
    const changed = await startMaster(setup, env, "file");
    expect(changed.exitCode, changed.all).toBe(2);
    expect(changed.stderr).toContain(
      `[spsa] reference: run "file" plays against the engine of sha256 ${sha256.slice(0, 12)}, and ${engine} now has sha256 ${sha256OfFile(engine).slice(0, 12)}; a different reference is a different run`,
    );
  }, 180_000);
});

describe("reference mode's config errors, from the CLI", () => {
  const fixture = useRunFixture({ iterations: 1, games: 8, batchSize: 4 });

  it.each([
    [
      "games that are not units of four",
      "games_per_iteration = 8",
      "games_per_iteration = 6",
      'reference = "start"\n',
      /\[games\]\.games_per_iteration \(line \d+\): must be a multiple of 4 with \[spsa\] reference .*got 6/,
    ],
    [
      "a batch that is not units of four",
      "batch_size = 4",
      "batch_size = 2",
      'reference = "start"\n',
      /\[games\]\.batch_size \(line \d+\): must be a multiple of 4 with \[spsa\] reference .*got 2/,
    ],
    [
      "a reference engine that does not exist",
      "",
      "",
      'reference = "engines/none"\n',
      /\[spsa\]\.reference \(line \d+\): file not found: .*engines\/none/,
    ],
    [
      "a reference in UCI-option mode",
      "[database]",
      '[engine]\nmode = "options"\n\n[database]',
      'reference = "start"\n',
      /\[spsa\]\.reference \(line \d+\): applies only with \[engine\] mode = "build"/,
    ],
  ])("exits 2 naming the key: %s", async (_label, from, to, lines, message) => {
    const { setup, env, sql } = fixture;
    const original = readFileSync(setup.configFile, "utf8");
    try {
      writeFileSync(setup.configFile, original.replace(from, to));
      withSpsaLines(setup.configFile, lines);
      const result = await startMaster(setup, env, "bad-config");
      expect(result.exitCode, result.all).toBe(2);
      expect(result.stderr.trim().split("\n"), result.all).toHaveLength(1);
      expect(result.stderr).toMatch(message);
      expect(await sql`select 1 from spsa_run where name = 'bad-config'`).toHaveLength(0);
    } finally {
      writeFileSync(setup.configFile, original);
    }
  });
});
