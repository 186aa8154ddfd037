import { timingSafeEqual } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import type postgres from "postgres";
import { findRun, listRuns } from "../db/run-status.js";
import { InputError } from "../errors.js";
import { EventHub } from "./events.js";
import { readRunDetail } from "./run-detail.js";

/**
 * The dashboard's HTTP server, node:http only: a page, three static files and a JSON API,
 * all read-only, plus the event stream. The files are read from the package (works from
 * src/ and dist/ alike: both are two folders below the root), so nothing comes from a CDN.
 */
const STATIC_DIR = fileURLToPath(new URL("../../src/dashboard/static/", import.meta.url));
const STATIC_FILES: Record<string, string> = {
  "app.js": "text/javascript; charset=utf-8",
  "charts.js": "text/javascript; charset=utf-8",
  "style.css": "text/css; charset=utf-8",
};
const HEADERS = {
  // Only this server's own scripts and styles, no inline code, no framing.
  "content-security-policy": "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
};

export interface DashboardOptions {
  sql: postgres.Sql;
  host: string;
  port: number;
  /** Required as ?token=… (or a Bearer header) for the data (API and events) when set. */
  token?: string;
}

export interface Dashboard {
  url: string;
  close(): Promise<void>;
}

export async function startDashboard(options: DashboardOptions): Promise<Dashboard> {
  const hub = new EventHub();
  await hub.start(options.sql);
  const server = createServer((request, response) => {
    handle(request, response, options, hub).catch((error: unknown) => {
      if (!response.headersSent) send(response, 500, "text/plain; charset=utf-8", `error: ${(error as Error).message}\n`);
      else response.end();
    });
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(options.port, options.host, resolve);
    });
  } catch (error) {
    // The hub's LISTENs and keep-alive timer would keep the process running behind the error.
    await hub.close();
    throw new InputError("--host/--port", `cannot listen on ${options.host}:${options.port}: ${(error as Error).message}`);
  }
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(":") ? `[${options.host}]` : options.host;
  return {
    url: `http://${host}:${port}/`,
    close: async () => {
      await hub.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function handle(request: IncomingMessage, response: ServerResponse, options: DashboardOptions, hub: EventHub): Promise<void> {
  const url = new URL(request.url ?? "/", "http://dashboard");
  if (request.method !== "GET" && request.method !== "HEAD") return send(response, 405, "text/plain; charset=utf-8", "read-only\n");
  const path = url.pathname;
  // The page and its scripts hold no data and load without the token; the data needs it.
  if (path === "/" || path.startsWith("/run/")) return send(response, 200, "text/html; charset=utf-8", readStatic("index.html"));
  if (path.startsWith("/static/")) {
    const name = path.slice("/static/".length);
    const type = STATIC_FILES[name];
    return type === undefined ? notFound(response) : send(response, 200, type, readStatic(name));
  }
  if (options.token !== undefined && !authorised(request, url, options.token)) return send(response, 401, "text/plain; charset=utf-8", "a valid ?token= is required\n");
  if (path === "/events") return hub.add(response);
  if (path === "/api/runs") return sendJson(response, await listRuns(options.sql));
  if (path.startsWith("/api/runs/")) {
    const run = await findRun(options.sql, decodeURIComponent(path.slice("/api/runs/".length)));
    return run === undefined ? notFound(response) : sendJson(response, await readRunDetail(options.sql, run));
  }
  return notFound(response);
}

function authorised(request: IncomingMessage, url: URL, token: string): boolean {
  const header = request.headers.authorization;
  const given = url.searchParams.get("token") ?? (header?.startsWith("Bearer ") ? header.slice(7) : "");
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

function readStatic(name: string): string {
  return readFileSync(`${STATIC_DIR}${name}`, "utf8");
}

function sendJson(response: ServerResponse, data: unknown): void {
  send(response, 200, "application/json; charset=utf-8", JSON.stringify(data));
}

function notFound(response: ServerResponse): void {
  send(response, 404, "text/plain; charset=utf-8", "not found\n");
}

function send(response: ServerResponse, status: number, type: string, body: string): void {
  response.writeHead(status, { ...HEADERS, "content-type": type, "cache-control": "no-store" });
  response.end(body);
}
