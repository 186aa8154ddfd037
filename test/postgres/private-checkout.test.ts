import { lstatSync, readdirSync, readFileSync, readlinkSync, realpathSync, rmSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { serverUser } from "../../src/postgres/run-as.js";
import { privateClone, type PrivateClone } from "../support/private-clone.js";

// Only root runs the server as another user, who cannot enter a root-only folder.
const notRoot = process.getuid?.() !== 0;
const reason = "only as root does the server run as another user, who cannot enter a 0700 folder of root";

/** The environment of a new user: no SPSA_HOME, no DATABASE_URL. */
function userEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && key !== "SPSA_HOME" && key !== "DATABASE_URL") env[key] = value;
  }
  return env;
}

const clones: PrivateClone[] = [];
const serverDirs: string[] = [];

/** The clone's `spsa`, through `npx` as the README says, or (faster: npx costs seconds) through node. */
function spsaIn(clone: PrivateClone, args: string[], via: "npx" | "node" = "node") {
  const [file, prefix] = via === "npx" ? ["npx", ["spsa"]] : ["node", [join(clone.root, "bin", "spsa.js")]];
  return execa(file, [...prefix, ...args], {
    cwd: clone.root,
    env: userEnv(),
    extendEnv: false,
    reject: false,
    all: true,
  });
}

/** Runs `spsa db status` and returns its output and the data folder it reports. */
async function status(clone: PrivateClone, via: "npx" | "node" = "node"): Promise<{ stdout: string; dataDir: string }> {
  const result = await spsaIn(clone, ["db", "status"], via);
  expect(result.exitCode, result.all).toBe(0);
  const dataDir = /^data: +(\S+)/m.exec(result.stdout)?.[1] ?? "";
  serverDirs.push(dirname(dataDir));
  return { stdout: result.stdout, dataDir };
}

async function newClone(): Promise<PrivateClone> {
  const clone = await privateClone();
  clones.push(clone);
  return clone;
}

afterEach(async () => {
  for (const clone of clones.splice(0)) {
    await spsaIn(clone, ["db", "stop"]);
    rmSync(clone.dir, { recursive: true, force: true });
  }
  for (const dir of serverDirs.splice(0))
    if (/\/spsa-pg-[0-9a-f]{16}$/.test(dir)) rmSync(dir, { recursive: true, force: true });
});

describe("a fresh clone in a folder only root can enter", () => {
  it.skipIf(notRoot)(
    `runs \`npx spsa db status\` and a short tuning run, with the server's files in a private folder of its user (skipped unless root: ${reason})`,
    async () => {
      const clone = await newClone();
      const first = await status(clone, "npx");
      expect(first.stdout).toMatch(/embedded Postgres 18\.\d+, running/);

      // The data and the binaries went to one private folder of the server's user, outside the clone.
      const serverDir = dirname(first.dataDir);
      expect(serverDir).toMatch(/\/spsa-pg-[0-9a-f]{16}$/);
      expect(serverDir.startsWith(clone.dir)).toBe(false);
      const user = serverUser();
      expect(statSync(serverDir).uid).toBe(user?.uid);
      expect(statSync(serverDir).mode & 0o777).toBe(0o700);
      expect(statSync(first.dataDir).uid).toBe(user?.uid);
      const native = readdirSync(serverDir).find((name) => name.startsWith("native-")) ?? "";
      expect(first.stdout).toContain(`binaries in ${join(serverDir, native)}`);
      // Unpacked by the server's user itself: root wrote nothing inside its folder.
      expect(lstatSync(join(serverDir, native, "bin", "postgres")).uid).toBe(user?.uid);
      expect(lstatSync(join(serverDir, "server.log")).uid).toBe(user?.uid);
      // The library symlinks were copied as links that resolve inside the copy.
      const lib = join(serverDir, native, "lib");
      expect(readlinkSync(join(lib, "libicuuc.so.60"))).toBe("libicuuc.so.60.2");
      expect(realpathSync(join(lib, "libicuuc.so.60"))).toBe(join(lib, "libicuuc.so.60.2"));

      // Nothing of the user's tree was opened to others; the password stayed in it.
      expect(statSync(clone.dir).mode & 0o777).toBe(0o700);
      const connectionFile = join(clone.root, ".spsa", "pg", "connection.json");
      expect(lstatSync(connectionFile).mode & 0o777).toBe(0o600);
      expect(JSON.parse(readFileSync(connectionFile, "utf8"))).toMatchObject({ serverDir });

      const demo = await spsaIn(clone, ["demo", "--iterations", "1", "--games", "4", "-c", "2"], "npx");
      expect(demo.exitCode, demo.all).toBe(0);
      expect(demo.stdout).toContain("parameters after 1 iterations of 4 games");

      // Stopped and started again, the server is found in the same place, with the run.
      const stop = await spsaIn(clone, ["db", "stop"]);
      expect(stop.stdout, stop.all).toContain("embedded Postgres stopped");
      const again = await status(clone);
      expect(again.dataDir).toBe(first.dataDir);
      expect(again.stdout).toMatch(/runs: +demo-\S+ \(complete, 1 iterations\)/);
    },
    // A first server (the binaries copied for its user) and minnow built from nothing: minutes on a
    // busy machine.
    600_000,
  );

  it.skipIf(notRoot)(
    `gives a second clone on the same machine its own server (skipped unless root: ${reason})`,
    async () => {
      const [a, b] = [await newClone(), await newClone()];
      const [statusA, statusB] = [await status(a), await status(b)];
      expect(statusA.dataDir).not.toBe(statusB.dataDir);
      const port = (text: string) => /localhost:(\d+)/.exec(text)?.[1];
      expect(port(statusA.stdout)).not.toBe(port(statusB.stdout));
      // Stopping one leaves the other running.
      expect((await spsaIn(a, ["db", "stop"])).stdout).toContain("embedded Postgres stopped");
      expect((await status(b)).dataDir).toBe(statusB.dataDir);
      expect((await spsaIn(a, ["db", "stop"])).stdout).toContain("was not running (stopped)");
    },
    // Two first servers, each with the binaries copied for its user: minutes on a busy machine.
    600_000,
  );
});
