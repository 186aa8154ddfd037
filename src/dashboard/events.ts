import type { ServerResponse } from "node:http";
import type postgres from "postgres";
import { PROGRESS_CHANNEL, WORK_CHANNEL } from "../db/batches.js";

/**
 * Postgres notifications as server-sent events: one LISTEN per channel for the whole
 * server, fanned out to every open page. A reported batch (PROGRESS_CHANNEL) and a new
 * iteration (WORK_CHANNEL) both mean "read again"; the page does, at once.
 */
export class EventHub {
  private readonly clients = new Set<ServerResponse>();
  private listeners: { unlisten(): Promise<void> }[] = [];
  private keepAlive: NodeJS.Timeout | undefined;

  async start(sql: postgres.Sql): Promise<void> {
    for (const channel of [PROGRESS_CHANNEL, WORK_CHANNEL]) {
      this.listeners.push(await sql.listen(channel, (payload) => this.send(channel, payload)));
    }
    // Proxies and browsers drop a silent stream; a comment line every 15 s keeps it open.
    this.keepAlive = setInterval(() => this.write(": keep-alive\n\n"), 15_000);
  }

  add(response: ServerResponse): void {
    response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-store", connection: "keep-alive" });
    response.write(": connected\n\n");
    this.clients.add(response);
    response.on("close", () => this.clients.delete(response));
  }

  private send(channel: string, payload: string): void {
    this.write(`event: ${channel === PROGRESS_CHANNEL ? "progress" : "iteration"}\ndata: ${JSON.stringify({ channel, payload })}\n\n`);
  }

  private write(text: string): void {
    for (const client of this.clients) client.write(text);
  }

  async close(): Promise<void> {
    clearInterval(this.keepAlive);
    for (const client of this.clients) client.end();
    this.clients.clear();
    await Promise.all(this.listeners.map((l) => l.unlisten().catch(() => {})));
    this.listeners = [];
  }
}
