import type { PlayLimits, SprtBounds, TimeControl } from "./play.js";
import type { AdaptiveGains, ParamSettings, PilotMeasure, Schedule, Values } from "./spsa.js";
import type { OutsideDelayPolicy } from "./play.js";
/** A limit that replaces the time per move: config.toml's nodes or depth, or a verification's clock. */
export type IterationMoveLimit = MoveLimit | { tc: TimeControl };

/**
 * What an iteration was played with, stored in its row (`settings`): its update is computed
 * from this (not from today's files), and a resumed master compares it with today's files to
 * say what changed. Not here, since its row has a column for each (stored once): the time per
 * move (`timelow_ms`, `timehigh_ms`) and the games (`target_games`; a UCI-option run's games
 * per iteration are `spsa_option_run.games_per_iteration`): see PlayedWith.
 */
export interface IterationSettings {
  spsa: SpsaConfig;
  /**
   * `[time_control] nodes` or `depth`, or `spsa verify --tc`'s clock (absent: a time per move
   * in [timelow, timehigh]); workers read it from here.
   */
  moveLimit?: IterationMoveLimit;
  /** `[time_control] reference_nps` (absent: no scaling); workers read it from here. */
  referenceNps?: number;
  /**
   * `[games] lease_seconds`: the lease of the iteration's batches, set in the database from here,
   * never by a worker (absent in older rows: 120).
   */
  leaseSeconds?: number;
  parameters: Record<string, ParamSettings>;
  /**
   * The factor on a_k of each parameter that this iteration's update uses, chosen by the
   * adaptive gains when it started (src/spsa/adaptive.ts); absent: 1 for every parameter.
   */
  stepScale?: Values;
  /** What the curvature pilot measured, when it sped this iteration's steps (stepScale includes its factor). */
  pilot?: PilotMeasure;
  /**
   * Build mode's iterations in flight (src/spsa/in-flight.ts): how many iterations before this one
   * had no step applied when its perturbation was drawn (absent: 0, the barrier).
   */
  staleness?: number;
  /**
   * A gain iteration (docs/gain-so-far.md): plus and minus are one build of θ, each playing θ₀;
   * it measures the Elo gained so far and moves θ no step. Absent: a tuner iteration.
   */
  gain?: true;
}

/**
 * An iteration's settings with what its row holds in columns beside them: what describeChanges
 * compares with today's files.
 */
export interface PlayedWith {
  settings: IterationSettings;
  timelowMs: number;
  timehighMs: number;
  gamesPerIteration: number;
}

/** `[time_control] nodes` or `depth`: every move searched to it instead of a time per move. */
export type MoveLimit = { nodes: number } | { depth: number };

export interface TimeControlConfig {
  timelowMs: number;
  timehighMs: number;
  /** When set, games are played at it and timelow/timehigh are not used (config.toml may not set them then). */
  moveLimit: MoveLimit | undefined;
  /** Workers scale their time per move by reference_nps / their engine's measured speed (src/worker/time-factor.ts). */
  referenceNps: number | undefined;
  /** Extra time an engine may overrun `movetime` before it forfeits (engines overshoot: docs/design-notes.md). */
  marginMs: number;
}

export interface GamesConfig {
  gamesPerIteration: number;
  batchSize: number;
  /** Absolute path of the opening book, or undefined for the book shipped with the tool. */
  book: string | undefined;
  /** For PGN books: how many plies of each game make the opening. */
  bookPlies: number;
  /** A batch whose worker has not been heard from for this long returns to the pool. */
  leaseSeconds: number;
}

export interface SpsaConfig {
  maxIterations: number;
  /** Perturbation (steps) and learning rate (fishtest's units) at the last iteration; a and c follow from them. */
  cEnd: number;
  rEnd: number;
  /** Set only to override what cEnd and rEnd give. */
  a: number | undefined;
  c: number | undefined;
  /** Undefined means the default, a fraction of maxIterations (see src/spsa/math.ts). */
  A: number | undefined;
  alpha: number;
  gamma: number;
  eloCap: number;
  maxStep: number;
  /** "standard" (Spall's decaying gains) or "self-correcting" (SCSPSA; src/spsa/trajectory.ts). */
  schedule: Schedule;
  /** Heavy-ball momentum β in [0, 1); 0 is plain SPSA. */
  momentum: number;
  /** Share of the last iterations whose θ is averaged into the final values (0: the last θ). */
  averageTail: number;
  /**
   * Build mode: how many iterations whose step is not applied yet a new iteration's perturbation
   * may lag behind (src/spsa/in-flight.ts); the master opens that many ahead at most. 0: the barrier.
   */
  maxStaleness: number;
  /** Per-parameter step scales from what the run measures (src/spsa/adaptive.ts); mode "off": plain a_k. */
  adaptive: AdaptiveGains;
  /** The Elo gained so far and the stop rule (docs/gain-so-far.md). */
  gain: GainConfig;
  /**
   * Reference mode (docs/reference-mode.md): θ+ and θ− each play this engine instead of each
   * other: "start" (θ₀ built once when the run starts) or an engine binary's absolute path.
   * Undefined: plus against minus.
   */
  reference?: string;
}

/**
 * `[spsa] gain_share`, `stop_below` and `stop_early` (docs/gain-so-far.md): a share of a run's
 * games plays θ against θ₀ in blocks, which tell what θ gained so far and what the rest of the
 * budget is projected to add; the stop rule reads that projection.
 */
export interface GainConfig {
  /** The share of the games played as gain blocks; 0: none, and no gain is shown. */
  share: number;
  /** Elo: the stop rule fires when the rest of the budget is projected within ±this, with 95 % confidence. */
  stopBelow: number;
  /** Whether the master ends the run when the stop rule fires (false: it says so and plays on). */
  stopEarly: boolean;
}

export interface BuildConfig {
  /** The user's engine crate (never edited: builds happen in copies). */
  engineDir: string;
  /** The constants file, relative to engineDir. */
  constantsFile: string;
  /** Where per-iteration binaries and the build trees go. */
  outputDir: string;
  cargoArgs: string[];
  /** The binary's name under target/release; undefined means the package name in Cargo.toml. */
  binaryName: string | undefined;
  /**
   * How many iterations the build mode's master builds at once; "auto": from its cores
   * (src/spsa/in-flight.ts, buildsAtOnce).
   */
  buildsAtOnce: number | "auto";
}

/**
 * `[engine]`: how θ reaches the engine. "build" rewrites the constants file and builds plus
 * and minus every iteration; "options" plays one binary and sets each parameter's UCI
 * option (`option` in params.toml) with `setoption`, with asynchronous updates per batch.
 */
export interface EngineConfig {
  mode: "build" | "options";
  /** Options mode: the engine binary; undefined means [build].engine_dir built once at the master's start. */
  binary: string | undefined;
}

export interface DatabaseConfig {
  url: string | undefined;
  pollIntervalMs: number;
}

/**
 * `[master]`: where the key that signs the binaries is (undefined: in the tool's home, see
 * src/signing/key-file.ts).
 */
export interface MasterConfig {
  signingKey: string | undefined;
}

/** `[worker]`: the masters' public keys whose signed binaries this worker runs, and the bounds of its engine cache. */
export interface WorkerConfig {
  trustedKeys: string[];
  /**
   * `engine_cache_files` and `engine_cache_mb` (in bytes here): the cache keeps at most this many
   * binaries and bytes, but for those batches in flight use.
   */
  engineCache: { files: number; bytes: number };
}

/**
 * `[ship]` (docs/ship-check.md): at the end of a build-mode run the master picks the best of
 * its candidate θ at the limits the engine ships with, and tests it against the start θ.
 */
export interface ShipConfig {
  /** What both engines search with: the time control (or nodes, depth) the engine will play. */
  limits: PlayLimits;
  /** The test against the start θ. */
  sprt: SprtBounds;
  /** The most games that test may play (undecided when reached). */
  maxGames: number;
  /** Games of each elimination match between candidates (0: the run's own result is the candidate). */
  eliminationGames: number;
  /** Share of the last iterations whose θ is averaged into the tail candidate. */
  tail: number;
  /**
   * Transfer in the run (docs/ship-check.md): every `every`th iteration's plus and minus also
   * play `games` games at the ship limits, counted apart from the step; `every` 0: off.
   */
  transfer: { every: number; games: number };
}

export interface TuningConfig {
  file: string;
  timeControl: TimeControlConfig;
  /**
   * `[time_control] outside_delay` and `max_replays`, as the worker reading this file plays:
   * a game lost only to a delay outside the engine (a busy machine) is replayed, or scored.
   */
  outsideDelay: OutsideDelayPolicy;
  games: GamesConfig;
  spsa: SpsaConfig;
  build: BuildConfig;
  engine: EngineConfig;
  database: DatabaseConfig;
  master: MasterConfig;
  worker: WorkerConfig;
  /** `[ship]`; undefined: no ship check (the section sets no limit). */
  ship: ShipConfig | undefined;
}

declare const withoutSecretsBrand: unique symbol;

/**
 * A config as spsa_run stores it: made only by storedRunConfig (src/config/secrets.ts), which drops
 * every key that may hold a credential.
 */
export type StoredRunConfig = Record<string, unknown> & { readonly [withoutSecretsBrand]: true };
