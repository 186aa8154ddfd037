import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { InputProblems } from "../../src/core/errors.js";
import { undoCommand } from "../../src/commands/undo.js";
import { loadParams, valuesOf } from "../../src/params/params.js";
import { spsa } from "../support/cli.js";
import { useMigratedDatabase } from "../support/database.js";
import { databaseConfig, playedParamsToml, playRun, runRows, runTheta } from "../support/played-run.js";

/**
 * `spsa undo` as a user meets it (docs/bad-workers.md#undo): without --yes a dry run that shows
 * what it would take out and θ before → after and changes nothing; every game of a run only with
 * --all-games; the params file rewritten only when it is the run's.
 */

const dir = mkdtempSync(join(tmpdir(), "spsa-undo-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `NAME  before → after` lines of the output, by name. */
function moves(lines: readonly string[]): Record<string, [number, number]> {
  return Object.fromEntries(
    lines.flatMap((line) => {
      const m = /^ {4}(\w+)\s+(\S+) → (\S+)$/.exec(line);
      return m ? [[m[1]!, [Number(m[2]), Number(m[3])] as [number, number]]] : [];
    }),
  );
}

/**
 * A database of its own for a describe block (a run's open batches would go to the next run's
 * claims), and a run in it with its params file.
 */
function useRun() {
  const database = useMigratedDatabase(3);
  const run = async (name: string, iterations: string[][], options: { openLast?: boolean } = {}) => {
    const played = await playRun(database.sql, name, iterations, options);
    const params = join(dir, `${name}.toml`);
    writeFileSync(params, playedParamsToml(played.theta));
    return { ...played, params, config: databaseConfig(join(dir, `${name}.config.toml`), database.url) };
  };
  return { database, run };
}

describe("spsa undo: a dry run first", () => {
  const { database, run } = useRun();

  it("without --yes shows what it would take out and θ before → after, and changes no row and no byte", async () => {
    const {
      run: r,
      theta,
      params,
      config,
    } = await run(
      "undo-dry",
      [
        ["h1", "liar", "h2", "h1"],
        ["h2", "liar", "h1", "h1"],
        ["liar", "h2", "h1", "h2"],
      ],
      { openLast: true },
    );
    const rows = await runRows(database.sql);
    const bytes = readFileSync(params);
    const preview: string[] = [];
    await expect(
      undoCommand({ config, name: r.name, worker: "liar", params, out: (line) => preview.push(line) }),
    ).rejects.toThrow(/^--yes: nothing was changed \(a dry run\): run it again with --yes to take the 3 batches out$/);
    expect(await runRows(database.sql)).toEqual(rows);
    expect(readFileSync(params)).toEqual(bytes);
    expect(preview.slice(0, 4)).toEqual([
      `run "undo-dry" (build mode): the undo would take worker liar's 3 batches (12 games) out of θ and ` +
        `recompute θ from the recorded iterations without them`,
      "  2 completed iterations' steps taken again; 4 games of iterations not stepped yet would be played again",
      "  θ keeps the other workers' 9 batches (36 games)",
      "  θ before → after:",
    ]);
    expect(preview.at(-1)).toBe(`${params} holds the run's θ: it would be rewritten with θ after the undo`);
    const shown = moves(preview);
    expect(Object.keys(shown).length).toBeGreaterThan(0);
    for (const [name, [before]] of Object.entries(shown)) expect(before).toBe(theta[name]);

    // Through the CLI: the same lines on stdout, one error line and exit status 2, nothing changed.
    const cli = await spsa(["undo", "--worker", "liar", "--name", r.name, "--params", params], {
      env: { DATABASE_URL: database.url },
    });
    expect(cli.exitCode, cli.all).toBe(2);
    expect(cli.stdout.split("\n")).toEqual(preview);
    expect(cli.stderr).toBe(
      "error: --yes: nothing was changed (a dry run): run it again with --yes to take the 3 batches out",
    );
    expect(await runRows(database.sql)).toEqual(rows);

    // --yes does what the dry run showed.
    const done: string[] = [];
    await undoCommand({ config, name: r.name, worker: "liar", params, yes: true, out: (line) => done.push(line) });
    expect(done[0]).toMatch(/^run "undo-dry": took worker liar's 3 batches \(12 games\) out of θ and recomputed θ/);
    const after = await runTheta(database.sql, r.id);
    for (const [name, [, to]] of Object.entries(shown)) expect(after[name]).toBe(to);
    expect(moves(done)).toEqual(shown);
    expect(done.at(-1)).toBe(`${params} holds the run's θ: rewritten with θ after the undo`);
    expect(valuesOf(loadParams(params))).toEqual(after);
    expect(readFileSync(params, "utf8")).toMatch(/^# the run's parameters\n/);
  });
});

describe("spsa undo: every game of a run", () => {
  const { database, run } = useRun();

  it("takes out every game of a run only with --all-games, and says why", async () => {
    const {
      run: r,
      params,
      config,
    } = await run("undo-all", [
      ["solo", "solo", "solo", "solo"],
      ["solo", "solo"],
    ]);
    const rows = await runRows(database.sql);
    const bytes = readFileSync(params);
    const lines: string[] = [];
    await expect(
      undoCommand({ config, name: r.name, worker: "solo", params, yes: true, out: (line) => lines.push(line) }),
    ).rejects.toThrow(
      '--all-games: worker solo\'s 6 batches are every game θ holds in run "undo-all": taking them out ' +
        "leaves the run no game, and θ back at the start of the run; add --all-games if that is what you want",
    );
    expect(lines).toContain("  that is every game θ holds in the run: no other worker's batch is left in it");
    expect(await runRows(database.sql)).toEqual(rows);
    expect(readFileSync(params)).toEqual(bytes);

    // A dry run names both flags.
    await expect(undoCommand({ config, name: r.name, worker: "solo", params, out: () => {} })).rejects.toThrow(
      /--yes: nothing was changed \(a dry run\): run it again with --yes --all-games to take the 6 batches out/,
    );

    await undoCommand({ config, name: r.name, worker: "solo", params, yes: true, allGames: true, out: () => {} });
    expect(await runTheta(database.sql, r.id)).toEqual({ X: 5, Y: 5 });
    expect(valuesOf(loadParams(params))).toEqual({ X: 5, Y: 5 });
  });
});

describe("spsa undo: the run's params file", () => {
  const { database, run } = useRun();

  it("refuses a params file without the run's θ, each difference by its line; a live master's is left", async () => {
    const {
      run: r,
      theta,
      params,
      config,
    } = await run("undo-file", [
      ["h1", "liar", "h1", "h1"],
      ["liar", "h1", "h1", "h1"],
    ]);
    // A copy made before the run: the start θ.
    const stale = join(dir, "stale.toml");
    writeFileSync(stale, playedParamsToml({ X: 5, Y: 5 }));
    const rows = await runRows(database.sql);
    const bytes = readFileSync(stale);
    let error: unknown;
    try {
      await undoCommand({ config, name: r.name, worker: "liar", params: stale, yes: true, out: () => {} });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(InputProblems);
    expect((error as InputProblems).problems.map((p) => p.message)).toEqual([
      `${stale}: [X].value (line 3): 5, but run "undo-file"'s θ of X is ${theta.X}`,
      `${stale}: [Y].value (line 10): 5, but run "undo-file"'s θ of Y is ${theta.Y}`,
      `--params: ${stale} is not run "undo-file"'s params file: the run's file holds its θ as its master last ` +
        `wrote it; give that file (the --params of spsa master), or --force-params to rewrite this one anyway`,
    ]);
    expect(await runRows(database.sql)).toEqual(rows);
    expect(readFileSync(stale)).toEqual(bytes);

    // A file without one of the run's parameters is not the run's either, even with --force-params.
    const partial = join(dir, "partial.toml");
    writeFileSync(partial, "[X]\nvalue = 5\nmin = 0\nmax = 10\nstep = 1\n");
    await expect(
      undoCommand({
        config,
        name: r.name,
        worker: "liar",
        params: partial,
        yes: true,
        forceParams: true,
        out: () => {},
      }),
    ).rejects.toThrow(`${partial}: [Y]: table not found`);
    expect(await runRows(database.sql)).toEqual(rows);

    // --force-params: the dry run says it would rewrite it all the same.
    const forced: string[] = [];
    await expect(
      undoCommand({
        config,
        name: r.name,
        worker: "liar",
        params: stale,
        forceParams: true,
        out: (l) => forced.push(l),
      }),
    ).rejects.toThrow(/^--yes: nothing was changed/);
    expect(forced.at(-1)).toBe(
      `${stale} does not hold run "undo-file"'s θ (5, but run "undo-file"'s θ of X is ${theta.X}, …): it ` +
        `would be rewritten with θ after the undo all the same (--force-params)`,
    );

    // While a live master holds the run, it writes its own file (which may lag the database): this one is left.
    await database.sql`
      update spsa_run
      set master_session = 'elsewhere', master_host = 'box9', master_pid = 4242, master_since = now(),
        master_seen_at = now(), master_expires_at = now() + interval '1 hour'
      where id = ${r.id}`;
    const left: string[] = [];
    await undoCommand({ config, name: r.name, worker: "liar", params: stale, yes: true, out: (l) => left.push(l) });
    expect(left.at(-1)).toMatch(
      new RegExp(
        `^${stale.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} does not hold run "undo-file"'s θ \\(.+\\): left as it ` +
          `is; the run's master pid 4242 on box9 since .+ writes its own params file from the database$`,
      ),
    );
    expect(readFileSync(stale)).toEqual(bytes);
    expect(await runTheta(database.sql, r.id)).not.toEqual(theta);
    // The run's own file still holds θ before the undo: its master brings it in step.
    expect(valuesOf(loadParams(params))).toEqual(theta);
  });
});
