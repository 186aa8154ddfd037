import { connect as netConnect, type Socket } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";

/** First wait after a failed connection, and the longest: an outage's end is seen within 10 s. */
export const BACKOFF_BASE_MS = 250;
export const BACKOFF_CAP_MS = 10_000;
/** A connection that lasted this long was a working one: the next failure starts from the base again. */
const HEALTHY_MS = 5_000;

/** The wait before the next attempt after `failures` failures in a row: exponential, capped, jittered to 50–100 %. */
export function backoffDelay(failures: number, random: () => number = Math.random): number {
  if (failures <= 0) return 0;
  const ceiling = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** (failures - 1));
  return ceiling * (0.5 + random() / 2);
}

/**
 * What postgres.js passes to a `socket` factory (its parsed options: hosts and ports as arrays,
 * `path` for a Unix socket).
 */
export interface SocketTarget {
  host: string[];
  port: number[];
  path?: string | false;
}

export type SocketFactory = (target: SocketTarget) => Promise<Socket>;

/**
 * A postgres.js `socket` factory that spaces connection attempts out. postgres.js retries a
 * connection that closes before its first query at once, again and again (a LISTEN client
 * made some 200 attempts a second against a port that accepts and closes: a stand-in on a
 * stopped server's port would be sent the password each time). Every attempt of the client
 * (pool and LISTEN alike) goes through here: after a failure (refused, or closed within 5 s)
 * the next waits `backoffDelay(failures)`.
 */
export function backoffSocketFactory(): SocketFactory {
  let failures = 0;
  let notBefore = 0;
  const failed = () => {
    failures++;
    notBefore = Date.now() + backoffDelay(failures);
  };
  return async (target) => {
    const wait = notBefore - Date.now();
    if (wait > 0) await sleep(wait);
    const socket = target.path
      ? netConnect(target.path)
      : netConnect(target.port[0] ?? 5432, target.host[0] ?? "localhost");
    try {
      await new Promise<void>((resolve, reject) => {
        socket.once("connect", resolve);
        socket.once("error", reject);
      });
    } catch (error) {
      failed();
      throw error;
    }
    const opened = Date.now();
    socket.once("close", () => {
      if (Date.now() - opened < HEALTHY_MS) failed();
      else failures = 0;
    });
    return socket;
  };
}
