import { createHmac, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { hostname, networkInterfaces } from "node:os";

/**
 * The cookie that stands for the token once a browser has shown it (the token itself is never
 * stored in the browser).
 */
export const COOKIE = "spsa_dashboard";

const WILDCARD = new Set(["0.0.0.0", "::", ""]);

/** Whether `host` is a loopback address or name: only this machine can reach it. */
export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, "").toLowerCase();
  return bare === "localhost" || bare === "::1" || /^127\.\d+\.\d+\.\d+$/.test(bare);
}

/**
 * The Host headers the dashboard answers to: `name:port` for the loopback names, the
 * address it is bound to, and the names given; bound to every address (0.0.0.0, ::), also
 * this machine's name and addresses. Anything else is a page on another site that had its
 * name resolve to this machine (DNS rebinding), or a request meant for another server.
 */
export function allowedHosts(bound: string, port: number, extra: readonly string[] = []): Set<string> {
  const names = new Set(["localhost", "127.0.0.1", "::1", ...extra]);
  if (WILDCARD.has(bound)) {
    names.add(hostname());
    for (const addresses of Object.values(networkInterfaces())) for (const a of addresses ?? []) names.add(a.address);
  } else {
    names.add(bound);
  }
  const hosts = new Set<string>();
  for (const raw of names) {
    const name = raw.toLowerCase().replace(/^\[|\]$/g, "");
    const shown = name.includes(":") ? `[${name}]` : name;
    hosts.add(`${shown}:${port}`);
    if (port === 80) hosts.add(shown);
  }
  return hosts;
}

export function hostAllowed(request: IncomingMessage, allowed: ReadonlySet<string>): boolean {
  const host = request.headers.host;
  return host !== undefined && allowed.has(host.toLowerCase());
}

/** The cookie's value: derived from the token, so that the browser never holds the token itself. */
export function cookieValue(token: string): string {
  return createHmac("sha256", token).update("spsa dashboard cookie").digest("base64url");
}

export function setCookieHeader(token: string): string {
  return `${COOKIE}=${cookieValue(token)}; HttpOnly; SameSite=Strict; Path=/`;
}

/** The token as `Authorization: Bearer TOKEN`, or the cookie standing for it. */
export function authorised(request: IncomingMessage, token: string): boolean {
  const header = request.headers.authorization;
  if (header?.startsWith("Bearer ") && sameText(header.slice(7), token)) return true;
  const cookie = (request.headers.cookie ?? "")
    .split(";")
    .map((part) => part.trim())
    .find((part) => part.startsWith(`${COOKIE}=`));
  return cookie !== undefined && sameText(cookie.slice(COOKIE.length + 1), cookieValue(token));
}

/** Compares in time independent of where the texts differ. */
export function sameText(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
