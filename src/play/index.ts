/** The built-in UCI game runner: engines, games, openings, match statistics. See docs/match-mode.md. */
export { createRunner, pairResult, viewOf } from "./runner.js";
export type { GameJob, OutsideDelayPolicy, PairJob, PairResult, Runner, RunnerOptions, SideView } from "./runner.js";
export type { ForfeitCause } from "./forfeit-cause.js";
export type { EngineSpec, EngineTimeouts } from "./engine-process.js";
export { DEFAULT_ENGINE_TIMEOUTS } from "./engine-process.js";
export type { GameResult, GameScore, PlayedMove } from "./game.js";
export * from "./faults.js";
export { DEFAULT_ADJUDICATION, type AdjudicationRules } from "./adjudication.js";
export { defaultBookPath, isShippedBook, loadBook, openingOrder, pickOpening, playable, resolveBook, runOpenings, sequentialOpenings, withRandomPlies, type BookOptions, type Opening } from "./book.js";
export { START_FEN } from "./position.js";
export { deterministicLimit, refuseRepeatedGames } from "./repeated-games.js";
export { formatTimeControl, parseTimeControl, type SearchLimits, type TimeControl } from "./time-control.js";
export { seededRng, uniform, type Rng } from "../core/rng.js";
export * from "../stats/elo.js";
export { MatchTally, PairTally, type PairCounts } from "./match-tally.js";
export { formatPgn, withSan, type PgnContext } from "./pgn.js";
