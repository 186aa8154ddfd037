/** What the runner keeps of an engine's last `info ... score` line. */
export interface SearchInfo {
  /** Centipawns from the engine's side; mate in N moves as ±(MATE_SCORE - N). */
  score?: number;
  /** The engine's own search time (`time`), for latency measurement. */
  timeMs?: number;
  depth?: number;
  /** Nodes searched and the engine's speed (nodes per second), for a worker's speed measurement. */
  nodes?: number;
  nps?: number;
}

export const MATE_SCORE = 100_000;

/**
 * Parses only the fields we use from one `info` line. Called once per move, on the last
 * scored line, never on every line: engines print thousands of them.
 */
export function parseInfo(line: string): SearchInfo {
  const info: SearchInfo = {};
  const pv = line.indexOf(" pv ");
  const tokens = (pv === -1 ? line : line.slice(0, pv)).split(" "); // the pv is the long part and never needed
  for (let i = 1; i < tokens.length - 1; i++) {
    const token = tokens[i];
    if (token === "score") {
      const kind = tokens[i + 1];
      const value = Number(tokens[i + 2]);
      if (!Number.isFinite(value)) continue;
      if (kind === "cp") info.score = value;
      else if (kind === "mate") info.score = value > 0 ? MATE_SCORE - value : -MATE_SCORE - value;
      i += 2;
    } else if (token === "time") {
      const value = Number(tokens[i + 1]);
      if (Number.isFinite(value)) info.timeMs = value;
      i++;
    } else if (token === "depth" || token === "nodes" || token === "nps") {
      const value = Number(tokens[i + 1]);
      if (Number.isFinite(value)) info[token] = value;
      i++;
    } else if (token === "string") {
      break; // free text
    }
  }
  return info;
}

/** Whether a line is an `info` line carrying a score (cheap: no splitting). */
export function isScoredInfo(line: string): boolean {
  return line.startsWith("info") && line.includes(" score ");
}

/** Pawns with two decimals, or `+M3`/`-M2` for mates, as PGN comments show them. */
export function formatScore(score: number): string {
  if (Math.abs(score) > MATE_SCORE - 1000) {
    const moves = MATE_SCORE - Math.abs(score);
    return `${score > 0 ? "+" : "-"}M${moves}`;
  }
  return `${score > 0 ? "+" : ""}${(score / 100).toFixed(2)}`;
}
