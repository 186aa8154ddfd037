import { pilotIterations, type PilotPlanConfig } from "./pilot.js";

/**
 * Where a run's gain blocks go, pure (docs/gain-so-far.md, "The design"): after the curvature
 * pilot, every cycle of ⌈block / share⌉ games (160 at 10 %) is the tuner's games, then one block of
 * GAIN_BLOCK_GAMES that plays θ, as it is when the block is drawn, against θ₀. The tuner gets the
 * games the blocks leave, its schedule planned for those (as the simulator's rows assume), and
 * its draws are placed by its own games, so a run without blocks draws exactly as before. The
 * plan counts games given out, not positions: a block or a tuner batch set aside or expired is
 * drawn again where the counts say, so a restart or a lost lease never skips or doubles a block.
 */

/** A gain block's games: four game pairs of θ against θ₀ on each side of a pilot-form batch. */
export const GAIN_BLOCK_GAMES = 16;

export interface GainBlockPlan {
  /** The curvature pilot's games at the run's start: no block before they are all drawn. */
  pilotGames: number;
  /** Tuner games between two blocks (from the pilot's end to the first). */
  between: number;
  /** The blocks of the whole run, each GAIN_BLOCK_GAMES. */
  blocks: number;
  /** The tuner's games: the run's games less the blocks'. */
  tunerGames: number;
}

/**
 * The plan of a run of `targetGames` whose first `pilotGames` are the pilot, `share` of the rest in
 * blocks: as many whole cycles as fit (the games after the last go to the tuner).
 */
export function gainBlockPlan(targetGames: number, pilotGames: number, share: number): GainBlockPlan {
  const cycle = share > 0 ? Math.round(GAIN_BLOCK_GAMES / share) : Infinity;
  const blocks = Number.isFinite(cycle) ? Math.max(0, Math.floor((targetGames - pilotGames) / cycle)) : 0;
  return {
    pilotGames,
    between: cycle - GAIN_BLOCK_GAMES,
    blocks,
    tunerGames: targetGames - blocks * GAIN_BLOCK_GAMES,
  };
}

/**
 * The next draw, given the tuner's games given out so far (`tuned`, the pilot's included) and the
 * blocks' (`gained`): a block once the tuner has played its cycle's games, else up to `games` of
 * the tuner's (to the next block, or to its end; 0 when it has all its games).
 */
export function nextGainDraw(
  plan: GainBlockPlan,
  tuned: number,
  gained: number,
): { gain: true } | { gain: false; games: number } {
  const drawn = Math.floor(gained / GAIN_BLOCK_GAMES);
  if (drawn >= plan.blocks) return { gain: false, games: Math.max(0, plan.tunerGames - tuned) };
  const nextAt = plan.pilotGames + (drawn + 1) * plan.between;
  if (tuned >= nextAt) return { gain: true };
  return { gain: false, games: nextAt - tuned };
}

/** The tuner's iterations of `gamesPerIteration` in the plan: the schedule its gains are planned for. */
export function tunerIterations(plan: GainBlockPlan, gamesPerIteration: number, maxIterations: number): number {
  return plan.blocks === 0 ? maxIterations : Math.max(1, Math.floor(plan.tunerGames / gamesPerIteration));
}

/**
 * Build mode's iterations (src/master/build-mode.ts): the same plan in whole iterations. A tuner
 * iteration is `gamesPerIteration` games, a gain iteration GAIN_BLOCK_GAMES of θ against θ₀; one
 * is placed once the tuner's games reach its place, so iteration numbers (1..iterations) interleave
 * the two. The tuner's own index (tunerStep) is what its gain schedule, trajectory and momentum
 * count, planned for `tunerIterations`; without blocks every k is the tuner's, as before.
 */
export interface BuildGainPlan {
  /** The run's iterations, gain iterations included. */
  iterations: number;
  /** The tuner's iterations (the pilot's included): the schedule's max_iterations. */
  tunerIterations: number;
  /** The iteration numbers of the gain iterations, in order. */
  gainIterations: readonly number[];
}

/** The iterations of a build-mode run of `maxIterations` × `gamesPerIteration` games, `pilots` of them the pilot's. */
export function buildGainPlan(
  maxIterations: number,
  gamesPerIteration: number,
  pilots: number,
  share: number,
): BuildGainPlan {
  const plan = gainBlockPlan(maxIterations * gamesPerIteration, pilots * gamesPerIteration, share);
  if (plan.blocks === 0) return { iterations: maxIterations, tunerIterations: maxIterations, gainIterations: [] };
  const tuner = tunerIterations(plan, gamesPerIteration, maxIterations);
  const gainIterations: number[] = [];
  let tuned = 0;
  for (let k = 1; ; k++) {
    if (nextGainDraw(plan, tuned * gamesPerIteration, gainIterations.length * GAIN_BLOCK_GAMES).gain)
      gainIterations.push(k);
    else if (tuned < tuner) tuned++;
    else return { iterations: k - 1, tunerIterations: tuner, gainIterations };
  }
}

/** Whether iteration k plays θ against θ₀ and moves θ no step. */
export function isGainIteration(plan: BuildGainPlan, k: number): boolean {
  return plan.gainIterations.includes(k);
}

/** Iteration k's place among the tuner's iterations (1-based): k less the gain iterations before it. */
export function tunerStep(plan: BuildGainPlan, k: number): number {
  return k - plan.gainIterations.filter((g) => g < k).length;
}

/** The games of iterations 1..k of a run of `gamesPerIteration` games per tuner iteration. */
export function gamesThrough(plan: BuildGainPlan, gamesPerIteration: number, k: number): number {
  const gains = plan.gainIterations.filter((g) => g <= k).length;
  return gains * GAIN_BLOCK_GAMES + (k - gains) * gamesPerIteration;
}

/** What a run's gain plan reads of its config (PilotPlanConfig's, and the budget and share). */
export interface GainPlanConfig extends PilotPlanConfig {
  spsa: PilotPlanConfig["spsa"] & { maxIterations: number; gain: { share: number } };
}

/** Where the run's gain iterations go; none when its batches cannot hold a game pair on each side (batch_size < 4). */
export function gainPlanOf(config: GainPlanConfig): BuildGainPlan {
  const share = config.games.batchSize >= 4 ? config.spsa.gain.share : 0;
  return buildGainPlan(config.spsa.maxIterations, config.games.gamesPerIteration, pilotIterations(config), share);
}
