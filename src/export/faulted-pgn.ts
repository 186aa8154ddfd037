import type { FaultedGameRow } from "../db/faulted-games.js";
import { printable, printableLines } from "../core/printable.js";
import type { Values } from "../types/spsa.js";

// A tag value is one line: its control characters (a worker's text) are shown as \xNN first, so the
// file is safe to print.
const escape = (text: string) => printable(text).replace(/\\/g, "\\\\").replace(/"/g, '\\"');
const theta = (values: Values) =>
  Object.keys(values)
    .sort()
    .map((name) => `${name}=${values[name]}`)
    .join(" ");

/**
 * The kept games as one PGN file: each game as the worker wrote it, with tags saying which
 * engine faulted and how, and the θ (or tuned options), binaries and worker of its game.
 */
export function faultedGamesPgn(runName: string, rows: readonly FaultedGameRow[]): string {
  return rows
    .map((row) => {
      const tags: [string, string][] = [
        ["Run", runName],
        ["Iteration", String(row.iteration)],
        ["Worker", row.workerName],
        ["FaultedEngine", row.side],
        ["Fault", row.fault],
        ["FaultReason", row.reason],
        ["PlusTheta", theta(row.plusParameters)],
        ["MinusTheta", theta(row.minusParameters)],
        ["PlusHash", row.plusEngineSha256],
        ["MinusHash", row.minusEngineSha256],
      ];
      // Tag names are letters only: chess.js, for one, reads no others.
      const added = tags.map(([name, value]) => `[${name} "${escape(value)}"]`).join("\n");
      // A stored game is its tag section, a blank line, then its moves: the tags go at the section's end.
      const pgn = printableLines(row.pgn);
      const split = pgn.indexOf("\n\n");
      return split < 0 ? `${added}\n${pgn}` : `${pgn.slice(0, split)}\n${added}${pgn.slice(split)}`;
    })
    .join("");
}
