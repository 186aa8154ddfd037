import type { GameResult } from "./game.js";
import { Position, START_FEN } from "./position.js";
import { formatTimeControl } from "./time-control.js";
import { formatScore } from "./uci-info.js";
import { FAULTS } from "../types/faults.js";

export interface PgnContext {
  event: string;
  round: number;
  date: Date;
}

/** The PGN Termination tag: what kind of ending `reason` describes. */
function termination(game: GameResult): string {
  // A game ends at its first fault: both sides have one only when neither engine started.
  const fault = [game.faults.white, game.faults.black].find((kind) => kind !== "none");
  if (fault) return FAULTS[fault].termination;
  return game.reason.startsWith("adjudication") ? "adjudication" : "normal";
}

const escape = (text: string) => text.replace(/\\/g, "\\\\").replace(/"/g, '\\"');

/**
 * One game as PGN. Each move has a comment with the mover's score and the time the
 * runner measured (`{+0.31/12 0.051s}`); the last one ends with the result's reason (one comment, as
 * cutechess writes it: chess.js rejects two comments in a row).
 */
export function formatPgn(game: GameResult, context: PgnContext): string {
  const date = context.date.toISOString().slice(0, 10).replace(/-/g, ".");
  const tags: [string, string][] = [
    ["Event", context.event],
    ["Site", "?"],
    ["Date", date],
    ["Round", String(context.round)],
    ["White", game.white],
    ["Black", game.black],
    ["Result", game.result],
  ];
  if (game.opening.fen !== START_FEN) tags.push(["SetUp", "1"], ["FEN", game.opening.fen]);
  if (game.opening.name) tags.push(["Opening", game.opening.name]);
  if ("tc" in game.limits) tags.push(["TimeControl", formatTimeControl(game.limits.tc)]);
  tags.push(["PlyCount", String(game.plies)], ["Termination", termination(game)]);

  const [, side, , , , fullMove] = game.opening.fen.split(" ");
  let moveNumber = Number(fullMove ?? 1);
  let black = side === "b";
  const tokens: string[] = [];
  game.moves.forEach((move, index) => {
    if (!black) tokens.push(`${moveNumber}.`);
    else if (index === 0) tokens.push(`${moveNumber}...`);
    const score =
      move.score === undefined ? "" : `${formatScore(move.score)}${move.depth === undefined ? "" : `/${move.depth}`} `;
    const last = index === game.moves.length - 1 ? `, ${game.reason}` : "";
    tokens.push(move.san ?? move.uci, `{${score}${(move.elapsedMs / 1000).toFixed(3)}s${last}}`);
    if (black) moveNumber++;
    black = !black;
  });
  if (game.moves.length === 0) tokens.push(`{${game.reason}}`);
  tokens.push(game.result);

  const lines: string[] = [];
  let line = "";
  for (const token of tokens) {
    if (line !== "" && line.length + token.length + 1 > 79) {
      lines.push(line);
      line = token;
    } else {
      line = line === "" ? token : `${line} ${token}`;
    }
  }
  lines.push(line);
  return `${tags.map(([name, value]) => `[${name} "${escape(value)}"]`).join("\n")}\n\n${lines.join("\n")}\n\n`;
}

/**
 * The game with SAN for each move, replayed from its opening: a runner that recorded only
 * UCI moves (the SPSA worker's) can still write a game as PGN that other tools read.
 */
export function withSan(game: GameResult): GameResult {
  if (game.moves.every((move) => move.san !== undefined)) return game;
  const position = new Position(game.opening.fen);
  // The runner played only legal moves; should one not replay, it and the rest stay in UCI.
  let replayed = true;
  const moves = game.moves.map((move) => {
    const san = replayed ? position.play(move.uci, true) : undefined;
    replayed = san !== undefined;
    return san === undefined ? move : { ...move, san };
  });
  return { ...game, moves };
}
