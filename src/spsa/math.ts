/**
 * SPSA formulas, pure. Parameters are perturbed and moved in units of their own `step`
 * (like Sturddle scales by range), so `a` and `c` are dimensionless and one config fits
 * parameters of any scale. The seed's formulas plus the fixes of docs/design-notes.md (SPSA): OpenBench's
 * integer rule, a clamped score and capped Elo, a clipped step, a default A.
 */
import { scoreFromElo } from "../stats/elo.js";
import type { Rng } from "../core/rng.js";
import { selfCorrectingCk, selfCorrectingFactor } from "./trajectory.js";
import {
  isReferenceResult,
  type IterationOutcome,
  type IterationResult,
  type Perturbation,
  type PlayedPerturbation,
  type SpsaMathConfig,
  type SpsaParam,
  type SpsaParams,
  type Trajectory,
  type UpdateResult,
  type Values,
} from "../types/spsa.js";

/** High enough to leave real results alone (a 64-game iteration's error is about 35 Elo); it stops a sweep. */
export const DEFAULT_ELO_CAP = 400;
export const DEFAULT_MAX_STEP = 2;
/** OpenBench's floor on an int parameter's perturbation, in parameter units. */
export const MIN_INT_DELTA = 0.5;

/** The outcome's results, each measured on its own: one for plus against minus, θ+'s and θ−'s in reference mode. */
export function resultsOf(outcome: IterationOutcome): IterationResult[] {
  return isReferenceResult(outcome) ? [outcome.plus, outcome.minus] : [outcome];
}

/** Spall's advice: A about 10 % of the iterations, so early steps are not huge on long runs. */
export function defaultA(maxIterations: number): number {
  return 0.1 * maxIterations;
}

/**
 * c_k = c / k^gamma and a_k = a / (k + A)^alpha, k 1-based. The self-correcting schedule
 * also needs the parameters and θ of iterations 1..k (`past`); the standard one ignores them.
 */
export function gains(
  cfg: SpsaMathConfig,
  k: number,
  past?: { params: SpsaParams; trajectory: Trajectory },
): { ck: number; ak: number } {
  if (!Number.isInteger(k) || k < 1) throw new RangeError(`iteration number must be an integer >= 1, got ${k}`);
  const A = cfg.A ?? defaultA(cfg.maxIterations);
  if (cfg.schedule !== "self-correcting") return { ck: cfg.c / k ** cfg.gamma, ak: cfg.a / (k + A) ** cfg.alpha };
  const N = cfg.maxIterations;
  const factor = selfCorrectingFactor(past?.params ?? [], past?.trajectory ?? [], k, A);
  // Starts at the standard a_k's mean over the run: the same total step before corrections.
  let meanA = 0;
  for (let j = 1; j <= N; j++) meanA += cfg.a / (j + A) ** cfg.alpha / N;
  return { ck: selfCorrectingCk(cfg.c / N ** cfg.gamma, k, N), ak: factor * meanA };
}

/**
 * Draws the signs and builds plus and minus for iteration k. Draw order is fixed (per
 * parameter that is not frozen, in order: the sign, then u for int parameters) so the same
 * rng seed gives the same perturbation.
 *
 * Near a bound δ shrinks to the room θ has left, so that the pair stays centred on θ and
 * measures the slope there (a wide pair moved inward would measure it up to δ away, where the
 * optimum may already lie behind it, and pin θ to the bound: docs/adaptive-gains.md), but never
 * below one step (or MIN_INT_DELTA): within that last step the pair is moved inward as a whole
 * (its centre clipped to [min + δ, max − δ]) rather than clipped at the bound, so plus and minus
 * stay apart and the iteration still measures a slope. Only a range narrower than 2δ narrows
 * the pair further.
 */
export function perturb(
  params: SpsaParams,
  cfg: SpsaMathConfig,
  k: number,
  rng: Rng,
  trajectory?: Trajectory,
): Perturbation {
  const { ck, ak } = gains(cfg, k, trajectory && { params, trajectory });
  const result: Perturbation = { ck, ak, signs: {}, delta: {}, plus: {}, minus: {} };
  for (const p of params) {
    const [lo, hi] = playableBounds(p);
    if (p.frozen) {
      result.plus[p.name] = builtValue(p);
      result.minus[p.name] = builtValue(p);
      continue;
    }
    const sign = rng.next() < 0.5 ? 1 : -1;
    const delta = perturbationSteps(p, ck) * p.step;
    const room = Math.min(p.value - lo, hi - p.value);
    const half = Math.min(delta, (hi - lo) / 2, Math.max(room, perturbationSteps(p, 1) * p.step));
    const centre = clip(p.value, lo + half, hi - half);
    let plus = centre + sign * half;
    let minus = centre - sign * half;
    if (p.type === "int") {
      // One u for both, so plus and minus (2δ ≥ 1 apart) never round to the same integer.
      const u = rng.next();
      plus = clip(Math.floor(plus + u), lo, hi);
      minus = clip(Math.floor(minus + u), lo, hi);
    }
    result.signs[p.name] = sign;
    result.delta[p.name] = delta;
    result.plus[p.name] = plus;
    result.minus[p.name] = minus;
  }
  return result;
}

/** Plus engine's score; Elo from the clamped score (never ±∞), capped at ±eloCap. */
export function measuredElo(result: IterationResult, eloCap = DEFAULT_ELO_CAP): { score: number; elo: number } {
  const games = result.plusWins + result.minusWins + result.draws;
  if (games <= 0) throw new RangeError("cannot compute an Elo from zero games");
  // Half a game away from 0 % and 100 %: a sweep counts as strong evidence, not infinite.
  const margin = 1 / (2 * games);
  const score = clip((result.plusWins + result.draws / 2) / games, margin, 1 - margin);
  return { score, elo: clip(scoreToElo(score), -eloCap, eloCap) };
}

/**
 * The Elo an iteration's update sees. Plus against minus: measuredElo. Reference mode:
 * Elo(θ+ vs reference) − Elo(θ− vs reference), each measured and capped as measuredElo does,
 * the difference capped at ±eloCap too; its score is the logistic score of that Elo (what plus
 * would score against minus), so that both kinds read the same.
 */
export function iterationElo(outcome: IterationOutcome, eloCap = DEFAULT_ELO_CAP): { score: number; elo: number } {
  if (!isReferenceResult(outcome)) return measuredElo(outcome, eloCap);
  const elo = clip(measuredElo(outcome.plus, eloCap).elo - measuredElo(outcome.minus, eloCap).elo, -eloCap, eloCap);
  return { score: scoreFromElo(elo), elo };
}

/** The outcome's results summed: a gain iteration's θ against θ₀, both its sides pooled (θ's wins as plusWins). */
export function pooledResult(outcome: IterationOutcome): IterationResult {
  return resultsOf(outcome).reduce((sum, r) => ({
    plusWins: sum.plusWins + r.plusWins,
    minusWins: sum.minusWins + r.minusWins,
    draws: sum.draws + r.draws,
  }));
}

/**
 * What a gain iteration measures (docs/gain-so-far.md): θ against θ₀, both sides pooled, as
 * measuredElo reads it; no gradient, since it moves θ no step.
 */
export function gainMeasure(outcome: IterationOutcome, eloCap = DEFAULT_ELO_CAP): { elo: number; gradient: Values } {
  return { elo: measuredElo(pooledResult(outcome), eloCap).elo, gradient: {} };
}

/** Logistic Elo difference of a score in (0, 1): −400·log10(1/score − 1), written so 0.5 gives +0. */
export function scoreToElo(score: number): number {
  return 400 * Math.log10(score / (1 - score));
}

/**
 * g_i = elo / ((plus_i − minus_i) / step_i): Elo per step over the perturbation that was
 * actually played (which bounds or rounding may have made differ from 2δ). Δθ_i = a_k · g_i ·
 * step_i clipped to ±maxStep · step_i, θ_new = clip(θ + Δθ). A parameter whose plus equals
 * minus (frozen, or a range too narrow to perturb) learnt nothing and keeps its θ.
 * With momentum β, β times the previous move (θ_k − θ_{k−1}, `previous`) is added before the clip.
 * The Elo is iterationElo's: plus against minus, or in reference mode the difference of both
 * sides' Elo against the reference; the step is the same for either.
 */
export function update(
  params: SpsaParams,
  played: PlayedPerturbation,
  result: IterationOutcome,
  cfg: Pick<SpsaMathConfig, "eloCap" | "maxStep" | "momentum">,
  previous?: Values,
): UpdateResult {
  const { score, elo } = iterationElo(result, cfg.eloCap);
  const maxStep = cfg.maxStep ?? DEFAULT_MAX_STEP;
  const momentum = cfg.momentum ?? 0;
  if (momentum > 0 && previous === undefined)
    throw new RangeError("momentum needs the previous move (θ_k − θ_{k−1}; zeros at the first iteration)");
  const gradient: Values = {};
  const newValues: Values = {};
  for (const p of params) {
    const plus = played.plus[p.name];
    const minus = played.minus[p.name];
    if (plus === undefined || minus === undefined)
      throw new RangeError(`the perturbation has no plus or minus value for parameter ${p.name}`);
    const spreadSteps = (plus - minus) / p.step;
    if (spreadSteps === 0) {
      gradient[p.name] = 0;
      newValues[p.name] = p.value;
      continue;
    }
    const g = elo / spreadSteps;
    const limit = maxStep * p.step;
    const scale = typeof played.scale === "number" ? played.scale : (played.scale?.[p.name] ?? 1);
    const move = clip(played.ak * scale * g * p.step + momentum * (previous?.[p.name] ?? 0), -limit, limit);
    gradient[p.name] = g;
    newValues[p.name] = clip(p.value + move, p.min, p.max);
  }
  return { elo, score, gradient, newValues };
}

/**
 * fishtest / OpenBench parametrisation: the perturbation c_end (in steps) and the learning
 * rate r_end wanted at the last iteration N, r_end in fishtest's units (a game pair with
 * wins − losses = w moves θ by r·c·w steps). Returns the c and a of c_k = c / k^γ and
 * a_k = a / (k + A)^α that give them: c = c_end·N^γ, and a = r_end·c_end²·(A + N)^α times
 * the wins − losses per Elo of an iteration's games, since a_k here multiplies an Elo.
 */
export function deriveFromEnd(end: {
  cEnd: number;
  rEnd: number;
  N: number;
  A: number;
  alpha: number;
  gamma: number;
  gamesPerIteration: number;
}): { c: number; a: number } {
  const winsMinusLossesPerElo = end.gamesPerIteration * WINS_MINUS_LOSSES_PER_GAME_PER_ELO;
  return {
    c: end.cEnd * end.N ** end.gamma,
    a: end.rEnd * end.cEnd ** 2 * (end.A + end.N) ** end.alpha * 2 * winsMinusLossesPerElo,
  };
}

/** Near equal strength a game's expected wins − losses, 2·score − 1, grows by ln 10 / 800 per Elo. */
const WINS_MINUS_LOSSES_PER_GAME_PER_ELO = Math.LN10 / 800;

/** δ_i / step_i: c_k, raised for int parameters so that δ_i ≥ MIN_INT_DELTA. */
function perturbationSteps(p: SpsaParam, ck: number): number {
  return p.type === "int" ? Math.max(ck, MIN_INT_DELTA / p.step) : ck;
}

/** θ as an engine is built with it: int parameters rounded to the nearest integer in bounds. */
export function builtValue(p: SpsaParam): number {
  const [lo, hi] = playableBounds(p);
  return p.type === "int" ? clip(Math.round(p.value), lo, hi) : p.value;
}

/** The values plus and minus may take: [min, max], or its integers for an int parameter. */
function playableBounds(p: SpsaParam): [number, number] {
  return p.type === "int" ? [Math.ceil(p.min), Math.floor(p.max)] : [p.min, p.max];
}

function clip(x: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, x));
}
