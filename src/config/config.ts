import { accessSync, constants, existsSync, statSync } from "node:fs";
import { DEFAULT_MAX_REPLAYS, OUTSIDE_DELAY_POLICIES, outsideDelayPolicy } from "../play/outside-delay.js";
import { shippedBook } from "../play/book.js";
import { dirname, resolve } from "node:path";
import { DEFAULT_ELO_CAP, DEFAULT_MAX_STEP, defaultA, deriveFromEnd } from "../spsa/math.js";
import { parsePublicKey } from "../signing/binary-signature.js";
import { TableReader } from "../core/table-reader.js";
import { givenLimits } from "../play/limits.js";
import { readTomlFile } from "../core/toml-file.js";
import { ADAPT_MODES, SCHEDULES, type AdaptiveGains, type SpsaMathConfig } from "../types/spsa.js";
import type {
  BuildConfig,
  DatabaseConfig,
  EngineConfig,
  GainConfig,
  GamesConfig,
  MasterConfig,
  MoveLimit,
  ShipConfig,
  SpsaConfig,
  TuningConfig,
  WorkerConfig,
} from "../types/config.js";

/** Defaults that a worker without a config.toml uses too. */
export const DEFAULT_MARGIN_MS = 50;
export const DEFAULT_BATCH_SIZE = 8;
export const DEFAULT_BOOK_PLIES = 8;
export const DEFAULT_LEASE_SECONDS = 120;
export const DEFAULT_POLL_INTERVAL_MS = 1000;
/**
 * A worker's engine cache (src/engine-build/engine-cache.ts): a batch in flight uses 2 or 3
 * binaries, the reference engine of a run is used by all; 16 keeps those of several
 * iterations and a reference, and 1 GB bounds it for engines with large networks.
 */
const MB = 1024 * 1024;
export const DEFAULT_ENGINE_CACHE = { files: 16, bytes: 1024 * MB } as const;
/** SPSA games lost only to a busy machine are noise: replayed unless config.toml says otherwise. */
const DEFAULT_OUTSIDE_DELAY_POLICY = "replay";
export const DEFAULT_OUTSIDE_DELAY = outsideDelayPolicy(DEFAULT_OUTSIDE_DELAY_POLICY, DEFAULT_MAX_REPLAYS);

/**
 * Chosen with the simulator over the family of src/simulate/family.ts (docs/adaptive-gains.md):
 * a perturbation twice as wide as fishtest's usual 1.5 steps at the same step per Elo (a ∝ r·c²),
 * so the same drift with half the noise.
 */
export const DEFAULT_C_END = 3;
export const DEFAULT_R_END = 0.003;
/**
 * With `adapt = "off"` the default r_end gives the steps per Elo of the plain-SPSA defaults these
 * replaced (r 0.002 at c 1.5).
 */
export const DEFAULT_R_END_PLAIN = 0.0005;
/** Spall's decay exponents of a_k and c_k. */
export const DEFAULT_ALPHA = 0.602;
export const DEFAULT_GAMMA = 0.101;
/**
 * Build mode's bound on iterations in flight (docs/in-flight.md: its staleness costs less than the
 * idle slots it saves).
 */
export const DEFAULT_MAX_STALENESS = 6;
export const DEFAULT_ADAPTIVE: AdaptiveGains = {
  mode: "signal",
  window: 256,
  floor: 0.1667,
  pilot: 1,
  widen: 1,
  lift: 1.5,
};

/**
 * config.toml's [spsa] keys by the SpsaConfig field each sets, and those of the adaptive gains
 * by AdaptiveGains field: the one map of them, which loadConfig reads by and describeChanges
 * (src/config/iteration-settings.ts) names them by.
 */
export const SPSA_KEYS = {
  maxIterations: "max_iterations",
  cEnd: "c_end",
  rEnd: "r_end",
  a: "a",
  c: "c",
  A: "A",
  alpha: "alpha",
  gamma: "gamma",
  eloCap: "elo_cap",
  maxStep: "max_step",
  schedule: "schedule",
  momentum: "momentum",
  averageTail: "average_tail",
  maxStaleness: "max_staleness",
  reference: "reference",
} as const satisfies Record<Exclude<keyof SpsaConfig, "adaptive" | "gain">, string>;
export const ADAPT_KEYS = {
  mode: "adapt",
  window: "adapt_window",
  floor: "adapt_floor",
  pilot: "adapt_pilot",
  widen: "adapt_widen",
  lift: "adapt_lift",
} as const satisfies Record<keyof AdaptiveGains, string>;
export const GAIN_KEYS = {
  share: "gain_share",
  stopBelow: "stop_below",
  stopEarly: "stop_early",
} as const satisfies Record<keyof GainConfig, string>;
/**
 * The design's defaults (docs/gain-so-far.md, "The choice"): 10 % of the games, a stop when the
 * rest is projected within ±2 Elo, said in one line and not acted on unless asked.
 */
export const DEFAULT_GAIN: GainConfig = { share: 0.1, stopBelow: 2, stopEarly: false };
/** Above half the games, gain blocks would outnumber the tuner's. */
const MAX_GAIN_SHARE = 0.5;

const SHIP_LIMITS = ["tc", "timelow", "timehigh", "nodes", "depth"] as const;
const SHIP_KEYS = [
  ...SHIP_LIMITS,
  "elo0",
  "elo1",
  "alpha",
  "beta",
  "max_games",
  "elimination_games",
  "tail",
  "transfer_every",
  "transfer_games",
] as const;

/** Every key of config.toml, by section: loadConfig refuses any other, and messages name keys from here. */
export const CONFIG_KEYS = {
  time_control: ["timelow", "timehigh", "nodes", "depth", "reference_nps", "margin_ms", "outside_delay", "max_replays"],
  games: ["games_per_iteration", "batch_size", "book", "book_plies", "lease_seconds"],
  spsa: [...Object.values(SPSA_KEYS), ...Object.values(ADAPT_KEYS), ...Object.values(GAIN_KEYS)],
  build: ["engine_dir", "constants_file", "output_dir", "cargo_args", "binary_name", "builds_at_once"],
  engine: ["mode", "binary"],
  database: ["url", "poll_interval"],
  master: ["signing_key"],
  worker: ["trusted_keys", "engine_cache_files", "engine_cache_mb"],
  ship: SHIP_KEYS,
} as const;
type Section = keyof typeof CONFIG_KEYS;
type EngineMode = EngineConfig["mode"];

/** "[games] games_per_iteration": a key as a message names it, checked against CONFIG_KEYS. */
export function configKey<S extends Section>(section: S, key: (typeof CONFIG_KEYS)[S][number]): string {
  return `[${section}] ${key}`;
}

/** `[ship]`'s defaults: fishtest's usual bounds for a gainer, and a cap that keeps a stuck test finite. */
export const DEFAULT_SHIP = {
  elo0: 0,
  elo1: 5,
  alpha: 0.05,
  beta: 0.05,
  maxGames: 20_000,
  eliminationGames: 0,
  tail: 0.5,
  transferEvery: 0,
} as const;

/** Loads and validates config.toml. Relative paths are resolved against the file's folder. */
export function loadConfig(file: string): TuningConfig {
  const doc = readTomlFile(file);
  new TableReader(doc, undefined, doc.data, Object.keys(CONFIG_KEYS)); // rejects unknown sections
  const base = dirname(resolve(file));
  const section = (name: Section) => new TableReader(doc, name, doc.data[name], CONFIG_KEYS[name]);
  const timeControl = readTimeControl(section("time_control"));
  const gamesSection = section("games");
  const games = readGames(gamesSection, base);
  const engine = readEngine(section("engine"), base);
  const spsa = readSpsa(section("spsa"), base, engine.mode);
  if (spsa.reference !== undefined) requireUnitsOfFour(gamesSection, games);
  return {
    file: resolve(file),
    ...timeControl,
    games,
    spsa,
    build: readBuild(section("build"), base),
    engine,
    database: readDatabase(section("database")),
    master: readMaster(section("master"), base),
    worker: readWorker(section("worker")),
    ship: readShip(section("ship"), spsa.averageTail, engine.mode, games.gamesPerIteration),
  };
}

/** `[time_control]`: a time per move in [timelow, timehigh] or a fixed search, and what a loss on time costs. */
function readTimeControl(tc: TableReader): Pick<TuningConfig, "timeControl" | "outsideDelay"> {
  const timelow = tc.number("timelow", { default: 0.05, above: 0 });
  const timehigh = tc.number("timehigh", { default: 0.2, above: 0 });
  if (timehigh < timelow) tc.fail("timehigh", `must be >= timelow (${timelow}), got ${timehigh}`);
  const moveLimit = readMoveLimit(tc);
  const referenceNps = tc.optionalNumber("reference_nps", { above: 0 });
  if (moveLimit !== undefined) {
    const limitKey = "nodes" in moveLimit ? "nodes" : "depth";
    // A limit that is silently not used would tune at another strength than the user thinks.
    for (const key of ["timelow", "timehigh", "reference_nps"]) {
      if (tc.has(key))
        tc.fail(
          key,
          `applies only to timed games; remove it, or remove ${limitKey} (games are played at ` +
            `${limitKey} = ${Object.values(moveLimit)[0]})`,
        );
    }
  }
  return {
    timeControl: {
      timelowMs: Math.round(timelow * 1000),
      timehighMs: Math.round(timehigh * 1000),
      moveLimit,
      referenceNps,
      marginMs: tc.number("margin_ms", { default: DEFAULT_MARGIN_MS, min: 0 }),
    },
    outsideDelay: outsideDelayPolicy(
      tc.oneOf("outside_delay", OUTSIDE_DELAY_POLICIES, DEFAULT_OUTSIDE_DELAY_POLICY),
      tc.number("max_replays", { default: DEFAULT_MAX_REPLAYS, integer: true, min: 0 }),
    ),
  };
}

/** `[time_control] nodes` or `depth`, at most one of them. */
function readMoveLimit(tc: TableReader): MoveLimit | undefined {
  const nodes = tc.optionalNumber("nodes", { integer: true, min: 1 });
  const depth = tc.optionalNumber("depth", { integer: true, min: 1 });
  if (nodes !== undefined && depth !== undefined) tc.fail("depth", "set either nodes or depth, not both");
  if (nodes !== undefined) return { nodes };
  return depth === undefined ? undefined : { depth };
}

/** `[games]`: how many games an iteration and a claim are, where they open, and the claims' lease. */
function readGames(games: TableReader, base: string): GamesConfig {
  return {
    gamesPerIteration: gameCount(games, "games_per_iteration", { default: 64, min: 2 }),
    batchSize: gameCount(games, "batch_size", { default: DEFAULT_BATCH_SIZE, min: 2 }),
    book: readBook(games, base),
    bookPlies: games.number("book_plies", { default: DEFAULT_BOOK_PLIES, integer: true, min: 0 }),
    leaseSeconds: games.number("lease_seconds", { default: DEFAULT_LEASE_SECONDS, above: 0 }),
  };
}

/** A number of games: an integer by `rule`, and even (games are played in pairs). */
function gameCount(table: TableReader, key: string, rule: { default: number; min: number }): number {
  const games = table.number(key, { ...rule, integer: true });
  if (games % 2 !== 0) table.fail(key, `must be even (games are played in pairs), got ${games}`);
  return games;
}

/** `[games] book`: a file (relative to config.toml), else a shipped book's name (`book = "openings"`). */
function readBook(games: TableReader, base: string): string | undefined {
  const setting = games.optionalString("book");
  if (setting === undefined) return undefined;
  const path = resolve(base, setting);
  const book = existsSync(path) ? path : (shippedBook(setting) ?? path);
  if (!existsSync(book)) games.fail("book", `file not found: ${book}`);
  return book;
}

/** With `[spsa] reference`, each opening is a unit of four games: θ+ and θ− each a pair against the reference. */
function requireUnitsOfFour(gamesSection: TableReader, games: GamesConfig): void {
  for (const [key, value] of [
    ["games_per_iteration", games.gamesPerIteration],
    ["batch_size", games.batchSize],
  ] as const) {
    if (value % 4 !== 0)
      gamesSection.fail(
        key,
        `must be a multiple of 4 with [spsa] reference (θ+ and θ− each play a game pair against the ` +
          `reference on every opening), got ${value}`,
      );
  }
}

/** `[engine]`: build mode, or options mode and the binary it plays. */
function readEngine(engine: TableReader, base: string): EngineConfig {
  const setting = engine.optionalString("binary");
  const binary = setting === undefined ? undefined : resolve(base, setting);
  if (binary !== undefined && !existsSync(binary)) engine.fail("binary", `file not found: ${binary}`);
  const mode = engine.oneOf("mode", ["build", "options"] as const, "build");
  if (binary !== undefined && mode === "build")
    engine.fail("binary", 'applies only with mode = "options" (the build mode builds its engines from [build])');
  return { mode, binary };
}

/** `[spsa]`: the gains, their adaptation, build mode's alternatives to plain SPSA and the reference engine. */
function readSpsa(spsa: TableReader, base: string, engineMode: EngineMode): SpsaConfig {
  const { a, c } = readGainsByHand(spsa);
  const alternatives = readBuildModeSteps(spsa, engineMode);
  const adaptive = readAdaptive(spsa);
  const reference = readReference(spsa, base);
  if (reference !== undefined && engineMode === "options")
    spsa.fail(
      SPSA_KEYS.reference,
      'applies only with [engine] mode = "build" (UCI-option mode applies each batch on its own; ' +
        "see docs/reference-mode.md)",
    );
  return {
    maxIterations: spsa.number(SPSA_KEYS.maxIterations, { default: 100, integer: true, min: 1 }),
    cEnd: spsa.number(SPSA_KEYS.cEnd, { default: DEFAULT_C_END, above: 0 }),
    rEnd: spsa.number(SPSA_KEYS.rEnd, {
      default: adaptive.mode === "off" ? DEFAULT_R_END_PLAIN : DEFAULT_R_END,
      above: 0,
    }),
    a,
    c,
    A: spsa.optionalNumber(SPSA_KEYS.A, { min: 0 }),
    alpha: spsa.number(SPSA_KEYS.alpha, { default: DEFAULT_ALPHA, above: 0, max: 1 }),
    gamma: spsa.number(SPSA_KEYS.gamma, { default: DEFAULT_GAMMA, min: 0, max: 1 }),
    eloCap: spsa.number(SPSA_KEYS.eloCap, { default: DEFAULT_ELO_CAP, above: 0 }),
    maxStep: spsa.number(SPSA_KEYS.maxStep, { default: DEFAULT_MAX_STEP, above: 0 }),
    ...alternatives,
    adaptive,
    gain: readGain(spsa),
    ...(reference !== undefined && { reference }),
  };
}

/** `[spsa] a` and `c`: both or neither, and then instead of c_end and r_end. */
function readGainsByHand(spsa: TableReader): Pick<SpsaConfig, "a" | "c"> {
  const a = spsa.optionalNumber(SPSA_KEYS.a, { above: 0 });
  const c = spsa.optionalNumber(SPSA_KEYS.c, { above: 0 });
  if ((a === undefined) !== (c === undefined))
    spsa.fail(
      a === undefined ? SPSA_KEYS.c : SPSA_KEYS.a,
      "set both a and c, or neither (then c_end and r_end give them)",
    );
  if (a !== undefined && (spsa.has(SPSA_KEYS.cEnd) || spsa.has(SPSA_KEYS.rEnd)))
    spsa.fail(
      spsa.has(SPSA_KEYS.cEnd) ? SPSA_KEYS.cEnd : SPSA_KEYS.rEnd,
      "set either a and c, or c_end and r_end, not both",
    );
  return { a, c };
}

/**
 * `[spsa]`'s alternatives to plain SPSA and build mode's iterations in flight. Options mode
 * applies each batch as it arrives, with no iterations whose θ these read back.
 */
function readBuildModeSteps(
  spsa: TableReader,
  engineMode: EngineMode,
): Pick<SpsaConfig, "schedule" | "momentum" | "averageTail" | "maxStaleness"> {
  const momentum = spsa.number(SPSA_KEYS.momentum, { default: 0, min: 0 });
  if (momentum >= 1) spsa.fail(SPSA_KEYS.momentum, `must be < 1 (at 1 a move is never forgotten), got ${momentum}`);
  const schedule = spsa.oneOf(SPSA_KEYS.schedule, SCHEDULES, "standard");
  const averageTail = spsa.number(SPSA_KEYS.averageTail, { default: 0, min: 0, max: 1 });
  if (engineMode === "options") {
    if (schedule !== "standard") spsa.fail(SPSA_KEYS.schedule, 'applies only with [engine] mode = "build"');
    if (momentum > 0) spsa.fail(SPSA_KEYS.momentum, 'applies only with [engine] mode = "build"');
    if (averageTail > 0) spsa.fail(SPSA_KEYS.averageTail, 'applies only with [engine] mode = "build"');
    if (spsa.has(SPSA_KEYS.maxStaleness))
      spsa.fail(
        SPSA_KEYS.maxStaleness,
        'applies only with [engine] mode = "build" (UCI-option mode applies each batch as it ' +
          "arrives, with no iterations to open ahead)",
      );
  }
  const maxStaleness = spsa.number(SPSA_KEYS.maxStaleness, { default: DEFAULT_MAX_STALENESS, integer: true, min: 0 });
  return { schedule, momentum, averageTail, maxStaleness };
}

/** `[spsa] adapt` and its window, floor and pilot: the adaptive gains. */
function readAdaptive(spsa: TableReader): AdaptiveGains {
  return {
    mode: spsa.oneOf(ADAPT_KEYS.mode, ADAPT_MODES, DEFAULT_ADAPTIVE.mode),
    window: spsa.number(ADAPT_KEYS.window, { default: DEFAULT_ADAPTIVE.window, integer: true, min: 1 }),
    floor: spsa.number(ADAPT_KEYS.floor, { default: DEFAULT_ADAPTIVE.floor, above: 0, max: 1 }),
    pilot: spsa.number(ADAPT_KEYS.pilot, { default: DEFAULT_ADAPTIVE.pilot ?? 0, integer: true, min: 0 }),
    widen: spsa.number(ADAPT_KEYS.widen, { default: DEFAULT_ADAPTIVE.widen ?? 0, min: 0, max: 1 }),
    lift: spsa.number(ADAPT_KEYS.lift, { default: DEFAULT_ADAPTIVE.lift ?? 0, min: 0, max: 2 }),
  };
}

/** `[spsa] gain_share`, `stop_below` and `stop_early`: the Elo gained so far and the stop rule. */
function readGain(spsa: TableReader): GainConfig {
  return {
    share: spsa.number(GAIN_KEYS.share, { default: DEFAULT_GAIN.share, min: 0, max: MAX_GAIN_SHARE }),
    stopBelow: spsa.number(GAIN_KEYS.stopBelow, { default: DEFAULT_GAIN.stopBelow, above: 0 }),
    stopEarly: spsa.boolean(GAIN_KEYS.stopEarly, DEFAULT_GAIN.stopEarly),
  };
}

/** `[spsa] reference`: "start", or an engine binary (relative to config.toml) that exists and may be run. */
function readReference(spsa: TableReader, base: string): string | undefined {
  const setting = spsa.optionalString(SPSA_KEYS.reference);
  if (setting === undefined || setting === "start") return setting;
  const path = resolve(base, setting);
  if (!existsSync(path))
    spsa.fail(
      SPSA_KEYS.reference,
      `file not found: ${path} (write "start" for θ₀ built when the run starts, or an engine binary's path)`,
    );
  if (!statSync(path).isFile()) spsa.fail(SPSA_KEYS.reference, `is not a file: ${path}`);
  try {
    accessSync(path, constants.X_OK);
  } catch {
    spsa.fail(SPSA_KEYS.reference, `is not executable: ${path}`);
  }
  return path;
}

/** `[build]`: the engine's crate, its constants file, and how its plus and minus engines are built. */
function readBuild(build: TableReader, base: string): BuildConfig {
  return {
    engineDir: resolve(base, build.string("engine_dir", "engines/minnow")),
    constantsFile: build.string("constants_file", "src/engine_constants.rs"),
    outputDir: resolve(base, build.string("output_dir", "engines/builds")),
    cargoArgs: build.stringArray("cargo_args", ["build", "--release"]),
    binaryName: build.optionalString("binary_name"),
    buildsAtOnce: build.numberOr("builds_at_once", "auto", { integer: true, min: 1 }),
  };
}

/** `[database]`: its URL (empty: the embedded server) and how often the master looks at the progress. */
function readDatabase(database: TableReader): DatabaseConfig {
  const url = database.optionalString("url");
  return {
    url: url === "" ? undefined : url,
    pollIntervalMs: Math.round(
      database.number("poll_interval", { default: DEFAULT_POLL_INTERVAL_MS / 1000, above: 0 }) * 1000,
    ),
  };
}

/** `[master]`: the key that signs its binaries. */
function readMaster(master: TableReader, base: string): MasterConfig {
  const signingKey = master.optionalString("signing_key");
  return { signingKey: signingKey === undefined ? undefined : resolve(base, signingKey) };
}

/** `[worker]`: the masters whose binaries it runs, and its engine cache. */
function readWorker(worker: TableReader): WorkerConfig {
  const trustedKeys = worker.stringArray("trusted_keys", []);
  // Checked here, so a mistyped key fails at start naming the file and line.
  trustedKeys.forEach((key) => parsePublicKey(key, worker.where("trusted_keys")));
  return {
    trustedKeys,
    engineCache: {
      files: worker.number("engine_cache_files", { default: DEFAULT_ENGINE_CACHE.files, integer: true, min: 1 }),
      bytes: worker.number("engine_cache_mb", { default: DEFAULT_ENGINE_CACHE.bytes / MB, above: 0 }) * MB,
    },
  };
}

/**
 * `[ship]`: off unless it sets a limit (an empty or absent section); any other key without a
 * limit is refused, since a check the user configured would otherwise silently not run.
 */
function readShip(
  ship: TableReader,
  averageTail: number,
  engineMode: EngineMode,
  gamesPerIteration: number,
): ShipConfig | undefined {
  const limits = readShipLimits(ship);
  if (limits === undefined) return undefined;
  // UCI-option mode has no iterations: its one candidate is the final θ, played against the start θ.
  if (engineMode === "options")
    for (const key of ["elimination_games", "tail", "transfer_every", "transfer_games"])
      if (ship.has(key))
        ship.fail(
          key,
          'applies only with [engine] mode = "build" (a UCI-option run has no iterations: its ship check ' +
            "tests the final θ against the start θ)",
        );
  const elo0 = ship.number("elo0", { default: DEFAULT_SHIP.elo0 });
  const elo1 = ship.number("elo1", { default: DEFAULT_SHIP.elo1 });
  if (elo1 <= elo0) ship.fail("elo1", `must be > elo0 (${elo0}), got ${elo1}`);
  const alpha = ship.number("alpha", { default: DEFAULT_SHIP.alpha, above: 0 });
  if (alpha >= 1) ship.fail("alpha", `must be < 1, got ${alpha}`);
  const beta = ship.number("beta", { default: DEFAULT_SHIP.beta, above: 0 });
  if (beta >= 1) ship.fail("beta", `must be < 1, got ${beta}`);
  return {
    limits,
    sprt: { elo0, elo1, alpha, beta },
    maxGames: gameCount(ship, "max_games", { default: DEFAULT_SHIP.maxGames, min: 2 }),
    eliminationGames: gameCount(ship, "elimination_games", { default: DEFAULT_SHIP.eliminationGames, min: 0 }),
    tail: ship.number("tail", { default: averageTail > 0 ? averageTail : DEFAULT_SHIP.tail, above: 0, max: 1 }),
    transfer: readTransfer(ship, gamesPerIteration),
  };
}

/** `[ship]`'s limit: the one the engine ships with, which the ship check builds each candidate θ to play at. */
function readShipLimits(ship: TableReader): ShipConfig["limits"] | undefined {
  const limits = givenLimits(
    {
      tc: ship.optionalString("tc"),
      timelow: ship.optionalNumber("timelow"),
      timehigh: ship.optionalNumber("timehigh"),
      nodes: ship.optionalNumber("nodes"),
      depth: ship.optionalNumber("depth"),
    },
    { tc: "tc", timelow: "timelow", timehigh: "timehigh", nodes: "nodes", depth: "depth" },
    (keys, detail) => ship.fail(keys.at(-1)?.split("/")[0] ?? "tc", detail),
  );
  if (limits === undefined) {
    const set = SHIP_KEYS.find((key) => ship.has(key));
    if (set !== undefined)
      ship.fail(
        set,
        "needs the limit the engine ships with: set tc, nodes, depth or timelow/timehigh in [ship] " +
          "(or remove the section)",
      );
    return undefined;
  }
  return limits;
}

/** `[ship] transfer_every` and `transfer_games`: transfer in the run, every Nth iteration also at the ship limits. */
function readTransfer(ship: TableReader, gamesPerIteration: number): ShipConfig["transfer"] {
  const every = ship.number("transfer_every", { default: DEFAULT_SHIP.transferEvery, integer: true, min: 0 });
  const games = gameCount(ship, "transfer_games", { default: gamesPerIteration, min: 2 });
  if (every === 0 && ship.has("transfer_games"))
    ship.fail(
      "transfer_games",
      "applies only with transfer_every > 0 (every how many iterations to play at the ship limits too)",
    );
  return { every, games };
}

/** The gains of the SPSA math: a and c as set, or derived from c_end and r_end for this run's length. */
export function spsaMathConfig(spsa: Omit<SpsaConfig, "gain">, gamesPerIteration: number): SpsaMathConfig {
  const A = spsa.A ?? defaultA(spsa.maxIterations);
  const { a, c } =
    spsa.a !== undefined && spsa.c !== undefined
      ? { a: spsa.a, c: spsa.c }
      : deriveFromEnd({
          cEnd: spsa.cEnd,
          rEnd: spsa.rEnd,
          N: spsa.maxIterations,
          A,
          alpha: spsa.alpha,
          gamma: spsa.gamma,
          gamesPerIteration,
        });
  const { alpha, gamma, maxIterations, eloCap, maxStep, schedule, momentum, adaptive } = spsa;
  return { a, c, A, alpha, gamma, maxIterations, eloCap, maxStep, schedule, momentum, adaptive };
}
