import type { ServerResponse } from "node:http";
import type postgres from "postgres";
import { PROGRESS_CHANNEL, WORK_CHANNEL } from "../postgres/channels.js";

/** Open event streams at most (each holds a socket and a file descriptor); configurable with --max-clients. */
export const DEFAULT_MAX_CLIENTS = 16;
/** Bytes waiting to be sent to one stream at most: a client that reads slower than the events come is dropped. */
export const DEFAULT_CLIENT_BUFFER_BYTES = 256 * 1024;

export interface EventHubLimits {
  maxClients: number;
  maxBufferedBytes: number;
}

/**
 * Postgres notifications as server-sent events: one LISTEN per channel for the whole
 * server, fanned out to every open page. Counters folded by a master (PROGRESS_CHANNEL) and a new
 * iteration (WORK_CHANNEL) both mean "read again"; the page does, at once.
 * Bounded: at most `maxClients` streams, each with at most `maxBufferedBytes` unsent.
 */
export class EventHub {
  private readonly clients = new Set<ServerResponse>();
  private listeners: { unlisten(): Promise<void> }[] = [];
  private keepAlive: NodeJS.Timeout | undefined;

  constructor(
    private readonly limits: EventHubLimits = {
      maxClients: DEFAULT_MAX_CLIENTS,
      maxBufferedBytes: DEFAULT_CLIENT_BUFFER_BYTES,
    },
  ) {}

  async start(sql: postgres.Sql): Promise<void> {
    for (const channel of [PROGRESS_CHANNEL, WORK_CHANNEL]) {
      this.listeners.push(await sql.listen(channel, (payload) => this.send(channel, payload)));
    }
    // Proxies and browsers drop a silent stream; a comment line every 15 s keeps it open.
    this.keepAlive = setInterval(() => this.write(": keep-alive\n\n"), 15_000);
  }

  /** Starts a stream on `response`; false (nothing written) when `maxClients` are open. */
  add(response: ServerResponse): boolean {
    if (this.clients.size >= this.limits.maxClients) return false;
    response.writeHead(200, {
      "content-type": "text/event-stream",
      "cache-control": "no-store",
      connection: "keep-alive",
    });
    response.write(": connected\n\n");
    this.clients.add(response);
    response.on("close", () => this.clients.delete(response));
    return true;
  }

  private send(channel: string, payload: string): void {
    this.write(
      `event: ${channel === PROGRESS_CHANNEL ? "progress" : "iteration"}\ndata: ` +
        `${JSON.stringify({ channel, payload })}\n\n`,
    );
  }

  private write(text: string): void {
    for (const client of this.clients) {
      if (client.writableLength + text.length > this.limits.maxBufferedBytes) {
        // It stopped reading (or reads too slowly): its buffer would grow without bound.
        this.clients.delete(client);
        client.destroy();
      } else {
        client.write(text);
      }
    }
  }

  async close(): Promise<void> {
    clearInterval(this.keepAlive);
    for (const client of this.clients) client.end();
    this.clients.clear();
    await Promise.all(this.listeners.map((l) => l.unlisten().catch(() => {})));
    this.listeners = [];
  }
}
