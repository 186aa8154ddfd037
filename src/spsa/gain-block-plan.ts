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
