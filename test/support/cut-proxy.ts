import { connect as netConnect, createServer, type Socket } from "node:net";
import { backoffDelay } from "../../src/postgres/reconnect-backoff.js";

export interface CutProxy {
  /** The database URL through the proxy. */
  url: string;
  /** Closes the connections through it; from now on it accepts and closes each one, as a stand-in on a stopped server's port would. */
  cut(): void;
  restore(): void;
  /** Connections accepted since the last `cut()`. */
  attempts(): number;
  /**
   * Waits until `count` connections were accepted since the last `cut()`, or `timeoutMs`
   * passed: the times (ms) from the cut to each, as many as came.
   */
  attemptsAfterCut(count: number, timeoutMs: number): Promise<number[]>;
  close(): void;
}

/** A TCP proxy in front of a database, to take the server away and count the clients' attempts. */
export async function startCutProxy(databaseUrl: string): Promise<CutProxy> {
  const target = new URL(databaseUrl);
  // The embedded server's URL names its Unix socket folder as libpq does (?host=/folder).
  const folder = target.searchParams.get("host");
  const upstreamAt = (): Socket =>
    folder?.startsWith("/")
      ? netConnect(`${folder}/.s.PGSQL.${target.port}`)
      : netConnect(Number(target.port), target.hostname);
  let cut = false;
  let cutAt = 0;
  let attempts: number[] = [];
  let attempted = () => {};
  const open = new Set<Socket>();
  const proxy = createServer((client) => {
    attempts.push(performance.now() - cutAt);
    attempted();
    if (cut) return void client.destroy();
    const upstream = upstreamAt();
    for (const socket of [client, upstream]) {
      open.add(socket);
      socket.on("error", () => {});
      socket.on("close", () => open.delete(socket));
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  const url = new URL(databaseUrl);
  url.searchParams.delete("host");
  url.hostname = "127.0.0.1";
  url.port = String((proxy.address() as { port: number }).port);
  return {
    url: url.toString(),
    cut: () => {
      cut = true;
      cutAt = performance.now();
      for (const socket of open) socket.destroy();
      attempts = [];
    },
    restore: () => (cut = false),
    attempts: () => attempts.length,
    attemptsAfterCut: (count, timeoutMs) =>
      new Promise((resolve) => {
        const done = () => {
          clearTimeout(timer);
          attempted = () => {};
          resolve(attempts.slice(0, count));
        };
        const timer = setTimeout(done, timeoutMs);
        attempted = () => attempts.length >= count && done();
        attempted();
      }),
    close: () => {
      for (const socket of open) socket.destroy();
      proxy.close();
    },
  };
}

/** The gaps between attempts (the first one's from the cut), in ms. */
export function gapsOf(times: number[]): number[] {
  return times.map((time, i) => time - (times[i - 1] ?? 0));
}

/**
 * The attempts (times from the cut, as attemptsAfterCut gives them) that came sooner than
 * backoffSocketFactory allows: the n-th at least the least backoffDelay(n) after the one
 * before (the cut was the first failure), less 2 ms (the factory counts whole ms of Date.now()).
 */
export function soonerThanBackoff(times: number[]): string[] {
  return gapsOf(times).flatMap((gap, i) => {
    const least = backoffDelay(i + 1, () => 0);
    return gap >= least - 2 ? [] : [`attempt ${i + 1}: ${Math.round(gap)} ms after the one before, not ${least}`];
  });
}
