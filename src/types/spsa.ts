export type ParamType = "int" | "float";

/** One tunable as the math sees it; value, min, max and step are in the parameter's units. */
export interface SpsaParam {
  name: string;
  /** θ. Kept unrounded for int parameters too: only plus and minus are rounded. */
  value: number;
  min: number;
  max: number;
  /** Parameter units per step unit: the perturbation at c_k = 1. */
  step: number;
  type: ParamType;
  /** A frozen parameter is played at its value (rounded for ints) and never moved. */
  frozen?: boolean;
}

export type SpsaParams = readonly SpsaParam[];

export interface SpsaMathConfig {
  /** Learning rate scale (dimensionless). */
  a: number;
  /** Perturbation scale, in steps. */
  c: number;
  /** Stability constant; undefined means defaultA(maxIterations). */
  A?: number | undefined;
  alpha: number;
  gamma: number;
  maxIterations: number;
  /** |Elo| used for a gradient is capped at this (default DEFAULT_ELO_CAP). */
  eloCap?: number;
  /** |Δθ| per iteration is at most maxStep steps (default DEFAULT_MAX_STEP). */
  maxStep?: number;
  /**
   * "standard": c_k and a_k as below. "self-correcting": SCSPSA's gains (src/spsa/trajectory.ts),
   * ending on the standard schedule's c_N, a_k starting at the mean of the standard a_k and
   * corrected every A iterations from the third block on.
   */
  schedule?: Schedule;
  /** Heavy-ball momentum β in [0, 1): Δθ_k = a_k·g·step + β·(θ_k − θ_{k−1}), clipped as a whole. */
  momentum?: number;
  /** Per-parameter factors on a_k from what the run measured (src/spsa/adaptive.ts); absent: off. */
  adaptive?: AdaptiveGains;
}

export const SCHEDULES = ["standard", "self-correcting"] as const;

export type Schedule = (typeof SCHEDULES)[number];

export type Values = Record<string, number>;

/** What an iteration played: all its update needs, so a resumed master replays it exactly. */
export interface PlayedPerturbation {
  /** a_k, dimensionless. */
  ak: number;
  /** Values of the plus engine (integers for int parameters). */
  plus: Values;
  /** Values of the minus engine. */
  minus: Values;
  /** Factor on a_k (adaptive gains, src/spsa/adaptive.ts), per parameter or one for all; absent: 1. */
  scale?: Values | number;
}

export interface Perturbation extends PlayedPerturbation {
  /** c_k, in steps. */
  ck: number;
  /** s_i ∈ {+1, −1}; absent for frozen parameters. */
  signs: Values;
  /** δ_i, in parameter units (≥ MIN_INT_DELTA for int parameters), before bounds narrow it. */
  delta: Values;
}

/** Game results of the plus engine against the minus engine. */
export interface IterationResult {
  plusWins: number;
  minusWins: number;
  draws: number;
}

/**
 * Reference mode (docs/reference-mode.md): θ+'s and θ−'s games against the reference engine,
 * each counted from the tuned engine's side as an IterationResult (its wins as plusWins, the
 * reference's as minusWins), so that each side's Elo is measured as measuredElo measures one.
 */
export interface ReferenceResult {
  plus: IterationResult;
  minus: IterationResult;
}

/** What an iteration's games measured: plus against minus, or each of them against the reference. */
export type IterationOutcome = IterationResult | ReferenceResult;

export function isReferenceResult(outcome: IterationOutcome): outcome is ReferenceResult {
  return "plus" in outcome;
}

export interface UpdateResult {
  /** Plus-vs-minus Elo after clamping the score and capping (reference mode: iterationElo's difference). */
  elo: number;
  /** Plus engine's score after clamping, in (0, 1) (reference mode: the logistic score of that Elo). */
  score: number;
  /** g_i, Elo per step; 0 for a parameter whose plus and minus were equal. */
  gradient: Values;
  /** θ_new, in parameter units. */
  newValues: Values;
}

export const ADAPT_MODES = ["off", "signal"] as const;

export type AdaptMode = (typeof ADAPT_MODES)[number];

export interface AdaptiveGains {
  mode: AdaptMode;
  /** Completed iterations looked back over. */
  window: number;
  /** The least scale, in (0, 1]. */
  floor: number;
  /** Iterations of the curvature pilot at the run's start (src/spsa/pilot.ts); absent or 0: none. */
  pilot?: number;
  /**
   * The power of the pilot's factor that also widens c_k after the pilot (widenedGains); absent or
   * 0: c_k as configured (runs stored before it).
   */
  widen?: number;
  /**
   * The power of the pilot's factor that lifts the floor after the pilot (pilotScale); absent or 0:
   * the floor as configured (runs stored before it).
   */
  lift?: number;
}

/** What a completed iteration left that the scales need. */
export interface MeasuredIteration {
  elo: number;
  /**
   * Its game counts, for the noise of `elo`: plus against minus, or (reference mode) both sides'
   * against the reference.
   */
  result: IterationOutcome;
}

/** A pilot iteration as its measure needs it. */
export interface PilotIteration {
  /** θ+'s and θ−'s results against θ₀. */
  outcome: ReferenceResult;
  /** Mean over the perturbed parameters of (half the plus–minus spread, in steps)². */
  spreadSquared: number;
}

export interface PilotMeasure {
  /** Estimated total curvature T, Elo per step², and its standard error. */
  curvature: number;
  error: number;
  /** A side lost beyond PILOT_SATURATION_ELO: T is only known to be large. */
  saturated: boolean;
  /** The factor on every step scale: min(PILOT_MAX_FACTOR, PILOT_SAFE_CURVATURE / (T + 2 errors)), at least 1. */
  factor: number;
}

/**
 * A UCI-option run's curvature pilot as stored once its games are in (spsa_option_run.pilot): the
 * measure, and the games and results it is from.
 */
export interface OptionPilotRecord extends PilotMeasure {
  games: number;
  /** θ+'s and θ−'s results against θ₀, over all the pilot's batches. */
  outcome: ReferenceResult;
}

/** θ at the start of iterations 1, 2, … (entry k − 1 is iteration k's base θ). */
export type Trajectory = readonly Values[];

/**
 * The asynchronous SPSA of UCI-option mode, pure: every batch draws its own perturbation
 * from the θ of its claim, and its result moves the θ of its report (fishtest's scheme).
 * It is the master math of `src/spsa/math.ts` with the schedule counted in games: a batch
 * of n games is n / gamesPerIteration of an iteration, in its step and in the schedule.
 */

/** How one parameter reaches the engine in this mode, as recorded for the run. */
export interface OptionParamSettings extends ParamSettings {
  option: string;
  /** The option holds value × scale, rounded; undefined: a float is sent as a decimal. */
  optionScale: number | undefined;
}

export type OptionParams = Record<string, OptionParamSettings>;

export interface DrawnBatch extends Perturbation {
  /** The schedule's k of this batch. */
  k: number;
}

/**
 * A reported batch's result and the draw it played (AppliedBatch.drawNumber): the adaptive scale
 * reads one draw's batches pooled.
 */
export type DrawnResult = IterationResult & { drawNumber: number };

/** One parameter's settings as an iteration played them. */
export type ParamSettings = Pick<SpsaParam, "min" | "max" | "step" | "type"> & { frozen: boolean };

/**
 * What a worker checks and plays of a UCI-option batch: the run's signed parameter list and the
 * values the master drew.
 */
export interface OptionDraw {
  parameters: OptionParams;
  signature: string | null;
  plus: Values;
  minus: Values;
  /** A batch of the curvature pilot: θ₀, which plus and minus each play against (src/master/option-pilot.ts). */
  reference?: Values;
}

/**
 * A run's parameter list: the settings by name, and the run's order of the names (a draw's signs
 * and a stored θ follow it).
 */
export interface OptionList {
  parameters: OptionParams;
  names: readonly string[];
}

/**
 * A UCI-option run as its applied chain replays (src/spsa/option-chain.ts): its parameter list in
 * order, its gains, schedule and seed.
 */
export interface ChainRun extends OptionList {
  gains: SpsaMathConfig;
  gamesPerIteration: number;
  seed: string;
  /** The curvature pilot's factor on the adaptive scales (OptionPilotRecord), once measured. */
  pilotFactor?: number;
}

/** One applied batch of a UCI-option run as stored (src/db/applied-chain.ts readAppliedChain). */
export interface AppliedBatch {
  /** 1, 2, …: its place in the order the master applied the reports. */
  appliedNumber: number;
  /** Its number in the run (spsa_perturbation.batch_number: the batch row's id since migration 0014). */
  batchNumber: number;
  /**
   * With the run's seed it seeds the draw: the batchNumber of the draw's first batch (its own
   * unless it shares a draw).
   */
  drawNumber: number;
  workerName: string | null;
  games: number;
  /** The games planned before it in the carrier iteration: its place in the gain schedule. */
  gamesBefore: number;
  /**
   * Drawn from θ after this many applied batches (0: the start); null in rows of earlier versions,
   * whose values are stored.
   */
  drawnFrom: number | null;
  k: number;
  ck: number;
  ak: number;
  /** One '0' or '1' per parameter in the run's order (src/spsa/option-batches.ts signBits). */
  signs: string;
  /** The factor on a_k its step used; null in rows of earlier versions (computed again from the batches before it). */
  stepScale: number | null;
  result: IterationResult;
  /** The Elo its step used (plus against minus, clamped and capped). */
  elo: number;
  /** The values plus and minus played, where the row still holds them (rows of earlier versions); null: drawn again. */
  played: { plus: Values; minus: Values } | null;
  /** θ after it, where stored (every theta_every-th applied batch). */
  thetaAfter: Values | null;
}

/**
 * Where a replay of the applied chain starts: θ after `applied` batches, and the results of the
 * batches applied before it (oldest first: the adaptive window of scales not recorded).
 */
export interface ChainStart {
  applied: number;
  theta: Values;
  recent: readonly DrawnResult[];
}

/**
 * A batch of the chain after an undo or an acceptance, from the first place either changed on:
 * what its row must hold.
 */
export interface RewrittenBatch {
  batchNumber: number;
  appliedNumber: number;
  stepScale: number;
  /** θ after it, at every `thetaEvery`-th place; else null. */
  thetaAfter: Values | null;
  /**
   * The values it played, kept in its row: it was drawn from a θ the edit changed, so the chain
   * cannot draw it again. Null: it can.
   */
  played: { plus: Values; minus: Values } | null;
  /**
   * A held batch put into the chain (InsertedBatch): the Elo its step used, for its row to record
   * with its result. Undefined: the batch was in the chain already, its row holds both.
   */
  insertedElo?: number;
}

/**
 * A held batch of an accepted worker put back into a UCI-option run's chain (spsa workers
 * accept, docs/bad-workers.md): its place, the values it played and its result.
 */
export interface InsertedBatch {
  /** It goes just before the chain's batch applied `before`-th (the first reported after it); null: after the last. */
  before: number | null;
  batchNumber: number;
  drawNumber: number;
  /** Null in rows of earlier versions: it played with no recorded draw θ (its values are stored). */
  drawnFrom: number | null;
  games: number;
  ak: number;
  played: { plus: Values; minus: Values };
  result: IterationResult;
}

/** A UCI-option run's chain with some batches taken out (an undo) or put in (an acceptance). */
export interface ChainEdit {
  /** θ after the chain as it stood, and after the edited chain. */
  thetaBefore: Values;
  theta: Values;
  /** The first place (1, 2, …) the edit changed; null: none (the chain is as it stood). */
  firstChanged: number | null;
  /**
   * The batches taken out: their batch numbers and the values they played (kept in their rows, so
   * that spsa workers accept can put a held batch back where it was).
   */
  removed: { batchNumber: number; played: { plus: Values; minus: Values } }[];
  /** The batches from firstChanged on, renumbered. */
  rewritten: RewrittenBatch[];
}
