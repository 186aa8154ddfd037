import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import type postgres from "postgres";
import { findRun, listRuns } from "../db/run-status.js";
import { InputError } from "../core/errors.js";
import { allowedHosts, authorised, hostAllowed, sameText, setCookieHeader } from "./access.js";
import { DEFAULT_CLIENT_BUFFER_BYTES, DEFAULT_MAX_CLIENTS, EventHub } from "./events.js";
import { MAX_CHARTS, readRunCharts, readRunDetail, readRunUpdate } from "./run-detail.js";
import { renderStatus } from "../status/render.js";
import { readRunStatus } from "../status/snapshot.js";

/**
 * The dashboard's HTTP server, node:http only: a page, three static files and a JSON API,
 * all read-only, plus the event stream. docs/dashboard-security.md: the token, the Host
 * check and the caps. The files are read from the package (works from
 * src/ and dist/ alike: both are two folders below the root), so nothing comes from a CDN.
 */
const STATIC_DIR = fileURLToPath(new URL("../../src/dashboard/static/", import.meta.url));
const STATIC_FILES: Record<string, string> = {
  "app.js": "text/javascript; charset=utf-8",
  "charts.js": "text/javascript; charset=utf-8",
  "style.css": "text/css; charset=utf-8",
};
const TEXT = "text/plain; charset=utf-8";
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
  /** When set, every request needs it (Authorization: Bearer) or the cookie it is exchanged for (`?token=` once). */
  token?: string;
  /** Host names, besides this machine's, that requests may be addressed to (e.g. a DNS name or a proxy's). */
  allowHosts?: readonly string[];
  /** Open event streams at most (default DEFAULT_MAX_CLIENTS). */
  maxClients?: number;
  /** Unsent bytes per event stream at most (default DEFAULT_CLIENT_BUFFER_BYTES). */
  maxBufferedBytes?: number;
}

export interface Dashboard {
  url: string;
  close(): Promise<void>;
}

export async function startDashboard(options: DashboardOptions): Promise<Dashboard> {
  const hub = new EventHub({
    maxClients: options.maxClients ?? DEFAULT_MAX_CLIENTS,
    maxBufferedBytes: options.maxBufferedBytes ?? DEFAULT_CLIENT_BUFFER_BYTES,
  });
  await hub.start(options.sql);
  // Known once listening (port 0 picks one).
  let hosts = new Set<string>();
  const server = createServer((request, response) => {
    handle(request, response, options, hub, hosts).catch((error: unknown) => {
      if (!response.headersSent) send(response, 500, TEXT, `error: ${(error as Error).message}\n`);
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
    throw new InputError(
      "--host/--port",
      `cannot listen on ${options.host}:${options.port}: ${(error as Error).message}`,
    );
  }
  const { port } = server.address() as AddressInfo;
  hosts = allowedHosts(options.host, port, options.allowHosts);
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

async function handle(
  request: IncomingMessage,
  response: ServerResponse,
  options: DashboardOptions,
  hub: EventHub,
  hosts: ReadonlySet<string>,
): Promise<void> {
  // Before anything else, so that a rebound name or a misdirected request learns nothing.
  if (!hostAllowed(request, hosts)) return send(response, 421, TEXT, "this dashboard does not answer to that Host\n");
  if (request.method !== "GET" && request.method !== "HEAD") return send(response, 405, TEXT, "read-only\n");
  const url = new URL(request.url ?? "/", "http://dashboard");
  if (options.token !== undefined) {
    const given = url.searchParams.get("token");
    if (given !== null) return exchangeToken(response, url, given, options.token);
    if (!authorised(request, options.token))
      return send(
        response,
        401,
        TEXT,
        "a token is required: open /?token=TOKEN once (it becomes a cookie), or send Authorization: Bearer TOKEN\n",
      );
  }
  const path = url.pathname;
  if (path === "/") return send(response, 200, "text/html; charset=utf-8", readStatic("index.html"));
  if (path.startsWith("/run/"))
    return send(
      response,
      200,
      "text/html; charset=utf-8",
      await runPage(options.sql, decodeURIComponent(path.slice("/run/".length))),
    );
  if (path.startsWith("/static/")) {
    const name = path.slice("/static/".length);
    const type = STATIC_FILES[name];
    return type === undefined ? notFound(response) : send(response, 200, type, readStatic(name));
  }
  if (path === "/events") return hub.add(response) ? undefined : tooManyStreams(response);
  if (path === "/api/runs") return sendJson(response, await listRuns(options.sql));
  if (path.startsWith("/api/runs/"))
    return runData(response, options.sql, decodeURIComponent(path.slice("/api/runs/".length)), url.searchParams);
  return notFound(response);
}

/**
 * A run's page data: its first load; with `since=N` (and `chart=NAME`, repeated, and `gain=G`) what
 * changed after the page's cursor N, for its charts, and the gain's points after G games; with
 * `chart` alone those charts' whole history.
 */
async function runData(
  response: ServerResponse,
  sql: postgres.Sql,
  name: string,
  query: URLSearchParams,
): Promise<void> {
  const since = query.get("since");
  const charts = query.getAll("chart");
  const gain = query.get("gain");
  if (since !== null && !/^\d{1,9}$/.test(since))
    return send(response, 400, TEXT, "since: a whole number of batches or iterations\n");
  if (gain !== null && !/^\d{1,12}$/.test(gain))
    return send(response, 400, TEXT, "gain: a whole number of games (the gain chart's last point)\n");
  if (charts.length > MAX_CHARTS) return send(response, 400, TEXT, `chart: at most ${MAX_CHARTS} parameters at once\n`);
  const run = await findRun(sql, name);
  if (run === undefined) return notFound(response);
  if (since !== null)
    return sendJson(
      response,
      await readRunUpdate(sql, run, Number(since), charts, gain === null ? undefined : Number(gain)),
    );
  if (charts.length > 0) return sendJson(response, { parameters: await readRunCharts(sql, run, charts) });
  return sendJson(response, await readRunDetail(sql, run));
}

/** Points of each sparkline in the run page's first paint, as `spsa status` draws them. */
const FIRST_PAINT_SPARKLINE = 24;

/**
 * The run page with what the server knows in its first response: the run's `spsa status` screen
 * (HTML-escaped, no script), so the page is never blank and reads without JavaScript; the
 * page's script replaces it with the live page once it has loaded the run.
 */
async function runPage(sql: postgres.Sql, name: string): Promise<string> {
  const page = readStatic("index.html");
  const run = await findRun(sql, name);
  const body =
    run === undefined
      ? `<p class="error">no run "${escapeHtml(name)}"</p>`
      : `<h1>Run ${escapeHtml(run.name)}</h1>\n<pre ` +
        `id="first-paint">${escapeHtml(renderStatus(await readRunStatus(sql, run, { samples: FIRST_PAINT_SPARKLINE })))}</pre>`;
  return page.replace('<main id="app"></main>', `<main id="app">${body}</main>`);
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * A first visit with `?token=`: the token becomes an HttpOnly, SameSite=Strict cookie and
 * the browser is sent to the same address without it, so that the token stays out of the
 * history, the address bar and every link the page builds.
 */
function exchangeToken(response: ServerResponse, url: URL, given: string, token: string): void {
  if (!sameText(given, token)) return send(response, 401, TEXT, "wrong token\n");
  url.searchParams.delete("token");
  // One leading slash: "//host" would send the browser to another site.
  const location = `/${url.pathname.replace(/^\/+/, "")}${url.search}`;
  response.writeHead(303, { ...HEADERS, location, "set-cookie": setCookieHeader(token), "cache-control": "no-store" });
  response.end();
}

function tooManyStreams(response: ServerResponse): void {
  response.writeHead(503, { ...HEADERS, "content-type": TEXT, "cache-control": "no-store", "retry-after": "30" });
  response.end("too many live pages open: close one\n");
}

function readStatic(name: string): string {
  return readFileSync(`${STATIC_DIR}${name}`, "utf8");
}

function sendJson(response: ServerResponse, data: unknown): void {
  send(response, 200, "application/json; charset=utf-8", JSON.stringify(data));
}

function notFound(response: ServerResponse): void {
  send(response, 404, TEXT, "not found\n");
}

function send(response: ServerResponse, status: number, type: string, body: string): void {
  response.writeHead(status, { ...HEADERS, "content-type": type, "cache-control": "no-store" });
  response.end(body);
}
