/**
 * The sizes of an iteration's batch rows, in the order workers claim them (docs/tail-wait.md).
 * Full `batchSize` rows while much of the iteration is left, then rows of the remaining games
 * shared out over the game slots (guided self-scheduling, Polychronopoulos & Kuck 1987): the
 * last rows are small, so the iteration's last games run on many slots at once instead of one
 * worker playing a whole batch while the others idle. bench/tail-wait.mjs measured it against
 * rows of half that ("factoring"): the same idle share with fewer claims.
 */

/**
 * Assumed game slots when the master has seen no worker: one worker at -c 2 (the rows still shrink
 * at the very end).
 */
export const UNKNOWN_SLOTS = 2;

/**
 * Row sizes for an iteration of `targetGames` games: each even (games are played in pairs),
 * at least 2 and at most `batchSize`, summing to `targetGames`. `workers` is the number of game
 * slots the master sees: the sum of the concurrency of the workers alive within a lease (a
 * worker at -c N plays N games at once and claims rows until its slots are busy); 0 when
 * unknown. Each row is ⌈remaining pairs / slots⌉ pairs, at most batchSize / 2.
 */
export function planBatchSizes(targetGames: number, batchSize: number, workers: number): number[] {
  if (!Number.isInteger(targetGames) || targetGames < 0 || targetGames % 2 !== 0)
    throw new RangeError(`targetGames must be an even count of games, not ${targetGames}`);
  if (!Number.isInteger(batchSize) || batchSize < 2)
    throw new RangeError(`batchSize must be an integer of at least 2 games, not ${batchSize}`);
  if (!Number.isInteger(workers) || workers < 0)
    throw new RangeError(`workers must be a count of game slots (0: unknown), not ${workers}`);
  const slots = workers > 0 ? workers : UNKNOWN_SLOTS;
  const maxPairs = Math.floor(batchSize / 2);
  const sizes: number[] = [];
  for (let pairsLeft = targetGames / 2; pairsLeft > 0;) {
    const pairs = Math.min(maxPairs, pairsLeft, Math.ceil(pairsLeft / slots));
    sizes.push(2 * pairs);
    pairsLeft -= pairs;
  }
  return sizes;
}

/**
 * Reference mode's rows (docs/reference-mode.md): its games come in units of four on one
 * opening (θ+ as white and as black against the reference, θ− the same), so the rows are
 * planBatchSizes's over units, times four: each a multiple of 4, at most `batchSize`, summing
 * to `targetGames` (a multiple of 4). planBatchSizes plans pairs; on half the games its pairs
 * are units.
 */
export function planReferenceBatchSizes(targetGames: number, batchSize: number, workers: number): number[] {
  if (!Number.isInteger(targetGames) || targetGames % 4 !== 0)
    throw new RangeError(`targetGames must be a multiple of 4 in reference mode, not ${targetGames}`);
  if (!Number.isInteger(batchSize) || batchSize < 4)
    throw new RangeError(`batchSize must be an integer of at least 4 games in reference mode, not ${batchSize}`);
  return planBatchSizes(targetGames / 2, Math.floor(batchSize / 2), workers).map((games) => 2 * games);
}
