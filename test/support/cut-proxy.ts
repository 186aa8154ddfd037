import { connect as netConnect, createServer, type Socket } from "node:net";

export interface CutProxy {
  /** The database URL through the proxy. */
  url: string;
  /** Closes the connections through it; from now on it accepts and closes each one, as a stand-in on a stopped server's port would. */
  cut(): void;
  restore(): void;
  /** Connections accepted since the last `cut()`. */
  attempts(): number;
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
  let attempts = 0;
  const open = new Set<Socket>();
  const proxy = createServer((client) => {
    attempts++;
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
      for (const socket of open) socket.destroy();
      attempts = 0;
    },
    restore: () => (cut = false),
    attempts: () => attempts,
    close: () => {
      for (const socket of open) socket.destroy();
      proxy.close();
    },
  };
}
