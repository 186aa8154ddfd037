import { performance } from "node:perf_hooks";
import { Adjudicator, type AdjudicationRules } from "./adjudication.js";
import type { Opening } from "./book.js";
import type { EngineProcess } from "./engine-process.js";
import { forfeitCause, type ForfeitCause } from "./forfeit-cause.js";
import { Position, START_FEN, type GameEnd } from "./position.js";
import { Clock } from "./time-control.js";
import { goLine } from "./uci-lines.js";
import type { FaultKind } from "../types/faults.js";
import type { SearchLimits, Color } from "../types/play.js";

export type GameScore = "1-0" | "0-1" | "1/2-1/2";

export interface PlayedMove {
  uci: string;
  /** Only when the runner records SAN (for PGN output). */
  san?: string;
  /** Measured by the runner, from `go` written to `bestmove` read. */
  elapsedMs: number;
  /** The mover's last reported score (cp, its own side). */
  score?: number;
  depth?: number;
  /** The `time` of the engine's last scored `info` line. */
  engineTimeMs?: number;
  /**
   * Movetime mode only: the answer was already waiting when the runner resumed reading
   * (see quiet-reads.ts), so the engine answered before `elapsedMs`, which is an upper bound.
   */
  answerWasWaiting?: true;
}

export interface GameResult {
  white: string;
  black: string;
  opening: Opening;
  limits: SearchLimits;
  result: GameScore;
  /** Why the game ended: "white mates", "black: time forfeit", "adjudication: draw", ... */
  reason: string;
  plies: number;
  faults: { white: FaultKind; black: FaultKind };
  moves: PlayedMove[];
  /**
   * The search that lost on time: measured, allowed (margin included), and what the engine
   * itself reported, and whose fault it was (see forfeit-cause.ts).
   */
  timeForfeit?: { elapsedMs: number; allowedMs: number; engineTimeMs?: number; cause: ForfeitCause };
}

export interface GameOptions {
  /** Extra time a move may take beyond its limit before it loses on time. */
  timeMarginMs: number;
  /** After time left + margin + this, the engine gets `stop`. */
  stallMs: number;
  /** After `stop`, how long to wait for `bestmove` before killing the engine. */
  stopGraceMs: number;
  /** Stall timeout for nodes and depth searches, which have no clock. */
  untimedStallMs: number;
  adjudication: AdjudicationRules;
  /** Record SAN for each move (PGN output needs it; the SPSA worker does not). */
  san: boolean;
  /** Signs of a delay outside the engines, to tell whose fault a time forfeit was. */
  delays: DelayProbe;
}

export interface DelayProbe {
  /** A timed search starts: watch for delays until it ends (call the returned function then). */
  watch(): () => void;
  /** The runner's own event-loop lateness since `since` (performance.now() time). */
  lateMsSince(since: number): number;
  overloaded(): boolean;
}

const COLORS = ["white", "black"] as const;
const UCI_MOVE = /^[a-h][1-8][a-h][1-8][qrbn]?$/;

function lossFor(side: Color): GameScore {
  return side === 0 ? "0-1" : "1-0";
}

/** A game lost before a move was played because `side`'s engine could not be prepared. */
export function startFailure(
  names: [string, string],
  opening: Opening,
  limits: SearchLimits,
  failed: [string | undefined, string | undefined],
): GameResult {
  const faults = { white: failed[0] ? "startup" : "none", black: failed[1] ? "startup" : "none" } as const;
  const reason = failed
    .map((detail, side) => (detail ? `${COLORS[side]}: engine failed to start (${detail})` : undefined))
    .filter(Boolean)
    .join("; ");
  const result: GameScore = failed[0] && failed[1] ? "1/2-1/2" : failed[0] ? "0-1" : "1-0";
  return { white: names[0], black: names[1], opening, limits, result, reason, plies: 0, faults, moves: [] };
}

/**
 * Plays one game between two ready engines (after `ucinewgame`). The board is checked by
 * chess.js; the `position` command grows by one move per ply instead of being rebuilt.
 * A hung engine is killed here; the caller replaces engines that are no longer alive.
 */
export async function playGame(
  engines: [EngineProcess, EngineProcess],
  opening: Opening,
  limits: SearchLimits,
  options: GameOptions,
): Promise<GameResult> {
  const position = new Position(opening.fen);
  const clock = "tc" in limits ? new Clock(limits.tc, options.timeMarginMs) : undefined;
  const adjudicator = new Adjudicator(options.adjudication);
  const moves: PlayedMove[] = [];
  const faults: GameResult["faults"] = { white: "none", black: "none" };
  let timeForfeit: GameResult["timeForfeit"];
  const base = opening.fen === START_FEN ? "position startpos" : `position fen ${opening.fen}`;
  let moveList = ""; // " e2e4 e7e5 ...", appended to once per ply

  const finish = (end: GameEnd): GameResult => ({
    white: engines[0].spec.name,
    black: engines[1].spec.name,
    opening,
    limits,
    result: end.result,
    reason: end.reason,
    plies: moves.length,
    faults,
    moves,
    ...(timeForfeit && { timeForfeit }),
  });
  const fault = (side: Color, kind: FaultKind, detail: string): GameResult => {
    faults[COLORS[side]] = kind;
    return finish({ result: lossFor(side), reason: `${COLORS[side]}: ${detail}` });
  };

  let end = position.end();
  while (!end) {
    const side = position.sideToMove;
    const engine = engines[side];
    let allowedMs = Number.POSITIVE_INFINITY;
    let movetimeMs: number | undefined;
    let go: string;
    if ("movetimeMs" in limits) {
      movetimeMs = limits.movetimeMs;
      allowedMs = limits.movetimeMs + options.timeMarginMs;
      go = goLine(limits);
    } else if (clock) {
      allowedMs = clock.allowedMs(side);
      go = clock.goCommand(side);
    } else {
      go = goLine(limits as Exclude<SearchLimits, { tc: unknown }>);
    }
    const stallMs = Number.isFinite(allowedMs) ? allowedMs + options.stallMs : options.untimedStallMs;
    const timing = { stallMs, graceMs: options.stopGraceMs, movetimeMs };
    const wentAt = performance.now();
    const unwatch = Number.isFinite(allowedMs) ? options.delays.watch() : undefined;
    const outcome = await engine.go(moveList === "" ? base : `${base} moves${moveList}`, go, timing).finally(unwatch);

    if (outcome.kind === "crash") return fault(side, "crash", "engine crashed");
    if (outcome.kind === "hang") {
      engine.kill();
      return fault(side, "timeout", "time forfeit (no bestmove after stop, engine killed)");
    }
    const { score, depth, timeMs } = outcome.info;
    const uci = outcome.move;
    if (uci === undefined || !UCI_MOVE.test(uci)) return fault(side, "garbage", `unparsable move "${uci ?? ""}"`);
    if (outcome.stopped || outcome.elapsedMs > allowedMs || (clock && !clock.charge(side, outcome.elapsedMs))) {
      const { elapsedMs, stopped, answerWasWaiting } = outcome;
      const forfeit = { elapsedMs, allowedMs: Math.min(allowedMs, stallMs), engineTimeMs: timeMs };
      const cause = forfeitCause({
        ...forfeit,
        timed: Number.isFinite(allowedMs),
        stopped,
        answerWasWaiting,
        runnerLateMs: options.delays.lateMsSince(wentAt),
        overloaded: options.delays.overloaded(),
      });
      timeForfeit = { ...forfeit, cause };
      const own = timeMs === undefined ? "" : `, engine reported ${timeMs} ms`;
      const outside = cause === "outside" ? "; delay outside the engine" : "";
      return fault(
        side,
        "timeout",
        `time forfeit (${Math.round(elapsedMs)} ms of ${Math.round(forfeit.allowedMs)} allowed${own}${outside})`,
      );
    }
    const san = position.play(uci, options.san);
    if (san === undefined) return fault(side, "illegal", `illegal move ${uci}`);

    const { elapsedMs, answerWasWaiting } = outcome;
    moves.push({
      uci,
      elapsedMs,
      ...(options.san && { san }),
      score,
      depth,
      engineTimeMs: timeMs,
      ...(answerWasWaiting && { answerWasWaiting }),
    });
    moveList += ` ${uci}`;
    end = position.end() ?? adjudicator.afterMove(side, position.fullMoveNumber - side, score);
  }
  return finish(end);
}
