import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, describe, expect, it } from "vitest";
import { connect } from "../../src/postgres/connection.js";
import { embeddedServer, embeddedUrl } from "../../src/postgres/embedded.js";
import { asUser, serverUser } from "../../src/postgres/run-as.js";
import { processExists } from "../../src/core/process-exists.js";
import { spsa } from "../support/cli.js";
import { canSwitchUser, notRootReason } from "../support/other-user.js";

/**
 * Root's server folders in a folder of this test's own (SPSA_SERVER_ROOT, sticky and
 * world-writable like /var/tmp): only folders it made are ever listed or removed.
 */
describe.skipIf(!canSwitchUser)(`the embedded servers' folders (${notRootReason})`, () => {
  const base = mkdtempSync(join(tmpdir(), "spsa-folders-"));
  chmodSync(base, 0o755);
  const root = join(base, "servers");
  mkdirSync(root);
  chmodSync(root, 0o1777);
  const home = (name: string) => {
    const dir = join(base, name);
    mkdirSync(dir, { mode: 0o755 });
    return dir;
  };
  const envFor = (spsaHome: string) => ({ SPSA_HOME: spsaHome, SPSA_SERVER_ROOT: root, DATABASE_URL: "" });
  const homes = { gone: home("gone"), live: home("live"), old: home("old") };
  // Once started, a home's connection file names its server's folder.
  const serverOf = (spsaHome: string) => embeddedServer(spsaHome);
  /** A process that ended: gone, or a zombie its parent has not reaped yet. */
  const ended = (pid: number) => {
    try {
      return /^\d+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
    } catch {
      return true;
    }
  };
  const postmasterPid = (folder: string) =>
    Number(readFileSync(join(folder, "data", "postmaster.pid"), "utf8").split("\n")[0]);
  const asServerUser = (command: string, args: string[]) =>
    execa(command, args, { ...asUser(serverUser()), reject: false, all: true });

  afterAll(async () => {
    for (const spsaHome of Object.values(homes))
      if (existsSync(spsaHome)) await spsa(["db", "remove", "--yes"], { env: envFor(spsaHome) });
    // Whatever a failed case left: the servers of this test's own folders.
    for (const folder of existsSync(root) ? (await execa("ls", [root])).stdout.split("\n").filter(Boolean) : []) {
      await asServerUser("sh", [
        "-c",
        'pid=$(head -n1 "$1/data/postmaster.pid" 2>/dev/null) && kill -INT "$pid"',
        "sh",
        join(root, folder),
      ]);
    }
    rmSync(base, { recursive: true, force: true });
  });

  it("`spsa db orphans` finds the folder whose home is gone and removes it as its owner (its server stopped), leaves the live one, and the unmarked one unless asked", async () => {
    for (const spsaHome of Object.values(homes)) {
      const started = await spsa(["db", "start"], { env: envFor(spsaHome) });
      expect(started.exitCode, started.all).toBe(0);
    }
    const gone = serverOf(homes.gone).serverDir;
    const live = serverOf(homes.live).serverDir;
    const old = serverOf(homes.old).serverDir;
    for (const folder of [gone, live, old]) expect(folder.startsWith(`${root}/spsa-pg-`), folder).toBe(true);
    // Each folder names its home, in a marker root wrote before handing the folder over.
    const marker = lstatSync(join(gone, "owner.json"));
    expect(marker.uid).toBe(0);
    expect(JSON.parse(readFileSync(join(gone, "owner.json"), "utf8")).home).toBe(realpathSync(homes.gone));

    // An older version's folder, stopped: its marker is one the server's user wrote (not trusted), naming a home that is gone.
    expect((await spsa(["db", "stop"], { env: envFor(homes.old) })).exitCode).toBe(0);
    expect(
      (
        await asServerUser("sh", [
          "-c",
          'rm -f "$1/owner.json" && echo "{\\"home\\": \\"/nowhere\\"}" > "$1/owner.json"',
          "sh",
          old,
        ])
      ).exitCode,
    ).toBe(0);
    // The server's user plants a symlink to a folder of root's in its own folder: removal must not follow it.
    const victim = join(base, "victim");
    mkdirSync(victim, { mode: 0o755 });
    writeFileSync(join(victim, "canary"), "root's");
    expect((await asServerUser("ln", ["-s", victim, join(gone, "victim")])).exitCode).toBe(0);
    // The checkout is deleted; its server goes on running.
    const orphanPid = postmasterPid(gone);
    rmSync(homes.gone, { recursive: true, force: true });
    expect(processExists(orphanPid)).toBe(true);

    const listed = await spsa(["db", "orphans"], { env: { SPSA_SERVER_ROOT: root } });
    expect(listed.exitCode, listed.all).toBe(0);
    const lines = listed.stdout.trim().split("\n");
    expect(lines).toContainEqual(
      expect.stringMatching(
        new RegExp(
          `^orphaned {2}${gone} {2}its home ${realpathSync(base)}/gone is gone; \\d+\\.\\d MB, its server runs \\(pid ${orphanPid}\\)$`,
        ),
      ),
    );
    expect(lines).toContainEqual(
      expect.stringMatching(
        new RegExp(
          `^unmarked {2}${old} {2}made by a version whose folders do not name their home; \\d+\\.\\d MB, no server running$`,
        ),
      ),
    );
    expect(lines).toContain(`${root}: 1 orphaned, 1 unmarked, 1 in use`);
    expect(existsSync(gone)).toBe(true);

    const removed = await spsa(["db", "orphans", "--remove"], { env: { SPSA_SERVER_ROOT: root } });
    expect(removed.exitCode, removed.all).toBe(0);
    expect(removed.stdout).toMatch(new RegExp(`^removed ${gone} \\(\\d+\\.\\d MB, its server stopped first\\)$`, "m"));
    expect(existsSync(gone)).toBe(false);
    expect(ended(orphanPid)).toBe(true);
    expect(readFileSync(join(victim, "canary"), "utf8")).toBe("root's");
    // The live server and the unmarked folder are untouched.
    const sql = connect(embeddedUrl(serverOf(homes.live)), 1);
    expect(await sql`select 1 as one`).toEqual([{ one: 1 }]);
    await sql.end();
    expect(existsSync(old)).toBe(true);

    const unmarked = await spsa(["db", "orphans", "--remove", "--unmarked"], { env: { SPSA_SERVER_ROOT: root } });
    expect(unmarked.exitCode, unmarked.all).toBe(0);
    expect(unmarked.stdout).toMatch(new RegExp(`^removed ${old} \\(\\d+\\.\\d MB\\)$`, "m"));
    expect(existsSync(old)).toBe(false);
    expect(existsSync(live)).toBe(true);
  });

  it("`spsa db remove` asks for --yes, waits for its clients to go, then removes the server and its folders; the next command starts an empty one", async () => {
    const env = envFor(homes.live);
    const server = serverOf(homes.live);
    expect((await spsa(["db", "start"], { env })).exitCode).toBe(0);
    const asked = await spsa(["db", "remove"], { env });
    expect(asked.exitCode).toBe(2);
    expect(asked.stderr.trim()).toBe(
      `error: --yes: spsa db remove deletes the embedded Postgres of ${homes.live} and every run in it (${server.serverDir}); run it again with --yes`,
    );

    const client = connect(embeddedUrl(server), 1, { connection: { application_name: "a-worker" } });
    await client`select 1`;
    const busy = await spsa(["db", "remove", "--yes"], { env });
    expect(busy.exitCode, busy.all).toBe(1);
    expect(busy.stderr.trim()).toBe(
      "error: 1 other connection is open on the embedded Postgres (a-worker): stop it (workers, masters, the dashboard), then remove it",
    );
    await client.end();

    const pid = postmasterPid(server.serverDir);
    const done = await spsa(["db", "remove", "--yes"], { env });
    expect(done.exitCode, done.all).toBe(0);
    expect(done.stdout.trim()).toBe(
      `removed the embedded Postgres of ${homes.live}: ${server.serverDir}, ${join(homes.live, "pg")}`,
    );
    expect(existsSync(server.serverDir)).toBe(false);
    expect(existsSync(join(homes.live, "pg"))).toBe(false);
    expect(ended(pid)).toBe(true);

    const fresh = await spsa(["db", "status"], { env });
    expect(fresh.exitCode, fresh.all).toBe(0);
    expect(fresh.stdout).toMatch(/^runs: +none yet$/m);
  });
});
