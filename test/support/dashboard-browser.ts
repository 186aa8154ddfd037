import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa, type ResultPromise } from "execa";
import { chromium, type Page } from "playwright-core";
import { ROOT, SPSA_BIN } from "./cli.js";

/** Debian's chromium, headless, with nothing running in the background that would reach the network. */
const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** `spsa dashboard` as a real process on a free port, and a real Chromium with a page to point at it. */
export interface DashboardBrowser {
  /** The dashboard's address, "http://127.0.0.1:PORT/". */
  url: string;
  page: Page;
  close(): Promise<void>;
}

export async function openDashboard(env: {
  DATABASE_URL: string;
  SPSA_DASHBOARD_TOKEN: string;
}): Promise<DashboardBrowser> {
  const server: ResultPromise = execa("node", [SPSA_BIN, "dashboard", "--port", "0"], {
    cwd: ROOT,
    env,
    reject: false,
    all: true,
  });
  const url = await new Promise<string>((resolve, reject) => {
    let output = "";
    server.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const match = /dashboard at (http:\/\/127\.0\.0\.1:\d+\/) /.exec(output);
      if (match?.[1]) resolve(match[1]);
    });
    server.then((result) => reject(new Error(`the dashboard exited: ${result.all}`)), reject);
  });
  const profile = mkdtempSync(join(tmpdir(), "spsa-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1280, height: 900 },
  });
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    url,
    page,
    async close() {
      await context.close();
      server.kill("SIGTERM");
      await server;
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
