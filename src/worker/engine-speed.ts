import { EngineError } from "../core/errors.js";
import { EngineProcess, type EngineSpec } from "../play/engine-process.js";
import type { SearchInfo } from "../play/uci-info.js";

/**
 * A worker's measurement of its engine's speed, the generic UCI way: `go movetime` from a
 * few fixed positions, reading the `nps` (or `nodes` and `time`) of the engine's last
 * `info` line. One engine searches alone: the worker measures before its first games.
 */

/** The start, a middlegame (Kiwipete) and an endgame: no one kind of position decides. */
const SPEED_POSITIONS = [
  "position startpos",
  "position fen r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
  "position fen 8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
];
/** Long enough that an iterative-deepening engine runs at its full speed (short searches report less). */
export const SPEED_MOVETIME_MS = 1000;

/**
 * The median of the positions' speeds in nodes per second; undefined when the engine reports
 * neither nps nor nodes and time. `signal` kills the engine (the measurement then fails).
 */
export async function measureNps(
  spec: EngineSpec,
  movetimeMs = SPEED_MOVETIME_MS,
  signal?: AbortSignal,
): Promise<number | undefined> {
  const engine = await EngineProcess.start(spec);
  const kill = () => engine.kill();
  signal?.addEventListener("abort", kill, { once: true });
  if (signal?.aborted) kill();
  try {
    const speeds: number[] = [];
    for (const position of SPEED_POSITIONS) {
      await engine.newGame();
      const outcome = await engine.go(position, `go movetime ${movetimeMs}`, {
        stallMs: movetimeMs + 5000,
        graceMs: 1000,
      });
      if (outcome.kind !== "bestmove")
        throw new EngineError(`${spec.name}: no bestmove while its speed was measured (${outcome.kind})`);
      const nps = npsOf(outcome.info);
      if (nps !== undefined) speeds.push(nps);
    }
    return median(speeds);
  } finally {
    signal?.removeEventListener("abort", kill);
    await engine.quit();
  }
}

function npsOf(info: SearchInfo): number | undefined {
  if (info.nps !== undefined && info.nps > 0) return info.nps;
  if (info.nodes !== undefined && info.timeMs !== undefined && info.nodes > 0 && info.timeMs > 0)
    return (info.nodes * 1000) / info.timeMs;
  return undefined;
}

function median(values: number[]): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}
