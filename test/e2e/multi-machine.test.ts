import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa, type ResultPromise } from "execa";
import type postgres from "postgres";
import { afterAll, describe, expect, it } from "vitest";
import { connect } from "../../src/postgres/connection.js";
import { embeddedServer, embeddedUrl } from "../../src/postgres/embedded.js";
import { ROOT, SPSA_BIN } from "../support/cli.js";
import {
  createNetwork,
  killMachine,
  namespacesUnavailable,
  onMachine,
  removeNetwork,
  type Machine,
  type Network,
} from "../support/netns.js";
import { expectExactCounts, iterationsOf, outputSoFar, waitFor } from "../support/processes.js";
import { privateClone, type PrivateClone } from "../support/private-clone.js";
import { tuningSetup, type TuningSetup } from "../support/tuning-setup.js";

type Child = ResultPromise<{ reject: false; all: true; extendEnv: false }>;

const PORT = 5433;
const RUN = "netns";

/** This process's environment without any database URL or tool home: each machine gets only its own. */
const cleanEnv = (): Record<string, string> =>
  Object.fromEntries(
    Object.entries(process.env).filter(
      (entry): entry is [string, string] => entry[1] !== undefined && !/^(DATABASE_URL$|PG|SPSA_)/.test(entry[0]),
    ),
  );

/** Everything the test made, torn down in afterAll whether it passed, failed or was interrupted. */
const made: {
  network?: Network;
  setup?: TuningSetup;
  home?: string;
  clones: PrivateClone[];
  children: Child[];
  sql?: postgres.Sql;
} = { clones: [], children: [] };

afterAll(async () => {
  for (const child of made.children) child.kill("SIGKILL");
  await made.sql?.end();
  if (made.home) {
    await execa("node", [SPSA_BIN, "db", "stop"], {
      env: { ...cleanEnv(), SPSA_HOME: made.home },
      extendEnv: false,
      reject: false,
    });
    // As root the server's files are in a private folder under /var/tmp.
    const server = embeddedServer(made.home);
    if (server.outsideHome) rmSync(server.serverDir, { recursive: true, force: true });
  }
  if (made.network) await removeNetwork(made.network);
  if (made.setup) rmSync(made.setup.dir, { recursive: true, force: true });
  for (const clone of made.clones) rmSync(clone.dir, { recursive: true, force: true });
}, 60_000);

function spawnOn(
  machine: Machine,
  hidden: string[],
  command: string[],
  env: Record<string, string>,
  cwd: string,
): Child {
  const [file, args] = onMachine(machine, hidden, command);
  const child = execa(file, args, { env, extendEnv: false, cwd, reject: false, all: true });
  made.children.push(child);
  return child;
}

/** A worker machine: a clone of this repository with no engine sources, its URL file and config written there. */
async function workerMachine(
  setup: TuningSetup,
  home: string,
  name: string,
  address: string,
): Promise<{ clone: PrivateClone; urlFile: string }> {
  const clone = await privateClone();
  made.clones.push(clone);
  rmSync(join(clone.root, "engines"), { recursive: true, force: true });
  writeFileSync(join(clone.root, "worker.toml"), "[games]\nbatch_size = 2\n\n[database]\npoll_interval = 0.2\n");
  const urlFile = join(clone.root, "worker.url");
  const issued = await execa(
    "node",
    [
      SPSA_BIN,
      "--config",
      setup.configFile,
      "db",
      "worker-url",
      "--name",
      name,
      "--host",
      address,
      "--output",
      urlFile,
    ],
    {
      env: { ...cleanEnv(), SPSA_HOME: home },
      extendEnv: false,
      reject: false,
      all: true,
    },
  );
  expect(issued.exitCode, issued.all).toBe(0);
  expect(statSync(urlFile).mode & 0o777).toBe(0o600);
  return { clone, urlFile };
}

/**
 * Three machines on a private network of Linux network namespaces: the database and the
 * master on one, a worker on each of the others. A worker shares no loopback with the
 * database, reaches it only over its veth at the database's address, and sees neither the
 * engine sources nor the master's folder: its binaries come from the database.
 */
/** Games per iteration: with batches of 2, enough that w1 holds one while w2 plays others. */
const GAMES = 16;

describe("a run across machines (network namespaces)", () => {
  it("completes with exact counts after one worker machine is killed mid-batch", async (context) => {
    const unavailable = await namespacesUnavailable();
    if (unavailable) context.skip(`needs Linux network namespaces: ${unavailable}`);

    const network = await createNetwork(2);
    made.network = network;
    const [w1, w2] = network.workers as [Machine, Machine];
    const setup = tuningSetup({
      iterations: 2,
      games: GAMES,
      batchSize: 2,
      leaseSeconds: 5,
      moveLimit: "nodes = 1500",
    });
    made.setup = setup;
    // The server's user (postgres, as root) must reach the home; the folder stays hidden from the workers.
    chmodSync(setup.dir, 0o755);
    const home = join(setup.dir, "home");
    mkdirSync(home, { mode: 0o755 });
    made.home = home;
    const masterEnv = { ...cleanEnv(), SPSA_HOME: home };
    const spsaOnDb = (args: string[]) =>
      spawnOn(network.database, [], ["node", SPSA_BIN, "--config", setup.configFile, ...args], masterEnv, ROOT);

    const started = await spsaOnDb(["db", "start", "--listen", `${network.database.address}:${PORT}`]);
    expect(started.exitCode, started.all).toBe(0);
    const sql = connect(embeddedUrl(embeddedServer(home)), 2);
    made.sql = sql;
    const key = await spsaOnDb(["key"]);
    expect(key.exitCode, key.all).toBe(0);
    const publicKey = key.stdout.trim();

    // What another machine would not have: the master's folder (its builds, the database's home and password) and the engine sources.
    const hidden = [setup.dir, join(ROOT, "engines")];
    const [file, args] = onMachine(w2, hidden, ["find", ...hidden, "-mindepth", "1"]);
    const seen = await execa(file, args, { reject: false, all: true });
    expect(seen.exitCode, seen.all).toBe(0);
    expect(seen.all).toBe("");
    expect((await execa("ip", ["-n", w2.name, "route", "show", "default"])).stdout).toBe("");

    const names = ["w1", "w2"] as const;
    const workers = [];
    for (const [i, machine] of [w1, w2].entries()) {
      const name = names[i]!;
      const { clone, urlFile } = await workerMachine(setup, home, name, network.database.address);
      // The URL (with its password) goes in the environment, as `DATABASE_URL="$(cat w1.url)"` would.
      const env = { ...cleanEnv(), DATABASE_URL: readFileSync(urlFile, "utf8").trim() };
      const command = [
        "node",
        join(clone.root, "bin", "compete.js"),
        "--spsa",
        "-c",
        "1",
        "--config",
        "worker.toml",
        "--name",
        name,
        "--trust",
        publicKey,
      ];
      workers.push({ clone, child: spawnOn(machine, hidden, command, env, clone.root) });
    }
    // Both workers connected before there is work, so w1 is not still starting while w2 plays every game.
    await waitFor(
      async () => {
        const [row] = await sql<{ connected: number }[]>`
        select count(distinct usename)::int as connected from pg_stat_activity where usename in ('spsa_worker_w1', 'spsa_worker_w2')`;
        return row?.connected === 2;
      },
      60_000,
      "both workers to connect",
    );
    const master = spsaOnDb(["master", "--params", setup.paramsFile, "--name", RUN, "--seed", "netns"]);

    // Mid-batch: once w1 holds a claimed batch, its machine loses power.
    let killed: { id: number; iteration_id: number; games: number } | undefined;
    const masterSoFar = outputSoFar(master);
    await waitFor(
      async () => {
        if (master.exitCode !== null) throw new Error(`the master ended before w1 claimed a batch:\n${masterSoFar()}`);
        [killed] = await sql<{ id: number; iteration_id: number; games: number }[]>`
        select id::int, iteration_id, games from spsa_batch where worker_name = 'w1' and status = 'claimed' order by id limit 1`;
        return killed !== undefined;
      },
      240_000,
      "w1 to claim a batch",
    );
    const peers = await sql<{ role: string; addr: string }[]>`
      select usename as role, host(client_addr) as addr from pg_stat_activity where usename like 'spsa_worker_%' group by 1, 2 order by 1`;
    expect(peers).toContainEqual({ role: "spsa_worker_w1", addr: w1.address });
    expect(await killMachine(w1.name)).not.toHaveLength(0);
    const killedWorker = await workers[0]!.child;
    expect(killedWorker.signal, killedWorker.all).toBe("SIGKILL");

    const finished = await master;
    workers[1]!.child.kill("SIGTERM");
    const survivor = await workers[1]!.child;
    expect(finished.exitCode, `${finished.all}\n--- w1\n${killedWorker.all}\n--- w2\n${survivor.all}`).toBe(0);

    // Every iteration complete with exactly its target, each accepted batch counted once.
    const rows = await iterationsOf(sql, RUN);
    expect(rows.map((row) => row.iteration_number)).toEqual([1, 2]);
    expectExactCounts(rows, expect);
    // w1's batch was never reported: its lease ran out, and w2 played its games instead.
    const [after] = await sql<{ status: string }[]>`select status from spsa_batch where id = ${killed!.id}`;
    expect(after!.status).toBe("expired");
    const played = await sql<{ worker_name: string; games: number }[]>`
      select worker_name, sum(games)::int as games from spsa_batch where iteration_id = ${killed!.iteration_id} and status = 'done' group by 1`;
    const by = (name: string) => played.find((row) => row.worker_name === name)?.games ?? 0;
    expect(by("w1") + by("w2")).toBe(GAMES);
    expect(by("w2")).toBeGreaterThanOrEqual(killed!.games);

    // The binaries the survivor ran came from the database, into its own clone's cache.
    const binaries = await sql<
      { sha: string }[]
    >`select distinct plus_engine_sha256 as sha from spsa_iteration union select distinct minus_engine_sha256 from spsa_iteration`;
    for (const { sha } of binaries)
      expect(existsSync(join(workers[1]!.clone.root, ".spsa", "engine-cache", sha)), sha).toBe(true);
  }, 300_000);
});
