import { countedFault } from "../play/faults.js";
import { formatPgn, withSan } from "../play/pgn.js";
import type { PairResult } from "../play/runner.js";
import type { FaultedGame } from "../db/faulted-games.js";
import type { EngineRole } from "../types/engines.js";

/**
 * The games of a pair that an engine fault decided (crash, illegal or unparsable move, its
 * own time loss, a failed start), as kept in spsa_faulted_game. A time loss to a delay
 * outside the engine is no engine fault and is not kept. The pair's first engine (`engines`:
 * plus and minus, or in reference mode θ+ or θ− and the reference) is white in its first game
 * and black in its second; `pairIndex` numbers the pair in its batch.
 */
export function faultedGames(
  pair: PairResult,
  pairIndex: number,
  event: string,
  date: Date,
  engines: readonly [EngineRole, EngineRole] = ["plus", "minus"],
): FaultedGame[] {
  return pair.games.flatMap((game, g) => {
    const firstColor = g === 0 ? "white" : "black";
    const secondColor = g === 0 ? "black" : "white";
    const sides = [
      { side: engines[0], fault: countedFault(game.faults[firstColor], game) },
      { side: engines[1], fault: countedFault(game.faults[secondColor], game) },
    ];
    const at = sides.find((s) => s.fault !== undefined && s.fault !== "delay");
    if (!at?.fault) return [];
    const gameIndex = 2 * pairIndex + g;
    const pgn = formatPgn(withSan(game), { event, round: gameIndex + 1, date });
    return [{ gameIndex, side: at.side, fault: at.fault, reason: game.reason, pgn }];
  });
}
