import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { workersCommand, workersListCommand } from "../../src/commands/workers.js";
import { recordDecision } from "../../src/db/worker-decisions.js";
import { spsa } from "../support/cli.js";
import { useMigratedDatabase } from "../support/database.js";
import { databaseConfig, playRun } from "../support/played-run.js";

/**
 * `spsa workers` (docs/bad-workers.md): alone, the run's workers and their state; `accept` and
 * `reject` say what the decision changes, or that it changes nothing, and name a run's workers
 * when the name is not one of them.
 */

const dir = mkdtempSync(join(tmpdir(), "spsa-workers-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("spsa workers", () => {
  const database = useMigratedDatabase(3);
  const lines: string[] = [];
  const out = (line: string) => lines.push(line);
  // Who decided and when, as placeholders.
  const plain = (text: string) => text.replace(/ by \S+ \(/, " by WHO (").replace(/ since \S+\)/, " since T)");
  const said = () => plain(lines.splice(0).join("\n"));

  it("lists the run's workers with their batches, games and state; alone on the command line too", async () => {
    const { run } = await playRun(database.sql, "w-list", [
      ["h1", "liar", "h2", "h1"],
      ["h2", "liar", "h1", "box"],
    ]);
    await recordDecision(database.sql, {
      runId: run.id,
      workerName: "liar",
      decision: "suspect",
      reason: "its results follow the signs of X",
      who: "master (pid 1 on test)",
    });
    await recordDecision(database.sql, {
      runId: run.id,
      workerName: "box",
      decision: "rejected",
      reason: "slow",
      who: "alice@test",
    });
    const config = databaseConfig(join(dir, "list.toml"), database.url);
    await workersListCommand({ config, name: run.name, out });
    const text = lines.splice(0);
    expect(text[0]).toBe(
      'run "w-list" (active): 4 workers; batches and games: reported in the run; held: set aside by the master; ' +
        "undone: taken out of θ by spsa undo; refused: given back unplayed",
    );
    expect(text[1]).toMatch(/^worker\s+batches\s+games\s+held\s+undone\s+refused\s+state$/);
    const row = (name: string) => text.find((line) => line.startsWith(`${name} `))?.split(/\s{2,}/);
    expect(row("h1")).toEqual(["h1", "3", "12", "0", "0", "0", "too few games shared with the pool to judge"]);
    expect(row("h2")?.slice(0, 6)).toEqual(["h2", "2", "8", "0", "0", "0"]);
    expect(row("liar")?.slice(0, 6)).toEqual(["liar", "2", "8", "0", "0", "0"]);
    expect(row("liar")?.[6]).toMatch(
      /^flagged since \S+ \S+: its batches are held \(spsa workers accept\|reject liar\)$/,
    );
    expect(row("box")?.[6]).toMatch(/^rejected by alice@test \(database role \S+\) at \S+ \S+: its batches are held$/);

    // `spsa workers` alone is the list.
    const cli = await spsa(["workers", "--name", run.name], { env: { DATABASE_URL: database.url } });
    expect(cli.exitCode, cli.all).toBe(0);
    expect(cli.stdout.split("\n")).toEqual(text);
  });

  it("names the run's workers when the name is none of them", async () => {
    const cli = await spsa(["workers", "reject", "nosuch-1", "--name", "w-list"], {
      env: { DATABASE_URL: database.url },
    });
    expect(cli.exitCode, cli.all).toBe(2);
    expect(cli.stderr).toBe('error: no worker "nosuch-1" in run "w-list": its workers: box, h1, h2, liar');
    const typo = await spsa(["workers", "rejct", "liar", "--name", "w-list"], { env: { DATABASE_URL: database.url } });
    expect(typo.exitCode, typo.all).toBe(2);
    expect(typo.stderr).toBe("error: spsa workers rejct: unknown subcommand (did you mean `reject`?)");
    const near = await spsa(["workers", "accept", "lair", "--name", "w-list"], { env: { DATABASE_URL: database.url } });
    expect(near.stderr).toBe(
      'error: no worker "lair" in run "w-list": its workers: box, h1, h2, liar (did you mean `liar`?)',
    );
  });

  it("says what a decision changes in an active run", async () => {
    const config = databaseConfig(join(dir, "active.toml"), database.url);
    await workersCommand({ config, name: "w-list", worker: "h2", decision: "rejected", out });
    expect(said()).toBe(
      'run "w-list": worker h2 rejected by WHO (nobody had flagged it): the master sets its batches aside ' +
        "from its next fold on (in build mode those of iterations not stepped yet too); its 2 batches (8 " +
        "games) counted before stay in θ: take them out with spsa undo --worker h2 --name w-list (without " +
        "--yes it shows what it would change); revoke its machine's URL with spsa db worker-url --name " +
        "MACHINE --revoke",
    );
    await workersCommand({ config, name: "w-list", worker: "liar", decision: "accepted", out });
    expect(said()).toBe(
      'run "w-list": worker liar accepted by WHO (was suspect since T): the master applies its batches again ' +
        "and does not flag it again in this run",
    );
    await workersCommand({ config, name: "w-list", worker: "h1", decision: "accepted", out });
    expect(said()).toBe(
      'run "w-list": worker h1 accepted by WHO (nobody had flagged it): this changes nothing now: the master ' +
        "goes on applying its batches, and will not flag it in this run",
    );
  });

  it("says that a decision on a finished run changes nothing by itself", async () => {
    await database.sql`update spsa_run set status = 'complete', completed_at = now() where name = 'w-list'`;
    const cli = await spsa(["workers", "reject", "h1", "--name", "w-list"], { env: { DATABASE_URL: database.url } });
    expect(cli.exitCode, cli.all).toBe(0);
    expect(plain(cli.stdout)).toBe(
      'run "w-list": worker h1 rejected by WHO (was accepted since T), which changes nothing by itself: the ' +
        "run is complete, no master folds it again, and its 3 batches (12 games) counted before stay in θ: " +
        "spsa undo --worker h1 --name w-list shows what taking them out would change",
    );
    const config = databaseConfig(join(dir, "complete.toml"), database.url);
    await workersCommand({ config, name: "w-list", worker: "h2", decision: "accepted", out });
    expect(said()).toBe(
      'run "w-list": worker h2 accepted by WHO (was rejected since T), which changes nothing: the run is ' +
        "complete and no master folds it again",
    );
  });
});
