import { sql } from "drizzle-orm";
import {
  type AnyPgColumn,
  bigint,
  bigserial,
  boolean,
  check,
  customType,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  serial,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import type { EngineRole } from "../types/engines.js";
import type { IterationSettings } from "../types/config.js";
import type { SprtBounds, PlayLimits } from "../types/play.js";
import type { Values } from "../types/spsa.js";
import type { WorkerDecisionKind, WorkerEvidence } from "../types/evidence.js";

// Column names stay snake_case so that psql users read them directly. `$type` only narrows the
// TypeScript type of a column (its status values, its JSON's shape): rows typed from these
// tables (`$inferSelect`) match what the code writes.

const bytea = customType<{ data: Buffer }>({ dataType: () => "bytea" });
/** '0' and '1' characters as Postgres reads and writes them: a sign per parameter, an eighth of a byte each. */
const varbit = customType<{ data: string }>({ dataType: () => "bit varying" });

const counter = (name: string) => integer(name).notNull().default(0);
const createdAt = () => timestamp("created_at", { withTimezone: true }).notNull().defaultNow();

/**
 * `a + b + …` and `a is not null and b is not null and …` in a check constraint: the text it
 * had when written out by hand (drizzle-kit compares the text of checks: a new spelling is a
 * new migration).
 */
const summed = (...columns: AnyPgColumn[]) => sql.join(columns, sql` + `);
const allNotNull = (...columns: AnyPgColumn[]) =>
  sql.join(
    columns.map((column) => sql`${column} is not null`),
    sql` and `,
  );

/** One tuning session. */
export const spsaRun = pgTable(
  "spsa_run",
  {
    id: serial("id").primaryKey(),
    name: text("name").notNull().unique(),
    status: text("status").$type<"active" | "complete" | "stopped">().notNull().default("active"),
    /** Seeds every random draw, so an interrupted run replays the same perturbations. */
    seed: text("seed").notNull(),
    /**
     * Random and unique to this run in every database: signatures of the run's binaries and
     * option settings name it (src/signing), so they cannot be replayed into another database.
     */
    uid: uuid("uid").notNull().defaultRandom(),
    config: jsonb("config").$type<Record<string, unknown>>().notNull(),
    initialParameters: jsonb("initial_parameters").$type<Values>().notNull(),
    /** θ after the last completed iteration; written in the same transaction that completes it. */
    currentParameters: jsonb("current_parameters").$type<Values>().notNull(),
    createdAt: createdAt(),
    completedAt: timestamp("completed_at", { withTimezone: true }),
    /**
     * Reference mode (docs/reference-mode.md): `[spsa] reference` as the run was started with it,
     * "start" or the engine's path; null: plus against minus. The engine itself (where the master
     * put it, and its sha256 in spsa_binary) is recorded once it is built or taken, for the whole
     * run: a resumed run with another reference is refused.
     */
    reference: text("reference"),
    referencePath: text("reference_path"),
    referenceSha256: text("reference_sha256"),
    /**
     * The master's signature of the reference's sha256 for this run's uid: a master resumes only
     * with a reference it recorded itself.
     */
    referenceSignature: text("reference_signature"),
    /**
     * The master process that has the run's lease (one per run, src/master/run-lease.ts): its random
     * session id, host and pid, since when, its last heartbeat and when its lease lapses without another
     * (a second master takes over a lease that lapsed, or one of a master on its own host whose pid is
     * gone). All null while no master runs it.
     */
    masterSession: text("master_session"),
    masterHost: text("master_host"),
    masterPid: integer("master_pid"),
    masterSince: timestamp("master_since", { withTimezone: true }),
    masterSeenAt: timestamp("master_seen_at", { withTimezone: true }),
    masterExpiresAt: timestamp("master_expires_at", { withTimezone: true }),
    /**
     * Build mode: the last iteration of a run the stop rule ended early (`[spsa] stop_early`,
     * docs/gain-so-far.md), recorded when the master decides, so that a restarted master ends it
     * there too; null while it is not ended early. (UCI-option mode cuts its carrier's target.)
     */
    endedEarlyAt: integer("ended_early_at"),
  },
  (t) => [
    check("spsa_run_status", sql`${t.status} in ('active', 'complete', 'stopped')`),
    check(
      "spsa_run_reference",
      sql`${t.referenceSha256} is null or (${t.reference} is not null and ${t.referencePath} is not null)`,
    ),
  ],
);

/** One SPSA iteration: the seed's columns, plus run, claims, binaries' hashes, pairs and faults. */
export const spsaIteration = pgTable(
  "spsa_iteration",
  {
    id: serial("id").primaryKey(),
    runId: integer("run_id")
      .notNull()
      .references(() => spsaRun.id),
    iterationNumber: integer("iteration_number").notNull(),
    plusEnginePath: text("plus_engine_path").notNull(),
    minusEnginePath: text("minus_engine_path").notNull(),
    plusEngineSha256: text("plus_engine_sha256").notNull(),
    minusEngineSha256: text("minus_engine_sha256").notNull(),
    // The master's Ed25519 signatures of the binaries for this run, iteration and side
    // (src/signing); workers run nothing without one. Null in rows of older versions.
    plusEngineSignature: text("plus_engine_signature"),
    minusEngineSignature: text("minus_engine_signature"),
    timelowMs: integer("timelow_ms").notNull(),
    timehighMs: integer("timehigh_ms").notNull(),
    targetGames: integer("target_games").notNull().default(150),
    gamesClaimed: counter("games_claimed"),
    gamesPlayed: counter("games_played"),
    plusWins: counter("plus_wins"),
    minusWins: counter("minus_wins"),
    draws: counter("draws"),
    // Pentanomial pair counts from the plus engine's side: LL, LD+DL, LW+DD+WL, DW+WD, WW.
    pairsLl: counter("pairs_ll"),
    pairsLd: counter("pairs_ld"),
    pairsDd: counter("pairs_dd"),
    pairsDw: counter("pairs_dw"),
    pairsWw: counter("pairs_ww"),
    // Engine faults, so a broken build is visible instead of quietly tuning on forfeits.
    plusCrashes: counter("plus_crashes"),
    minusCrashes: counter("minus_crashes"),
    plusTimeLosses: counter("plus_time_losses"),
    minusTimeLosses: counter("minus_time_losses"),
    plusIllegalMoves: counter("plus_illegal_moves"),
    minusIllegalMoves: counter("minus_illegal_moves"),
    // Time losses to a delay outside the engine (a busy machine) are no engine fault: counted
    // apart, and in SPSA replayed (replays) up to a bound per pair (replay_limit_pairs ran out).
    plusDelayLosses: counter("plus_delay_losses"),
    minusDelayLosses: counter("minus_delay_losses"),
    replays: counter("replays"),
    replayLimitPairs: counter("replay_limit_pairs"),
    /** Batches whose worker refused a binary as unsigned or not signed by a key it trusts. */
    binariesRefused: counter("binaries_refused"),
    // Reference mode: the run's reference engine, signed for this iteration like plus and minus;
    // null: plus against minus. Its games are θ+'s and θ−'s against it, each side's wins, draws
    // and losses from its own side; plus_wins, minus_wins and draws are then 0.
    referenceEnginePath: text("reference_engine_path"),
    referenceEngineSha256: text("reference_engine_sha256"),
    referenceEngineSignature: text("reference_engine_signature"),
    refPlusWins: counter("ref_plus_wins"),
    refPlusDraws: counter("ref_plus_draws"),
    refPlusLosses: counter("ref_plus_losses"),
    refMinusWins: counter("ref_minus_wins"),
    refMinusDraws: counter("ref_minus_draws"),
    refMinusLosses: counter("ref_minus_losses"),
    // The reference engine's own faults (plus_* and minus_* are θ+'s and θ−'s).
    referenceCrashes: counter("reference_crashes"),
    referenceTimeLosses: counter("reference_time_losses"),
    referenceIllegalMoves: counter("reference_illegal_moves"),
    referenceDelayLosses: counter("reference_delay_losses"),
    status: text("status").$type<"pending" | "in_progress" | "complete">().notNull().default("pending"),
    ck: doublePrecision("c_k"),
    ak: doublePrecision("a_k"),
    baseParameters: jsonb("base_parameters").$type<Values>(),
    /**
     * θ after this iteration's step, written as it completes: with iterations in flight the next
     * iteration's base may be older (docs/in-flight.md), so the history reads this.
     */
    thetaAfter: jsonb("theta_after").$type<Values>(),
    plusParameters: jsonb("plus_parameters").$type<Values>(),
    minusParameters: jsonb("minus_parameters").$type<Values>(),
    /**
     * A verification of a UCI-option run (docs/uci-options.md#verifying): plus and minus are the
     * run's one binary, set up from that run's parameter list (spsa_option_run of this run) with
     * plus_parameters and minus_parameters; options_signature is the master's signature of that
     * list for this iteration's run (src/signing/options-signature.ts). Null otherwise.
     */
    optionsRunId: integer("options_run_id").references((): AnyPgColumn => spsaRun.id),
    optionsSignature: text("options_signature"),
    perturbationSigns: jsonb("perturbation_signs").$type<Values>(),
    /** The config and parameter settings the iteration was played with; its update uses these. */
    settings: jsonb("settings").$type<IterationSettings>(),
    gradientEstimate: jsonb("gradient_estimate").$type<Values>(),
    eloDiff: doublePrecision("elo_diff"),
    createdAt: createdAt(),
    completedAt: timestamp("completed_at", { withTimezone: true }),
  },
  (t) => {
    // θ+'s and θ−'s games against the reference engine, as its columns add up.
    const refPlus = summed(t.refPlusWins, t.refPlusDraws, t.refPlusLosses);
    const refMinus = summed(t.refMinusWins, t.refMinusDraws, t.refMinusLosses);
    return [
      uniqueIndex("spsa_iteration_run_number").on(t.runId, t.iterationNumber),
      index("spsa_iteration_open")
        .on(t.status)
        .where(sql`${t.status} <> 'complete'`),
      check("spsa_iteration_status", sql`${t.status} in ('pending', 'in_progress', 'complete')`),
      check(
        "spsa_iteration_claims",
        sql`${t.gamesClaimed} <= ${t.targetGames} and ${t.gamesPlayed} <= ${t.gamesClaimed}`,
      ),
      check(
        "spsa_iteration_results",
        sql`${summed(t.plusWins, t.minusWins, t.draws)} + ${refPlus} + ${refMinus} = ${t.gamesPlayed}`,
      ),
      // Every unit of four games is two of θ+'s and two of θ−'s.
      check("spsa_iteration_reference_sides", sql`${refPlus} = ${refMinus}`),
      // A reference-mode iteration plays no plus-vs-minus game. Games against a reference in another
      // iteration are a UCI-option run's curvature pilot (spsa_report_batch takes them only for a batch
      // whose draw names θ₀); a build-mode iteration gets none.
      check(
        "spsa_iteration_one_kind",
        sql`${t.referenceEngineSha256} is null or ${t.plusWins} + ${t.minusWins} + ${t.draws} = 0`,
      ),
    ];
  },
);

/**
 * A batch of games: made `open` with its iteration (the iteration's games, planned by
 * src/spsa/batch-plan.ts), then claimed by one worker under a lease, and done or expired
 * (an expired batch's games come back as a new open row, so a late report is refused).
 * The iteration's counters are folded from the done rows by its master (docs/scaling-out.md).
 */
export const spsaBatch = pgTable(
  "spsa_batch",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    iterationId: integer("iteration_id")
      .notNull()
      .references(() => spsaIteration.id),
    /** Null while open. */
    workerName: text("worker_name"),
    games: integer("games").notNull(),
    /**
     * The games planned before this batch in its iteration: a UCI-option draw's place in the gain
     * schedule. Null in rows of older versions.
     */
    gamesBefore: integer("games_before"),
    status: text("status").$type<"open" | "claimed" | "done" | "expired">().notNull().default("open"),
    claimedAt: timestamp("claimed_at", { withTimezone: true }),
    leaseExpiresAt: timestamp("lease_expires_at", { withTimezone: true }),
    reportedAt: timestamp("reported_at", { withTimezone: true }),
    plusWins: integer("plus_wins"),
    minusWins: integer("minus_wins"),
    draws: integer("draws"),
    /** Pentanomial counts [LL, LD, DD, DW, WW] and fault counts, as reported. */
    pairs: jsonb("pairs"),
    faults: jsonb("faults"),
    replays: integer("replays"),
    replayLimitPairs: integer("replay_limit_pairs"),
    /**
     * Reference mode, as reported: θ+'s and θ−'s wins, draws and losses against the reference
     * (null: plus against minus).
     */
    refPlusWins: integer("ref_plus_wins"),
    refPlusDraws: integer("ref_plus_draws"),
    refPlusLosses: integer("ref_plus_losses"),
    refMinusWins: integer("ref_minus_wins"),
    refMinusDraws: integer("ref_minus_draws"),
    refMinusLosses: integer("ref_minus_losses"),
    /** Expired because its worker refused the binaries (the iteration's binaries_refused counts these). */
    refused: boolean("refused").notNull().default(false),
    /**
     * When its worker gave it back unplayed: refused it, released it, or its name was taken over.
     * spsa_claim_batch limits a worker machine's give-backs per minute by it.
     */
    givenBackAt: timestamp("given_back_at", { withTimezone: true }),
    /**
     * Taken by the master's fold, in the transaction that takes it, so no batch is counted twice:
     * in its iteration's counters (a done or refused batch; in UCI-option mode also applied to θ),
     * or set aside (held_at, undo_id) and in neither.
     */
    folded: boolean("folded").notNull().default(false),
    /**
     * Set aside by the master (docs/bad-workers.md): reported by a worker under suspicion or
     * rejected in its run, so never in θ or its iteration's counters; its games were given out
     * again. Its results stay, as evidence.
     */
    heldAt: timestamp("held_at", { withTimezone: true }),
    /** Taken out of θ and its iteration's counters by `spsa undo` (the spsa_undo row that did). */
    undoId: integer("undo_id").references(() => spsaUndo.id),
  },
  (t) => [
    // The master's fold reads only the batches not in the counters yet, in report order.
    index("spsa_batch_unfolded")
      .on(t.iterationId, t.reportedAt, t.id)
      .where(sql`not ${t.folded} and (${t.status} = 'done' or ${t.refused})`),
    // Every claim first returns the batches whose lease ran out: only claimed rows are read.
    index("spsa_batch_leases")
      .on(t.leaseExpiresAt)
      .where(sql`${t.status} = 'claimed'`),
    // A claim counts the batches its worker holds already (the cap of spsa_claim_batch).
    index("spsa_batch_claimed_by")
      .on(t.workerName)
      .where(sql`${t.status} = 'claimed'`),
    // A claim counts the batches its worker machine gave back unplayed in the last minute.
    index("spsa_batch_given_back")
      .on(t.workerName, t.givenBackAt)
      .where(sql`${t.givenBackAt} is not null`),
    // Claims take the oldest open row of the oldest iteration.
    index("spsa_batch_open")
      .on(t.iterationId, t.id)
      .where(sql`${t.status} = 'open'`),
    // Games per minute (spsa status, the dashboard) read only the batches of the last minutes.
    index("spsa_batch_reported")
      .on(t.reportedAt)
      .where(sql`${t.status} = 'done'`),
    // The batches set aside (held or undone), counted per worker by spsa status.
    index("spsa_batch_set_aside")
      .on(t.iterationId)
      .where(sql`${t.heldAt} is not null or ${t.undoId} is not null`),
    check("spsa_batch_status", sql`${t.status} in ('open', 'claimed', 'done', 'expired')`),
    check("spsa_batch_games", sql`${t.games} > 0`),
    check(
      "spsa_batch_claimed",
      sql`${t.status} = 'open' or (${allNotNull(t.workerName, t.claimedAt, t.leaseExpiresAt)})`,
    ),
  ],
);

export const spsaWorker = pgTable("spsa_worker", {
  id: serial("id").primaryKey(),
  name: text("name").notNull().unique(),
  host: text("host").notNull(),
  // The process holding the name (random per process): a worker restarted under the name
  // tells a dead holder (kill -9) from a live one by these and last_seen_at.
  pid: integer("pid"),
  sessionId: text("session_id"),
  concurrency: integer("concurrency").notNull().default(1),
  startedAt: timestamp("started_at", { withTimezone: true }).notNull().defaultNow(),
  lastSeenAt: timestamp("last_seen_at", { withTimezone: true }).notNull().defaultNow(),
  gamesPlayed: bigint("games_played", { mode: "number" }).notNull().default(0),
  /** Games scored as lost to a delay outside the engine, and games replayed for one. */
  delayLosses: bigint("delay_losses", { mode: "number" }).notNull().default(0),
  replays: bigint("replays", { mode: "number" }).notNull().default(0),
  /**
   * How the default `concurrency` was chosen at start, or why it was lowered under outside delays;
   * null when -c gave it.
   */
  concurrencyNote: text("concurrency_note"),
  /**
   * `[time_control] reference_nps`: the engine's speed this process measured (nodes per
   * second, one engine alone) and the factor its times per move are multiplied by; null
   * until it measured (runs without reference_nps never do).
   */
  measuredNps: doublePrecision("measured_nps"),
  timeFactor: doublePrecision("time_factor"),
  /**
   * The database login role that registered the name: only that role's sessions claim,
   * heartbeat and report under it (docs/worker-role.md), so one worker machine's role
   * cannot touch another's rows or batches.
   */
  loginRole: text("login_role")
    .notNull()
    .default(sql`session_user`),
});

/**
 * Engine binaries by sha256, so a worker on another machine needs only the database URL. The
 * bytes are kept only while something can still run them (src/engine-build/retention.ts): then
 * `content` becomes null and `pruned_at` says when; the row keeps the sha256 and size (the
 * signatures are on the iterations naming it), and a build of the same bytes stores them again.
 */
export const spsaBinary = pgTable(
  "spsa_binary",
  {
    sha256: text("sha256").primaryKey(),
    size: integer("size").notNull(),
    content: bytea("content"),
    createdAt: createdAt(),
    prunedAt: timestamp("pruned_at", { withTimezone: true }),
  },
  (t) => [check("spsa_binary_pruned", sql`(${t.content} is null) = (${t.prunedAt} is not null)`)],
);

/**
 * `spsa verify`: two θ of a run played against each other. The games are an ordinary
 * iteration (of a run of their own, the carrier), so workers claim and report them as
 * tuning games; this row says what was compared and the outcome.
 */
export const spsaVerification = pgTable(
  "spsa_verification",
  {
    id: serial("id").primaryKey(),
    runId: integer("run_id")
      .notNull()
      .references(() => spsaRun.id),
    carrierRunId: integer("carrier_run_id")
      .notNull()
      .references(() => spsaRun.id),
    /** "start", "current" or "iteration K" (θ after iteration K). */
    fromLabel: text("from_label").notNull(),
    toLabel: text("to_label").notNull(),
    fromParameters: jsonb("from_parameters").$type<Values>().notNull(),
    toParameters: jsonb("to_parameters").$type<Values>().notNull(),
    maxGames: integer("max_games").notNull(),
    /**
     * What both engines searched with: a time per move drawn in [timelowMs, timehighMs], a
     * clock `{tc}`, `{nodes}` or `{depth}`; by default the run's (src/verify/limits.ts).
     */
    limits: jsonb("limits").$type<PlayLimits>().notNull(),
    /** SPRT bounds {elo0, elo1, alpha, beta}, or null for a fixed number of games. */
    sprt: jsonb("sprt").$type<SprtBounds>(),
    status: text("status").$type<"running" | "complete">().notNull().default("running"),
    /** H1, H0 or undecided (SPRT), or null for a fixed number of games. */
    verdict: text("verdict"),
    /** The "to" engine against the "from" engine, from the pentanomial counts. */
    elo: doublePrecision("elo"),
    eloError: doublePrecision("elo_error"),
    los: doublePrecision("los"),
    llr: doublePrecision("llr"),
    /**
     * A match of a run's ship check (spsa_ship_check), and which: "elimination 1", …, or "final"
     * (against the start θ); null for `spsa verify`.
     */
    shipCheckId: integer("ship_check_id").references(() => spsaShipCheck.id),
    shipStage: text("ship_stage"),
    /**
     * Transfer in the run: the tuning iteration whose plus and minus this match plays at the ship
     * limits (one match per iteration).
     */
    transferIterationId: integer("transfer_iteration_id").references(() => spsaIteration.id),
    createdAt: createdAt(),
    completedAt: timestamp("completed_at", { withTimezone: true }),
  },
  (t) => [
    check("spsa_verification_status", sql`${t.status} in ('running', 'complete')`),
    // One match per stage: a master that died after creating one finds it again.
    uniqueIndex("spsa_verification_ship_stage").on(t.shipCheckId, t.shipStage),
    // One transfer per iteration: a restarted master never queues the same one twice.
    uniqueIndex("spsa_verification_transfer_iteration").on(t.transferIterationId),
  ],
);

/** A candidate of a ship check: its name ("final θ", "tail average of the last 50 %") and θ. */
export interface ShipCandidate {
  label: string;
  values: Values;
}

/** An elimination match as the ship check recorded it: the holder, the challenger, the challenger's result. */
export interface ShipMatch {
  holder: string;
  challenger: string;
  verificationId: number;
  wins: number;
  losses: number;
  draws: number;
  /** The label of the candidate that went on. */
  winner: string;
}

/**
 * The ship check of a build-mode run (docs/ship-check.md): written by the master only (the
 * worker role has no privilege on it). Its games are spsa_verification rows that name it.
 */
export const spsaShipCheck = pgTable(
  "spsa_ship_check",
  {
    id: serial("id").primaryKey(),
    runId: integer("run_id")
      .notNull()
      .unique()
      .references(() => spsaRun.id),
    status: text("status").$type<"running" | "complete">().notNull().default("running"),
    /** `[ship]` as the check started with it: the limits, the SPRT bounds, the caps. */
    limits: jsonb("limits").$type<PlayLimits>().notNull(),
    sprt: jsonb("sprt").$type<SprtBounds>().notNull(),
    maxGames: integer("max_games").notNull(),
    eliminationGames: integer("elimination_games").notNull(),
    /** In elimination order: the first is the holder, each next one challenges the holder so far. */
    candidates: jsonb("candidates").$type<ShipCandidate[]>().notNull(),
    elimination: jsonb("elimination").$type<ShipMatch[]>().notNull().default([]),
    chosen: text("chosen"),
    chosenParameters: jsonb("chosen_parameters").$type<Values>(),
    /** pass (SPRT H1), fail (H0) or undecided (max_games reached); null while it runs. */
    verdict: text("verdict").$type<"pass" | "fail" | "undecided">(),
    /** The chosen candidate against the start θ, from the pentanomial counts. */
    elo: doublePrecision("elo"),
    eloError: doublePrecision("elo_error"),
    llr: doublePrecision("llr"),
    games: integer("games"),
    createdAt: createdAt(),
    completedAt: timestamp("completed_at", { withTimezone: true }),
  },
  (t) => [
    check("spsa_ship_check_status", sql`${t.status} in ('running', 'complete')`),
    check("spsa_ship_check_verdict", sql`${t.verdict} in ('pass', 'fail', 'undecided')`),
  ],
);

/** `spsa texel`: one Texel tuning run of evaluation parameters on a set of positions. */
export const texelRun = pgTable(
  "texel_run",
  {
    id: serial("id").primaryKey(),
    paramsFile: text("params_file").notNull(),
    positionsFile: text("positions_file").notNull(),
    positions: integer("positions").notNull(),
    /** "local" (the seed's ±1 search) or "adaptive". */
    method: text("method").$type<"local" | "adaptive">().notNull(),
    /** The sigmoid's scaling, fitted on the start values. */
    k: doublePrecision("k").notNull(),
    errorBefore: doublePrecision("error_before").notNull(),
    errorAfter: doublePrecision("error_after").notNull(),
    startParameters: jsonb("start_parameters").$type<Values>().notNull(),
    finalParameters: jsonb("final_parameters").$type<Values>().notNull(),
    evaluations: integer("evaluations").notNull(),
    passes: integer("passes").notNull(),
    /** Positions scored per second over the whole run, all engines together. */
    positionsPerSecond: doublePrecision("positions_per_second").notNull(),
    seconds: doublePrecision("seconds").notNull(),
    createdAt: createdAt(),
  },
  (t) => [check("texel_run_method", sql`${t.method} in ('local', 'adaptive')`)],
);

/**
 * UCI-option mode (`[engine] mode = "options"`): one binary, θ set with `setoption`. The
 * run's games are one carrier iteration that workers claim in batches as usual; this row
 * says how each batch's perturbation is drawn and its result applied.
 */
export const spsaOptionRun = pgTable("spsa_option_run", {
  runId: integer("run_id")
    .primaryKey()
    .references(() => spsaRun.id),
  iterationId: integer("iteration_id")
    .notNull()
    .unique()
    .references(() => spsaIteration.id),
  enginePath: text("engine_path").notNull(),
  engineSha256: text("engine_sha256").notNull(),
  /** Per parameter: min, max, step, type, frozen, option, option_scale. */
  parameters: jsonb("parameters").notNull(),
  /**
   * The parameters in the run's order (params.toml's), stored once: the n-th sign of a batch's
   * `signs` and the n-th element of a stored θ are the n-th name's.
   */
  parameterNames: text("parameter_names").array().notNull(),
  /**
   * θ is stored after every this many applied batches (spsa_perturbation.theta_after); between them
   * it is replayed.
   */
  thetaEvery: integer("theta_every").notNull().default(1),
  /**
   * spsa_run.current_parameters is θ after this many applied batches: every one on a run that
   * stores θ after every batch, else written at least every 10 s (the master caches θ between).
   */
  thetaApplied: integer("theta_applied").notNull().default(0),
  /** The SPSA math's gains (a, c, A, alpha, gamma, max_iterations, elo_cap, max_step). */
  gains: jsonb("gains").notNull(),
  /** Games of one step of the gain schedule: a batch of n games moves θ n / this times as far. */
  gamesPerIteration: integer("games_per_iteration").notNull(),
  /**
   * The master's signature of `parameters` for this run's uid (src/signing/options-signature.ts):
   * a worker sets no option the master did not sign. Null in rows of older versions until their master resumes.
   */
  parametersSignature: text("parameters_signature"),
  /**
   * Games of the curvature pilot at the run's start (src/master/option-pilot.ts): its batches play
   * θ+ and θ− each against θ₀ (spsa_perturbation.reference_parameters). 0: none (and in rows of
   * runs opened before UCI-option mode had one).
   */
  pilotGames: integer("pilot_games").notNull().default(0),
  /**
   * The pilot's measure once its games are in (PilotMeasure and the games it is from:
   * OptionPilotRecord); null before.
   */
  pilot: jsonb("pilot"),
  /**
   * `[spsa] gain_share` when the run started: the share of its games played as gain blocks (θ against
   * θ₀, src/spsa/gain-block-plan.ts); 0 in runs opened before them.
   */
  gainShare: doublePrecision("gain_share").notNull().default(0),
  createdAt: createdAt(),
});

/**
 * One batch of a UCI-option run: its perturbation, drawn by the master ahead of the workers
 * from the θ after `drawn_from` applied batches, and once applied its result, its step scale and
 * its place in the chain (and at every `theta_every`-th place the θ after it). What a batch needs
 * only until it is played (plus and minus values for the worker) is dropped once it is applied
 * or expired: the row stays a few hundred bytes plus a bit per parameter, and the chain replays
 * from it (src/spsa/option-chain.ts). A batch that expired unreported keeps no result and changed nothing.
 *
 * Its four numbers (the same table in docs/psql.md):
 * - `batch_id`: the spsa_batch row, the key (what workers' log lines name).
 * - `batch_number`: its number in the run, what the views (`batch`), the dashboard and the chain's
 *   messages show; batch_id again in rows drawn since migration 0014 (insertPerturbation takes only
 *   batchId), 1, 2, … in claim order in rows drawn before.
 * - `draw_number`: the draw it plays (with the run's seed it seeds the draw): the batch_number of
 *   its draw's first batch, its own unless it shares a draw.
 * - `applied_number`: its place in the applied chain, 1, 2, … in the order the master applied the
 *   reports; null until applied, and for a curvature pilot's batch.
 */
export const spsaPerturbation = pgTable(
  "spsa_perturbation",
  {
    batchId: bigint("batch_id", { mode: "number" })
      .primaryKey()
      .references(() => spsaBatch.id),
    runId: integer("run_id")
      .notNull()
      .references(() => spsaRun.id),
    /**
     * Unique per run (the batch row's id since migration 0014; 1, 2, … in claim order before); with
     * the run's seed it seeds the draw.
     */
    batchNumber: integer("batch_number").notNull(),
    /**
     * With the run's seed it seeds the draw: the batch_number of the draw's first batch. The batches
     * of one shared draw (the run's first half: an iteration's worth of batches) have the same; any
     * other batch has its own batch_number (docs/uci-options.md, "Shared draws").
     */
    drawNumber: integer("draw_number").notNull(),
    /** The worker that claimed the batch (null: drawn by the master, not claimed yet). */
    workerName: text("worker_name"),
    games: integer("games").notNull(),
    /** The gain schedule's k: 1 + games drawn before this batch / games_per_iteration. */
    k: integer("k").notNull(),
    ck: doublePrecision("c_k").notNull(),
    ak: doublePrecision("a_k").notNull(),
    /**
     * The θ it was drawn from is θ after this many applied batches (0: the run's start); null in
     * rows drawn before migration 0020's version.
     */
    drawnFrom: integer("drawn_from"),
    /**
     * Bit n: the sign of the n-th parameter of spsa_option_run.parameter_names, 1 for +1 and 0 for
     * −1 (0 for a frozen one).
     */
    signs: varbit("signs").notNull(),
    /**
     * The values plus and minus play, by parameter name: kept until the batch is applied or expired
     * (null then), except in rows drawn before migration 0020's version.
     */
    plusParameters: jsonb("plus_parameters"),
    minusParameters: jsonb("minus_parameters"),
    /**
     * A batch of the curvature pilot: θ₀, which plus and minus each play against (an array in the
     * run's order); null for plus against minus. Kept.
     */
    referenceParameters: jsonb("reference_parameters"),
    /**
     * A gain block (src/spsa/gain-block-plan.ts): plus and minus are both θ as it was when drawn and
     * each plays θ₀ (reference_parameters), like a pilot's batch; it moves θ no step and measures
     * what θ gained (src/db/gain-blocks.ts). False for a pilot's batch and for plus against minus.
     */
    gain: boolean("gain").notNull().default(false),
    plusWins: integer("plus_wins"),
    minusWins: integer("minus_wins"),
    draws: integer("draws"),
    /** [LL, LD, DD, DW, WW] from plus's side. */
    pairs: jsonb("pairs"),
    eloDiff: doublePrecision("elo_diff"),
    /**
     * The factor on a_k of this batch's step (the adaptive gains' scale when it was applied); null
     * before it is applied.
     */
    stepScale: doublePrecision("step_scale"),
    /**
     * θ after this batch, in the order of spsa_option_run.parameter_names: at every theta_every-th
     * applied batch, else null.
     */
    thetaAfter: doublePrecision("theta_after").array(),
    claimedAt: timestamp("claimed_at", { withTimezone: true }),
    reportedAt: timestamp("reported_at", { withTimezone: true }),
    /** 1, 2, … per run in the order the master applied the reports to θ (null: not applied yet). */
    appliedNumber: integer("applied_number"),
  },
  (t) => [
    uniqueIndex("spsa_perturbation_run_number").on(t.runId, t.batchNumber),
    // A gain block plays θ against θ₀: it names θ₀ as a pilot's batch does.
    check("spsa_perturbation_gain", sql`not ${t.gain} or ${t.referenceParameters} is not null`),
    uniqueIndex("spsa_perturbation_run_applied").on(t.runId, t.appliedNumber),
    // The few rows that still hold their values (drawn, claimed, or reported and not applied yet).
    index("spsa_perturbation_values")
      .on(t.runId)
      .where(sql`${t.plusParameters} is not null`),
    // The curvature pilot's few batches.
    index("spsa_perturbation_pilot")
      .on(t.runId)
      .where(sql`${t.referenceParameters} is not null`),
  ],
);

/**
 * Games that ended in an engine fault (crash, illegal or unparsable move, the engine's own
 * time loss, a failed start), kept so the position and θ that broke the engine can be
 * replayed. Written by the worker in its batch's report transaction, so a retried report
 * stores nothing twice; bounded per iteration and worker and per run (src/db/faulted-games.ts).
 */
export const spsaFaultedGame = pgTable(
  "spsa_faulted_game",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    runId: integer("run_id")
      .notNull()
      .references(() => spsaRun.id),
    iterationId: integer("iteration_id")
      .notNull()
      .references(() => spsaIteration.id),
    batchId: bigint("batch_id", { mode: "number" })
      .notNull()
      .references(() => spsaBatch.id),
    /** The game's place in its batch (pair × 2 + game): with batch_id, what makes a game unique. */
    gameIndex: integer("game_index").notNull(),
    workerName: text("worker_name").notNull(),
    /** The engine at fault (the reference engine in reference mode), and its fault (src/play/faults.ts). */
    side: text("side").$type<EngineRole>().notNull(),
    fault: text("fault").notNull(),
    /** The game's own words for its end, e.g. "white: engine crashed (exit code 1)". */
    reason: text("reason").notNull(),
    pgn: text("pgn").notNull(),
    /** θ of each engine (build mode) or its tuned UCI options (UCI-option mode). */
    plusParameters: jsonb("plus_parameters").$type<Values>().notNull(),
    minusParameters: jsonb("minus_parameters").$type<Values>().notNull(),
    plusEngineSha256: text("plus_engine_sha256").notNull(),
    minusEngineSha256: text("minus_engine_sha256").notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("spsa_faulted_game_batch_game").on(t.batchId, t.gameIndex),
    index("spsa_faulted_game_run").on(t.runId, t.iterationId, t.workerName),
    check("spsa_faulted_game_side", sql`${t.side} in ('plus', 'minus', 'reference')`),
  ],
);

/**
 * Decisions about a worker in a run (docs/bad-workers.md), kept as a history: the master's
 * "suspect" when the worker's evidence passes a limit, an operator's "accepted" or "rejected"
 * (`spsa workers accept|reject`). The latest row of a worker in a run is its state: while it is
 * "suspect" or "rejected" the master sets the worker's batches aside. Written by the master and
 * the operator only: the worker role has no privilege on it.
 */
export const spsaWorkerDecision = pgTable(
  "spsa_worker_decision",
  {
    id: serial("id").primaryKey(),
    runId: integer("run_id")
      .notNull()
      .references(() => spsaRun.id),
    workerName: text("worker_name").notNull(),
    decision: text("decision").$type<WorkerDecisionKind>().notNull(),
    /** The master's reason (the evidence in words), or the operator's note. */
    reason: text("reason").notNull(),
    /** Who decided: the master or the operator's login on its host, and the database role. */
    decidedBy: text("decided_by").notNull(),
    /** The worker's evidence at the time. */
    evidence: jsonb("evidence").$type<WorkerEvidence>(),
    createdAt: createdAt(),
  },
  (t) => [
    index("spsa_worker_decision_run").on(t.runId, t.workerName, t.id),
    check("spsa_worker_decision_kind", sql`${t.decision} in ('suspect', 'accepted', 'rejected')`),
  ],
);

/** The master's latest look at a run's workers: each one's evidence, for spsa status and the dashboard. */
export const spsaWorkerReview = pgTable("spsa_worker_review", {
  runId: integer("run_id")
    .primaryKey()
    .references(() => spsaRun.id),
  evidence: jsonb("evidence").$type<WorkerEvidence[]>().notNull(),
  /** Strata (build mode: iterations; UCI-option mode: windows of reports) the evidence covers. */
  strata: integer("strata").notNull(),
  reviewedAt: timestamp("reviewed_at", { withTimezone: true }).notNull().defaultNow(),
});

/**
 * A run's games by worker, as its master counts them: kept by the fold that adds a batch to its
 * iteration's counters (src/db/batches.ts) and taken back out with them when a batch is set aside,
 * so they sum to the run's counters and cost spsa status one row per worker, however long the run.
 * Held batches are not in them (spsa_batch.held_at). Master-only: the worker role has no privilege on it.
 */
export const spsaRunWorker = pgTable(
  "spsa_run_worker",
  {
    runId: integer("run_id")
      .notNull()
      .references(() => spsaRun.id),
    workerName: text("worker_name").notNull(),
    batches: integer("batches").notNull().default(0),
    games: integer("games").notNull().default(0),
    /** Plus against minus (in reference mode θ+'s and θ−'s results as reported in these columns). */
    plusWins: integer("plus_wins").notNull().default(0),
    minusWins: integer("minus_wins").notNull().default(0),
    draws: integer("draws").notNull().default(0),
    /**
     * Crashes, time losses and illegal moves of the engines; time losses to delays outside them;
     * games replayed for those.
     */
    engineFaults: integer("engine_faults").notNull().default(0),
    delayLosses: integer("delay_losses").notNull().default(0),
    replays: integer("replays").notNull().default(0),
    replayLimitPairs: integer("replay_limit_pairs").notNull().default(0),
    firstReportedAt: timestamp("first_reported_at", { withTimezone: true }),
    lastReportedAt: timestamp("last_reported_at", { withTimezone: true }),
  },
  (t) => [primaryKey({ columns: [t.runId, t.workerName] })],
);

/**
 * `spsa undo --worker`: a worker's results taken out of a run's θ, θ before and after, and who did
 * it; its batches name it (spsa_batch.undo_id).
 */
export const spsaUndo = pgTable("spsa_undo", {
  id: serial("id").primaryKey(),
  runId: integer("run_id")
    .notNull()
    .references(() => spsaRun.id),
  workerName: text("worker_name").notNull(),
  decidedBy: text("decided_by").notNull(),
  batches: integer("batches").notNull(),
  games: integer("games").notNull(),
  thetaBefore: jsonb("theta_before").$type<Values>().notNull(),
  thetaAfter: jsonb("theta_after").$type<Values>().notNull(),
  createdAt: createdAt(),
});
