import type postgres from "postgres";

export interface Wakeups {
  /** Resolves on the next notification, or after `ms` at the latest. */
  wait(ms: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * Listens on a NOTIFY channel for a waiting loop. Notifications make progress immediate;
 * the timeout covers their absence (an outage, a pooler that drops LISTEN).
 */
export async function listenForWakeups(sql: postgres.Sql, channel: string): Promise<Wakeups> {
  let wake: () => void = () => {};
  const listener = await sql.listen(channel, () => wake()).catch(() => undefined);
  return {
    wait: (ms) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      }),
    close: async () => {
      await listener?.unlisten().catch(() => {});
    },
  };
}
