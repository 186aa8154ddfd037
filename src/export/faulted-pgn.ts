import type { FaultedGameRow } from "../db/faulted-games.js";
import type { Values } from "../spsa/math.js";

const escape = (text: string) => text.replace(/\\/g, "\\\\").replace(/"/g, '\\"');
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
      const split = row.pgn.indexOf("\n\n");
      return split < 0 ? `${added}\n${row.pgn}` : `${row.pgn.slice(0, split)}\n${added}${row.pgn.slice(split)}`;
    })
    .join("");
}
