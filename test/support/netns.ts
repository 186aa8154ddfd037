import { execFile } from "node:child_process";
import { promisify } from "node:util";

const run = promisify(execFile);

/** Every namespace this support makes is named `spsa-e2e-<pid of the test process>-<role>`. */
const PREFIX = "spsa-e2e-";

/** The private network: the database machine's bridge and one address per worker. */
const SUBNET = "10.213.0";

export interface Machine {
  /** The network namespace: the machine. */
  name: string;
  /** Its address on the private network. */
  address: string;
}

export interface Network {
  database: Machine;
  workers: Machine[];
}

async function ip(args: string[]): Promise<string> {
  return (await run("ip", args)).stdout;
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
};

/** The pids of every process whose network is namespace `name` (a child that left its process group too). */
export async function processesOf(name: string): Promise<number[]> {
  const out = await ip(["netns", "pids", name]).catch(() => "");
  return out.split("\n").filter(Boolean).map(Number);
}

/** `kill -9` every process of namespace `name`: the machine loses power. Returns the pids killed. */
export async function killMachine(name: string): Promise<number[]> {
  const pids = await processesOf(name);
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // It ended meanwhile.
    }
  }
  return pids;
}

/** Kills whatever is left in namespace `name` and deletes it; one that does not exist is fine. */
async function removeMachine(name: string): Promise<void> {
  // A process left in it would keep the namespace alive after `ip netns del`, reachable by no one.
  for (let attempt = 0; attempt < 50 && (await killMachine(name)).length > 0; attempt++)
    await new Promise((resolve) => setTimeout(resolve, 100));
  await ip(["netns", "del", name]).catch(() => undefined);
}

/** The namespaces left by a test process that no longer runs (killed before its teardown). */
async function leftovers(): Promise<string[]> {
  const names = (await ip(["netns", "list"])).split("\n").map((line) => line.split(" ")[0] ?? "");
  return names.filter((name) => {
    const match = new RegExp(`^${PREFIX}(\\d+)-`).exec(name);
    return match !== null && (Number(match[1]) === process.pid || !alive(Number(match[1])));
  });
}

/**
 * Why namespaces cannot be made here (not root, no `ip`, namespaces or mount namespaces
 * refused), or undefined when they can: a probe namespace is made, entered and removed.
 */
export async function namespacesUnavailable(): Promise<string | undefined> {
  if (process.getuid?.() !== 0) return "creating network namespaces (ip netns) needs root";
  const probe = `${PREFIX}${process.pid}-probe`;
  try {
    await ip(["-V"]);
  } catch {
    return "the `ip` command (iproute2) is not installed";
  }
  try {
    await ip(["netns", "add", probe]);
    await run("ip", ["netns", "exec", probe, "unshare", "--mount", "--propagation", "private", "true"]);
    return undefined;
  } catch (error) {
    return `network or mount namespaces cannot be made here: ${((error as { stderr?: string }).stderr || (error as Error).message).trim()}`;
  } finally {
    await removeMachine(probe);
  }
}

/**
 * Machines on a private network with no route anywhere else: namespace `db` holds a bridge
 * at 10.213.0.1, and each worker namespace a veth whose other end is on that bridge. Names
 * carry this process's pid; namespaces a killed earlier run left behind are removed first.
 */
export async function createNetwork(workerCount: number): Promise<Network> {
  for (const name of await leftovers()) await removeMachine(name);
  const database = { name: `${PREFIX}${process.pid}-db`, address: `${SUBNET}.1` };
  const workers = Array.from({ length: workerCount }, (_, i) => ({
    name: `${PREFIX}${process.pid}-w${i + 1}`,
    address: `${SUBNET}.${i + 2}`,
  }));
  const inDb = (args: string[]) => ip(["-n", database.name, ...args]);
  await ip(["netns", "add", database.name]);
  await inDb(["link", "set", "lo", "up"]);
  await inDb(["link", "add", "br0", "type", "bridge"]);
  await inDb(["addr", "add", `${database.address}/24`, "dev", "br0"]);
  await inDb(["link", "set", "br0", "up"]);
  for (const [i, worker] of workers.entries()) {
    const port = `w${i + 1}`;
    await ip(["netns", "add", worker.name]);
    await inDb(["link", "add", port, "type", "veth", "peer", "name", "eth0", "netns", worker.name]);
    await inDb(["link", "set", port, "master", "br0"]);
    await inDb(["link", "set", port, "up"]);
    await ip(["-n", worker.name, "link", "set", "lo", "up"]);
    await ip(["-n", worker.name, "addr", "add", `${worker.address}/24`, "dev", "eth0"]);
    await ip(["-n", worker.name, "link", "set", "eth0", "up"]);
  }
  return { database, workers };
}

/** Kills every process of the network's machines and deletes their namespaces. */
export async function removeNetwork(network: Network): Promise<void> {
  for (const machine of [...network.workers, network.database]) await removeMachine(machine.name);
}

/**
 * The command line that runs `command` on `machine` with `hidden` folders invisible to it
 * (an empty tmpfs over each, in a mount namespace of its own): what another machine would
 * not have, although this one shares its file system.
 */
export function onMachine(machine: Machine, hidden: readonly string[], command: readonly string[]): [string, string[]] {
  const mounts = hidden.map((_, i) => `mount -t tmpfs tmpfs "$${i + 1}"`).join(" && ");
  const script = hidden.length === 0 ? `exec "$@"` : `${mounts} && shift ${hidden.length} && exec "$@"`;
  return [
    "ip",
    [
      "netns",
      "exec",
      machine.name,
      "unshare",
      "--mount",
      "--propagation",
      "private",
      "sh",
      "-c",
      script,
      "sh",
      ...hidden,
      ...command,
    ],
  ];
}
