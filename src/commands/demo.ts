import { copyFileSync } from "node:fs";
import { join } from "node:path";
import { loadParams } from "../params/params.js";
import { embeddedServer, homeFolder } from "../postgres/embedded.js";
import { DEFAULT_PARAMS_FILE, loadRunInputs, masterCommand } from "./master.js";
import { runSideBySide } from "../core/side-by-side.js";
import { workerCommand } from "./compete-spsa.js";

export interface DemoOptions {
  config?: string;
  params?: string;
  iterations?: number;
  games?: number;
  concurrency?: number;
  log?: (line: string) => void;
  /** Ctrl-C: stops the master and the worker. */
  signal?: AbortSignal;
}

/** Nodes per move of the demo's games: about a second a game of the sample engine. */
export const DEMO_NODES = 2000;

/**
 * `spsa demo`: a real, short tuning run of the configured engine — a master and a worker
 * in one process, on a copy of params.toml so the user's file is untouched — that ends
 * by printing the parameters before and after.
 */
export async function demoCommand(options: DemoOptions = {}): Promise<void> {
  const log = options.log ?? console.log;
  // Bad input stops the demo before it copies a file or starts a worker.
  loadRunInputs({ config: options.config, params: options.params });
  const dir = homeFolder(embeddedServer(), "demo");
  const paramsFile = join(dir, "params.toml");
  copyFileSync(options.params ?? DEFAULT_PARAMS_FILE, paramsFile);
  const before = loadParams(paramsFile);
  const iterations = options.iterations ?? 3;
  const games = options.games ?? 16;

  // The worker runs beside the master: a failure of either stops both and is reported once.
  await runSideBySide(
    (signal) =>
      masterCommand({
        config: options.config,
        params: paramsFile,
        name: `demo-${new Date().toISOString().replace(/[:.]/g, "-")}`,
        fresh: true,
        signal,
        adjust: (config) => ({
          ...config,
          spsa: { ...config.spsa, maxIterations: iterations },
          games: { ...config.games, gamesPerIteration: games, batchSize: Math.min(config.games.batchSize, games) },
          // A node limit: a busy machine slows the games down but cannot lose them on time.
          timeControl: { ...config.timeControl, moveLimit: { nodes: DEMO_NODES }, referenceNps: undefined },
        }),
      }),
    (signal) =>
      workerCommand({
        config: options.config,
        concurrency: options.concurrency,
        masterBeside: true,
        name: `demo-worker-${process.pid}`,
        signal,
      }),
    options.signal,
  );
  const after = new Map(loadParams(paramsFile).map((p) => [p.name, p.value]));
  log("");
  log(`parameters after ${iterations} iterations of ${games} games (${paramsFile}):`);
  const width = Math.max(...before.map((p) => p.name.length));
  for (const p of before) {
    const now = after.get(p.name) ?? p.value;
    // A float with a step of 0.1 moves by thousandths in a demo: show the digits that moved.
    const decimals = Math.max(2, 2 - Math.floor(Math.log10(p.step)));
    const change = Number((now - p.value).toFixed(decimals));
    const signed = change === 0 ? "0" : `${change > 0 ? "+" : ""}${change.toFixed(decimals)}`;
    log(
      `  ${p.name.padEnd(width)}  ${String(p.value).padStart(8)} -> ${now.toFixed(decimals).padStart(8)}  (${signed})`,
    );
  }
}
