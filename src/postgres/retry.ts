import { setTimeout as sleep } from "node:timers/promises";

/** Retries database work through outages (a restarted Postgres), with capped exponential backoff. */
export async function withRetry<T>(log: (line: string) => void, signal: AbortSignal | undefined, work: () => Promise<T>): Promise<T> {
  let delayMs = 250;
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (!isConnectionError(error) || signal?.aborted) throw error;
      if (attempt === 1 || attempt % 10 === 0) log(`database unavailable (${(error as Error).message}); retrying`);
      await sleep(delayMs);
      delayMs = Math.min(delayMs * 2, 5_000);
    }
  }
}

function isConnectionError(error: unknown): boolean {
  const { code = "", syscall } = error as { code?: string; syscall?: string };
  // A stopped embedded server removes its Unix socket: connecting then fails with ENOENT.
  if (code === "ENOENT" && syscall === "connect") return true;
  return (
    ["ECONNREFUSED", "ECONNRESET", "CONNECTION_CLOSED", "CONNECTION_ENDED", "CONNECTION_DESTROYED", "CONNECT_TIMEOUT", "EPIPE", "57P01", "57P02", "57P03", "08006", "08001", "08003"].includes(code)
  );
}
