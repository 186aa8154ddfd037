import { cpus } from "node:os";
import { DEFAULT_ADJUDICATION, type AdjudicationRules } from "./adjudication.js";
import type { Opening } from "./book.js";
import { DEFAULT_ENGINE_TIMEOUTS, type EngineProcess, type EngineSpec, type EngineTimeouts } from "./engine-process.js";
import { EnginePool } from "./engine-pool.js";
import { LoopLag, machineOverloaded } from "./loop-lag.js";
import { playGame, startFailure, type GameOptions, type GameResult } from "./game.js";
import { Semaphore } from "./semaphore.js";
import type { FaultKind } from "../types/faults.js";
import type { OutsideDelayPolicy, SearchLimits } from "../types/play.js";

export interface RunnerOptions {
  /** Games played at once (default: number of cores). */
  concurrency?: number;
  /** A move may exceed its time by this much before it loses on time (default 50 ms). */
  timeMarginMs?: number;
  /** Default: DEFAULT_ADJUDICATION; `{}` turns adjudication off. */
  adjudication?: AdjudicationRules;
  /** Record SAN per move, for PGN output (default false). */
  san?: boolean;
  timeouts?: Partial<EngineTimeouts>;
  /** Fine-tuning of stall handling; see GameOptions. */
  stallMs?: number;
  stopGraceMs?: number;
  untimedStallMs?: number;
  /** Every game played, replayed ones included. */
  onGameEnd?: (game: GameResult) => void;
  /** What a game lost only to a delay outside the engine counts as (default: scored as a loss). */
  outsideDelay?: OutsideDelayPolicy;
}

export interface GameJob {
  white: EngineSpec;
  black: EngineSpec;
  opening: Opening;
  limits: SearchLimits;
}

export interface PairJob {
  /** Plays white in the first game and black in the second. Results are seen from this engine. */
  first: EngineSpec;
  second: EngineSpec;
  opening: Opening;
  limits: SearchLimits;
}

/** One game seen from one engine. */
export interface SideView {
  outcome: "win" | "loss" | "draw";
  /** This engine's fault, if the game was decided by one. */
  fault: FaultKind;
  opponentFault: FaultKind;
}

export interface PairResult {
  /** [first as white, first as black]. */
  games: [GameResult, GameResult];
  /** Both games from the first engine's side. */
  first: [SideView, SideView];
  /** The first engine's points in the pair, 0 (LL) to 4 (WW): the pentanomial bucket. */
  pentanomial: 0 | 1 | 2 | 3 | 4;
  /** Games of the pair played again because a delay outside the engine lost them. */
  replays: number;
  /** A game was still lost to an outside delay after the pair's last allowed replay, and was scored. */
  replayLimitReached: boolean;
}

export interface Runner {
  playGame(job: GameJob): Promise<GameResult>;
  /**
   * Plays both games of a pair (at once when slots are free). Call it for a whole batch at once:
   * games queue for slots.
   */
  playPair(job: PairJob): Promise<PairResult>;
  /** Quits idle engines whose path is not in `keepPaths`, e.g. the previous iteration's binaries. */
  retire(keepPaths: readonly string[]): Promise<void>;
  /** Games at once from now on; a lower limit takes effect as running games end. */
  setConcurrency(concurrency: number): void;
  /** Quits all engines; games still running are abandoned. */
  close(): Promise<void>;
  /** Engine processes alive now. */
  readonly engineCount: number;
}

/** `color` is the engine's colour in `game`. */
export function viewOf(game: GameResult, color: "white" | "black"): SideView {
  const other = color === "white" ? "black" : "white";
  const win = color === "white" ? "1-0" : "0-1";
  const outcome = game.result === "1/2-1/2" ? "draw" : game.result === win ? "win" : "loss";
  return { outcome, fault: game.faults[color], opponentFault: game.faults[other] };
}

const POINTS = { win: 2, draw: 1, loss: 0 } as const;

export function pairResult(games: [GameResult, GameResult], replays = 0, replayLimitReached = false): PairResult {
  const first: [SideView, SideView] = [viewOf(games[0], "white"), viewOf(games[1], "black")];
  const pentanomial = (POINTS[first[0].outcome] + POINTS[first[1].outcome]) as PairResult["pentanomial"];
  return { games, first, pentanomial, replays, replayLimitReached };
}

/**
 * The game runner: a pool of engine processes kept across games and batches, and a
 * semaphore of `concurrency` game slots shared by everything submitted to it.
 */
export function createRunner(options: RunnerOptions = {}): Runner {
  const slots = new Semaphore(options.concurrency ?? cpus().length);
  const pool = new EnginePool({ ...DEFAULT_ENGINE_TIMEOUTS, ...options.timeouts });
  const lag = new LoopLag();
  const outsideDelay = options.outsideDelay ?? { policy: "loss" };
  const gameOptions: GameOptions = {
    timeMarginMs: options.timeMarginMs ?? 50,
    stallMs: options.stallMs ?? 100,
    stopGraceMs: options.stopGraceMs ?? 1000,
    untimedStallMs: options.untimedStallMs ?? 60_000,
    adjudication: options.adjudication ?? DEFAULT_ADJUDICATION,
    san: options.san ?? false,
    delays: { watch: () => lag.hold(), lateMsSince: (since) => lag.lateMsSince(since), overloaded: machineOverloaded },
  };

  const prepare = async (spec: EngineSpec): Promise<EngineProcess | string> => {
    try {
      return await pool.acquire(spec);
    } catch (error) {
      return (error as Error).message;
    }
  };

  const playOne = async (job: GameJob): Promise<GameResult> => {
    const [white, black] = await Promise.all([prepare(job.white), prepare(job.black)]);
    let game: GameResult;
    if (typeof white === "string" || typeof black === "string") {
      game = startFailure([job.white.name, job.black.name], job.opening, job.limits, [
        typeof white === "string" ? white : undefined,
        typeof black === "string" ? black : undefined,
      ]);
      for (const engine of [white, black]) if (typeof engine !== "string") pool.release(engine);
    } else {
      try {
        game = await playGame([white, black], job.opening, job.limits, gameOptions);
      } finally {
        pool.release(white);
        pool.release(black);
      }
    }
    options.onGameEnd?.(game);
    return game;
  };

  const runner: Runner = {
    playGame: (job) => slots.run(() => playOne(job)),
    async playPair(job) {
      const { first, second, opening, limits } = job;
      let replays = 0;
      let replayLimitReached = false;
      const play = async (game: GameJob): Promise<GameResult> => {
        for (;;) {
          const result = await runner.playGame(game);
          if (result.timeForfeit?.cause !== "outside" || outsideDelay.policy === "loss") return result;
          if (replays >= outsideDelay.maxReplays) {
            replayLimitReached = true;
            return result;
          }
          replays++;
        }
      };
      const games = await Promise.all([
        play({ white: first, black: second, opening, limits }),
        play({ white: second, black: first, opening, limits }),
      ]);
      return pairResult(games, replays, replayLimitReached);
    },
    retire: (keepPaths) => pool.retire(keepPaths),
    setConcurrency: (concurrency) => slots.setLimit(concurrency),
    close: () => {
      lag.stop();
      return pool.close();
    },
    get engineCount() {
      return pool.size;
    },
  };
  return runner;
}
